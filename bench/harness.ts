// The pieces every measure is built from: an autocannon load against one target (warm-up, then the
// counted run, then a strict check of every answer), and a bare Fastify route serving a fixed body.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import Fastify from 'fastify';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/store/schema.js';

export interface LoadSettings {
  /** Counted seconds per target (BENCH_SECONDS, default 10). */
  seconds: number;
  /** Warm-up seconds before each counted run, not counted. */
  warmupSeconds: number;
  connections: number;
  /** BENCH_CPU_PROFILE: folder receiving a CPU profile of this (the server's) thread per counted run. */
  profileDir: string | null;
}

export interface LoadRequest {
  /** Name of the target in the printed table. */
  label: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /**
   * The exact body every answer must have. The reference body was checked once (status 0) before the
   * load, so byte-for-byte equality means every single answer was a success. Answers that differ by
   * design (a new refundOfferId each time) leave it out; such a measure checks its answers another way.
   */
  expectBody?: string;
  /**
   * Bodies to send in turn instead of `body` (one per request, round robin), with a check of every answer:
   * identical to `reference` except at `varying` (offsets of one id of `varyingLength` characters, repeated),
   * where it holds `ids[n]`, the id its request's body (`bodies[n]`) must get back.
   */
  cycle?: { bodies: string[]; ids: string[]; reference: string; varying: number[]; varyingLength: number };
  /**
   * Gzip answers (the request asks with `Accept-Encoding: gzip`, as the spec's callers do), each checked once to
   * unzip to a status-0 answer: with `bodies` sent in turn (as in `cycle`), the answer to `bodies[n]` must be
   * `answers[n]`; without, every answer must be `answers[0]`; compared as gzipOptions says.
   */
  gzip?: { bodies?: string[]; answers: Buffer[] };
  /**
   * Answers that differ from `reference` (checked once to carry status 0) only where `mask` (a regular expression's
   * source) matches: every answer with its matches taken out must equal the reference with its own taken out — a
   * quote's new refundOfferId each time. An answer without a match (a failure) cannot equal it.
   */
  masked?: { reference: string; mask: string };
  /** The server under test runs in a process of its own (this pid): its CPU is not "other processes". */
  serverPid?: number;
}

export interface LoadResult {
  label: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  seconds: number;
  /**
   * Share of the machine's CPU time used by other processes (not this one, not PostgreSQL) during the
   * counted run: colleagues' test suites on the same cores skew one target and not the other.
   */
  othersCpu: number;
  /**
   * CPU time per answered request during the counted run, where it went (Linux /proc; absent elsewhere): the
   * server under test (its event-loop thread, or its process when it runs in one of its own), this process's
   * other threads (autocannon's worker; V8's garbage-collector helpers, PGlite's none), and the PostgreSQL
   * server processes. On
   * a machine whose cores are all busy, a target's rate ÷ its yardstick's is close to the inverse ratio of
   * their total CPU per request: this says which part makes the difference.
   */
  cpuUsPerRequest?: { server: number; otherThreads: number; postgres: number };
}

/** A load whose answers were not all 2xx and identical to the reference body: the figure is void. */
export class LoadFailure extends Error {}

function problemsOf(r: Result): string[] {
  const problems: string[] = [];
  if (r.errors > 0) problems.push(`${r.errors} connection errors (${r.timeouts} of them timeouts)`);
  if (r.non2xx > 0) {
    const codes = Object.entries(r.statusCodeStats)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, s]) => `${s.count}× HTTP ${code}`);
    problems.push(`${r.non2xx} non-2xx answers (${codes.join(', ')})`);
  }
  if (r.mismatches > 0) problems.push(`${r.mismatches} answers differing from the reference body (status ≠ 0 or other content)`);
  if (r.resets > 0) problems.push(`${r.resets} request pipeline resets`);
  if (r['2xx'] === 0) problems.push('no 2xx answer at all');
  return problems;
}

/**
 * Load one target: warm-up (checked, not counted), then the counted run. The requests are fired from an
 * autocannon worker thread so the load generator does not share the event loop of the server under test.
 */
export async function load(settings: LoadSettings, req: LoadRequest, part = ''): Promise<LoadResult> {
  const cycle = req.cycle ? cycleOptions(req, req.cycle) : req.gzip ? gzipOptions(req, req.gzip) : req.masked ? maskedOptions(req.masked) : null;
  try {
    return await loadWith(settings, req, cycle?.options ?? {}, part);
  } finally {
    cycle?.remove();
  }
}

/**
 * A yardstick and its subject in the order A B B A, half the counted seconds each time (the warm-up before
 * the first half of each only): a machine that slows down or speeds up during the measure (on these shared
 * machines a bare route's rate drifted by a quarter within an hour) shifts both alike instead of favouring
 * the one loaded first. `beforeSubject` and `afterSubject` run around the subject's two halves (say, to
 * count what its answers stored).
 */
export async function loadAbba(
  settings: LoadSettings,
  yardstick: LoadRequest,
  subject: LoadRequest,
  hooks: { beforeSubject?: () => Promise<void>; afterSubject?: () => Promise<void> } = {},
): Promise<[LoadResult, LoadResult]> {
  const half = { ...settings, seconds: settings.seconds / 2 };
  const warm = { ...half, warmupSeconds: 0 };
  const a1 = await load(half, yardstick, '1 of 2');
  await hooks.beforeSubject?.();
  const b1 = await load(half, subject, '1 of 2');
  const b2 = await load(warm, subject, '2 of 2');
  await hooks.afterSubject?.();
  const a2 = await load(warm, yardstick, '2 of 2');
  return [mergeLoads(a1, a2), mergeLoads(b1, b2)];
}

/** Two counted runs of one target as one: rates and CPU weighted by time and answers, the worse p99 and noise. */
export function mergeLoads(a: LoadResult, b: LoadResult): LoadResult {
  const seconds = a.seconds + b.seconds;
  const requests = a.requests + b.requests;
  const byTime = (x: number, y: number) => (x * a.seconds + y * b.seconds) / seconds;
  const byAnswers = (x: number, y: number) => (requests > 0 ? (x * a.requests + y * b.requests) / requests : 0);
  const cpu = a.cpuUsPerRequest && b.cpuUsPerRequest ? { a: a.cpuUsPerRequest, b: b.cpuUsPerRequest } : null;
  return {
    label: a.label,
    rps: byTime(a.rps, b.rps),
    p50Ms: byTime(a.p50Ms, b.p50Ms),
    p99Ms: Math.max(a.p99Ms, b.p99Ms),
    requests,
    seconds,
    othersCpu: Math.max(a.othersCpu, b.othersCpu),
    ...(cpu
      ? {
          cpuUsPerRequest: {
            server: byAnswers(cpu.a.server, cpu.b.server),
            otherThreads: byAnswers(cpu.a.otherThreads, cpu.b.otherThreads),
            postgres: byAnswers(cpu.a.postgres, cpu.b.postgres),
          },
        }
      : {}),
  };
}

async function loadWith(settings: LoadSettings, req: LoadRequest, extra: object, part: string): Promise<LoadResult> {
  const run = async (seconds: number, phase: string): Promise<Result> => {
    const result = await autocannon({
      url: req.url,
      method: req.method,
      headers: req.headers,
      ...(req.body !== undefined ? { body: req.body } : {}),
      connections: settings.connections,
      duration: seconds,
      workers: 1,
      ...(req.expectBody !== undefined ? { expectBody: req.expectBody } : {}),
      ...extra,
      title: `${req.label} (${phase})`,
    });
    const problems = problemsOf(result);
    if (problems.length > 0) throw new LoadFailure(`${req.label}, ${phase}: ${problems.join('; ')}`);
    return result;
  };
  if (settings.warmupSeconds > 0) await run(settings.warmupSeconds, 'warm-up');
  const measuredPhase = part ? `measured run, ${part}` : 'measured run';
  const before = cpuSnapshot(req.serverPid);
  const r = await (settings.profileDir
    ? profiled(path.join(settings.profileDir, `${`${req.label}${part ? ` ${part}` : ''}`.replace(/[^A-Za-z0-9.-]+/g, '_')}.cpuprofile`), () => run(settings.seconds, measuredPhase))
    : run(settings.seconds, measuredPhase));
  return {
    label: req.label,
    rps: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    requests: r['2xx'],
    seconds: r.duration,
    othersCpu: othersCpuSince(before, req.serverPid),
    ...cpuPerRequestSince(before, r['2xx'], req.serverPid),
  };
}

/** The answer check of LoadRequest.masked, as a module autocannon's worker requires (see cycleOptions). */
export function maskedOptions(masked: NonNullable<LoadRequest['masked']>) {
  const re = new RegExp(masked.mask, 'g');
  const expected = masked.reference.replace(re, '');
  if (expected === masked.reference) throw new Error('masked: the mask matches nothing in the reference answer');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-masked-'));
  const data = path.join(dir, 'masked.json');
  fs.writeFileSync(data, JSON.stringify({ expected, mask: masked.mask }));
  const verify = path.join(dir, 'verify-body.cjs');
  fs.writeFileSync(
    verify,
    `const { expected, mask } = require(${JSON.stringify(data)});
const re = new RegExp(mask, 'g');
module.exports = (body) => body.replace(re, '') === expected;
`,
  );
  return { options: { verifyBody: verify }, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The check of answers about one order each that differ from `reference` only in the values of the string fields
 * `varies` (orderNo and ticketNo among them): an answer with those values taken out must equal the reference with its
 * own taken out, byte for byte, and name its own order and each of its tickets. ~5 µs for a 1.9 KB answer, against ~14
 * for parsing it.
 */
export function orderAnswerCheck(reference: string, varies: readonly string[]): (text: string, orderNo: string, ticketNos: readonly string[]) => boolean {
  const re = new RegExp(`"(?:${varies.join('|')})":"[^"]*"`, 'g');
  const expected = reference.replace(re, '');
  if (expected === reference) throw new Error('orderAnswerCheck: no varying field in the reference answer');
  return (text, orderNo, ticketNos) =>
    text.replace(re, '') === expected && text.includes(`"orderNo":${JSON.stringify(orderNo)}`) && ticketNos.every((t) => text.includes(`"ticketNo":${JSON.stringify(t)}`));
}

/**
 * Submit-only fields of refund.do's answer (spec 2.9; and serviceFee's displayTransactionFee, spec 2.7), and those every
 * answer has its own of.
 */
const NOT_IN_QUOTE = new Set(['msg', 'refundOfferId', 'displayCurrency', 'refundStatus', 'refundCode', 'cancelReason', 'refundReason']);
const quoteFieldsOf = (answer: Record<string, unknown>) => {
  const fee = answer.serviceFee;
  if (fee === null || typeof fee !== 'object' || !('displayTransactionFee' in fee)) return answer;
  const { displayTransactionFee: _submitOnly, ...quoteFee } = fee as Record<string, unknown>;
  return { ...answer, serviceFee: quoteFee };
};

/**
 * The check of every refund.do answer of the measure, from a reference submission (`quote` and `answer`: the same
 * order's refundQuotation.do and refund.do answers, not counted). The reference is checked in full once: status 0,
 * refundStatus 0 (processing), a refundCode, its order and tickets, and every field the quote has (spec 2.9) as the
 * quote gave it. Each answer must then equal it but for its own order, tickets, offer and refund (orderAnswerCheck):
 * a wrong amount, rule or date fails the measure, as in the HTTP measures' masked checks — where this measure checked
 * only `status` before, parsing each answer for it (the client's work is counted in the service's thread).
 */
export function submitAnswerCheck(quote: string, answer: string, orderNo: string, ticketNos: readonly string[]): (text: string, orderNo: string, ticketNos: readonly string[]) => boolean {
  const q = JSON.parse(quote) as Record<string, unknown>;
  const a = quoteFieldsOf(JSON.parse(answer) as Record<string, unknown>);
  const problems: string[] = [];
  if (q.status !== 0) problems.push(`the quote's status ${String(q.status)}`);
  if (a.status !== 0 || a.refundStatus !== 0) problems.push(`status ${String(a.status)}, refundStatus ${String(a.refundStatus)}`);
  if (typeof a.refundCode !== 'string' || a.refundCode === '') problems.push('no refundCode');
  if (a.orderNo !== orderNo) problems.push(`orderNo ${JSON.stringify(a.orderNo)} for ${orderNo}`);
  const tickets = Array.isArray(a.refundTickets) ? (a.refundTickets as Array<{ ticketNo?: unknown }>).map((t) => t.ticketNo) : null;
  if (!isDeepStrictEqual(tickets, [...ticketNos])) problems.push(`refundTickets ${JSON.stringify(tickets)} for ${JSON.stringify(ticketNos)}`);
  for (const key of new Set([...Object.keys(q), ...Object.keys(a)])) {
    if (!NOT_IN_QUOTE.has(key) && !isDeepStrictEqual(q[key], a[key])) problems.push(`${key} ${JSON.stringify(a[key])} where the quote has ${JSON.stringify(q[key])}`);
  }
  if (problems.length > 0) throw new LoadFailure(`refund.do: the reference submission answered ${problems.join('; ')}`);
  return orderAnswerCheck(answer, ['orderNo', 'ticketNo', 'refundOfferId', 'refundCode']);
}

/**
 * autocannon's worker thread cannot receive functions, only files to require: the round robin over the
 * bodies and the answer check are written as small CommonJS modules next to JSON files of their data.
 */
export function cycleOptions(req: LoadRequest, cycle: NonNullable<LoadRequest['cycle']>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-cycle-'));
  if (cycle.ids.length !== cycle.bodies.length || cycle.ids.some((id) => id.length !== cycle.varyingLength)) throw new Error('cycle: one id of varyingLength per body');
  const turns = roundRobinModules(dir, cycle.bodies);
  // An answer's varying ids are all one id (a session's binding): each place of it must hold the same bytes
  // as the first; masked there, the answer must equal the masked reference byte for byte. Done on a copy of
  // its bytes (plain loops: Buffer.fill per place cost more) rather than by a 58 KB replaceAll on the text:
  // the load generator's thread spent 10–20 µs less per seat map, answers/s +6–8 % on two cores shared with
  // the server (BENCHMARKS.md, 2026-11-26 late night).
  const mask = 'x'.repeat(cycle.varyingLength);
  const idAt = (text: string, at: number) => text.slice(at, at + cycle.varyingLength);
  const first = cycle.varying[0] ?? 0;
  if (cycle.varying.some((at) => idAt(cycle.reference, at) !== idAt(cycle.reference, first))) throw new Error('cycle: the varying ids of the reference differ');
  // ASCII only, so that an answer's characters are its bytes: one that is not (same length in characters,
  // more in bytes) fails the byte length.
  if (Buffer.byteLength(cycle.reference, 'utf8') !== cycle.reference.length) throw new Error('cycle: the reference answer is not ASCII');
  let masked = cycle.reference;
  for (const at of cycle.varying) masked = masked.slice(0, at) + mask + masked.slice(at + cycle.varyingLength);
  const reference = path.join(dir, 'reference.json');
  fs.writeFileSync(reference, JSON.stringify({ masked, first, size: cycle.varyingLength, offsets: cycle.varying, maskByte: mask.charCodeAt(0), ids: cycle.ids }));
  const verify = path.join(dir, 'verify-body.cjs');
  fs.writeFileSync(
    verify,
    `const ref = require(${JSON.stringify(reference)});\n` +
      `const turn = require(${JSON.stringify(turns.state)});\n` +
      `const masked = Buffer.from(ref.masked, 'utf8');\n` +
      `const { offsets, first, size, maskByte, ids } = ref;\n` +
      `module.exports = (body) => {\n` +
      `  if (body.length !== masked.length) return false;\n` +
      `  if (body.slice(first, first + size) !== ids[turn.answered]) return false;\n` +
      `  const bytes = Buffer.from(body, 'utf8');\n` +
      `  if (bytes.length !== masked.length) return false;\n` +
      `  for (let j = 0; j < offsets.length; j++) for (let k = 0, at = offsets[j]; k < size; k++) if (bytes[at + k] !== bytes[first + k]) return false;\n` +
      `  for (let j = 0; j < offsets.length; j++) for (let k = 0, at = offsets[j]; k < size; k++) bytes[at + k] = maskByte;\n` +
      `  return bytes.equals(masked);\n` +
      `};\n`,
  );
  return {
    options: { requests: [{ method: req.method, setupRequest: turns.setup, onResponse: turns.onResponse }], verifyBody: verify },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The modules autocannon's worker requires to send `bodies` in turn, one per request (round robin), and to tell
 * the answer check which body an answer answers: `setupRequest` notes the body's number in the connection's
 * context (one request at a time per connection: no pipelining), autocannon hands that context to `onResponse`
 * with the answer, which notes the number in `state` (`answered`), and the answer check, called next for that
 * same answer (httpClient's kOnMessageComplete: onResponse, then the next request, then verifyBody), reads it.
 */
function roundRobinModules(dir: string, bodies: string[]): { setup: string; onResponse: string; state: string } {
  const file = path.join(dir, 'bodies.json');
  fs.writeFileSync(file, JSON.stringify(bodies));
  const state = path.join(dir, 'turn.cjs');
  fs.writeFileSync(state, 'module.exports = { answered: -1 };\n');
  const setup = path.join(dir, 'setup-request.cjs');
  fs.writeFileSync(
    setup,
    `const bodies = require(${JSON.stringify(file)});\nlet i = 0;\n` +
      `module.exports = (request, context) => { const n = i++ % bodies.length; context.n = n; request.body = bodies[n]; return request; };\n`,
  );
  const onResponse = path.join(dir, 'on-response.cjs');
  fs.writeFileSync(onResponse, `const turn = require(${JSON.stringify(state)});\nmodule.exports = (status, body, context) => { turn.answered = context.n; };\n`);
  return { setup, onResponse, state };
}

/**
 * The answer check of a gzip load: autocannon hands a body over as the text its bytes decode to (UTF-8, lossy for
 * gzip's bytes: a byte that is not UTF-8 becomes U+FFFD), so an answer must decode to the same text as its expected
 * gzip body (with bodies in turn: its request's body's, roundRobinModules). Two gzip answers that differ (another
 * binding, another map, another level) differ in valid bytes too (their CRC, their codes), so in practice this is
 * the byte comparison. An answer whose bytes arrived in two reads of the socket could decode otherwise and count as
 * a mismatch (the measure then fails and says so): these answers are a few KB with a Content-Length, one write and
 * one read each.
 */
export function gzipOptions(req: LoadRequest, gzip: NonNullable<LoadRequest['gzip']>) {
  if (gzip.bodies ? gzip.answers.length !== gzip.bodies.length : gzip.answers.length !== 1) throw new Error('gzip: one answer per body, or one answer');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-gzip-'));
  const answers = path.join(dir, 'answers.json');
  fs.writeFileSync(answers, JSON.stringify(gzip.answers.map((a) => a.toString('utf8'))));
  const verify = path.join(dir, 'verify-body.cjs');
  const turns = gzip.bodies ? roundRobinModules(dir, gzip.bodies) : null;
  fs.writeFileSync(
    verify,
    `const answers = require(${JSON.stringify(answers)});\n` +
      (turns
        ? `const turn = require(${JSON.stringify(turns.state)});\nmodule.exports = (body) => body === answers[turn.answered];\n`
        : 'module.exports = (body) => body === answers[0];\n'),
  );
  return {
    options: { ...(turns ? { requests: [{ method: req.method, setupRequest: turns.setup, onResponse: turns.onResponse }] } : {}), verifyBody: verify },
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

interface CpuSnapshot {
  busyMs: number;
  totalMs: number;
  own: NodeJS.CpuUsage;
  /** CPU ms of each local PostgreSQL process by pid (see postgresMsBetween). */
  postgres: Map<string, number>;
  /** This process's main (event-loop) thread, or the server process under test. */
  serverMs: number;
}

const CLOCK_TICK_MS = 10; // Linux USER_HZ 100

/** utime + stime of one /proc stat file, in ms; null when it cannot be read. */
function statCpuMs(file: string): number | null {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS; // utime, stime (fields 14 and 15 of stat)
  } catch {
    return null;
  }
}

/**
 * Whether the machine's PostgreSQL serves the service under test (DATABASE_URL): its CPU is then the service's, not
 * "other processes'". On the embedded store no PostgreSQL process serves it, and a colleague's suite on the
 * machine's PostgreSQL is other load (a review: it was subtracted as the bench's own and never marked noisy). The
 * bench sets it once it knows its store. (On PostgreSQL every backend still counts as the bench's: this machine's
 * one cluster serves others' suites too, whose load is then not seen.)
 */
let postgresServesTheBench = true;
export function postgresServes(yes: boolean): void {
  postgresServesTheBench = yes;
}

/** CPU ms of each local PostgreSQL server process serving the bench, by pid (Linux /proc; none elsewhere). */
function postgresCpu(): Map<string, number> {
  const cpu = new Map<string, number>();
  if (!postgresServesTheBench) return cpu;
  try {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      } catch {
        continue; // the process ended meanwhile
      }
      cpu.set(pid, statCpuMs(`/proc/${pid}/stat`) ?? 0);
    }
  } catch {
    return cpu;
  }
  return cpu;
}

/**
 * PostgreSQL's CPU between two snapshots: each process's own increase. A sum of totals would drop whenever a
 * backend with a long past exits meanwhile (a pool's idle connection closing): the backlog's closed connections
 * made the seat map's next bare route read "noisy, 91–100 %" with nothing else running.
 */
function postgresMsBetween(before: CpuSnapshot, now: CpuSnapshot): number {
  let ms = 0;
  for (const [pid, cpu] of now.postgres) ms += cpu - (before.postgres.get(pid) ?? 0);
  return ms;
}

function cpuSnapshot(serverPid?: number): CpuSnapshot {
  let busyMs = 0;
  let totalMs = 0;
  for (const { times } of os.cpus()) {
    const busy = times.user + times.nice + times.sys + times.irq;
    busyMs += busy;
    totalMs += busy + times.idle;
  }
  const serverMs = statCpuMs(serverPid ? `/proc/${serverPid}/stat` : `/proc/self/task/${process.pid}/stat`) ?? 0;
  return { busyMs, totalMs, own: process.cpuUsage(), postgres: postgresCpu(), serverMs };
}

/**
 * Starts counting CPU where LoadResult.cpuUsPerRequest says, and other processes' share of the machine
 * (LoadResult.othersCpu, which marks a figure noisy); the returned function gives both since the start, the
 * first per answer. For measures that drive the service without autocannon (in-process inject, the job queue,
 * sequential quotes), the driver runs on the server's thread and counts as the server's.
 */
export function startCpuMeter(serverPid?: number): (answers: number) => Pick<LoadResult, 'cpuUsPerRequest' | 'othersCpu'> {
  const before = cpuSnapshot(serverPid);
  return (answers) => ({ othersCpu: othersCpuSince(before, serverPid), ...cpuPerRequestSince(before, answers, serverPid) });
}

/** CPU µs per answered request since `before`, by where it went (see LoadResult.cpuUsPerRequest). */
function cpuPerRequestSince(before: CpuSnapshot, answers: number, serverPid?: number): Pick<LoadResult, 'cpuUsPerRequest'> {
  if (answers <= 0 || !fs.existsSync('/proc/self/task')) return {};
  const now = cpuSnapshot(serverPid);
  const own = process.cpuUsage(before.own);
  const ownMs = (own.user + own.system) / 1000;
  const serverMs = now.serverMs - before.serverMs;
  const perRequest = (ms: number) => Math.max(0, (ms * 1000) / answers);
  return {
    cpuUsPerRequest: {
      server: perRequest(serverMs),
      otherThreads: perRequest(serverPid ? ownMs : ownMs - serverMs),
      postgres: perRequest(postgresMsBetween(before, now)),
    },
  };
}

/** CPU time of the whole machine minus this process's (server and load-generator threads), PostgreSQL's and a server process's under test. */
function othersCpuSince(before: CpuSnapshot, serverPid?: number): number {
  const now = cpuSnapshot(serverPid);
  const own = process.cpuUsage(before.own);
  const totalMs = now.totalMs - before.totalMs;
  if (totalMs <= 0) return 0;
  // PostgreSQL and a server process under test work for the service under test: not "other processes".
  const servingMs = postgresMsBetween(before, now) + (serverPid ? now.serverMs - before.serverMs : 0);
  const othersMs = now.busyMs - before.busyMs - (own.user + own.system) / 1000 - servingMs;
  return Math.min(1, Math.max(0, othersMs / totalMs));
}

/**
 * What one round trip over loopback TCP costs this machine (µs): a byte sent and echoed between two sockets of this
 * process (no Nagle delay), the median of five rounds of 5,000 after 2,000 not counted; ~0.6 s. Written beside the
 * machine in every row: the yardsticks' answers are mostly the kernel's work (each request's socket reads and writes,
 * each statement's), so how dear that path is shapes every ratio between machines (BENCHMARKS.md, 2026-12-08).
 */
export async function loopbackRoundTripUs(): Promise<number> {
  const server = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('data', (d) => s.write(d));
    s.on('error', () => undefined); // the client's end fails the measure, not this side
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
  // A socket error fails the measure instead of leaving a round waiting for an echo that never comes.
  const failed = new Promise<never>((_, reject) => client.once('error', reject));
  failed.catch(() => undefined);
  try {
    await Promise.race([new Promise<void>((resolve) => client.once('connect', resolve)), failed]);
    client.setNoDelay(true);
    const one = Buffer.from([1]);
    const rounds = (n: number) =>
      Promise.race([
        new Promise<number>((resolve) => {
          let left = n;
          const started = process.hrtime.bigint();
          const echoed = () => {
            if (--left > 0) return void client.write(one);
            client.off('data', echoed);
            resolve(Number(process.hrtime.bigint() - started) / n / 1000);
          };
          client.on('data', echoed);
          client.write(one);
        }),
        failed,
      ]);
    await rounds(2_000);
    const us: number[] = [];
    for (let i = 0; i < 5; i++) us.push(await rounds(5_000));
    return us.sort((a, b) => a - b)[2]!;
  } finally {
    const closed = client.closed ? null : new Promise((resolve) => client.once('close', resolve));
    client.destroy();
    await closed;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** Runs `work` under the V8 profiler of this thread and writes the profile (open it in Chrome DevTools). */
export async function profiled<T>(file: string, work: () => Promise<T>): Promise<T> {
  const session = new Session();
  session.connect();
  // BENCH_HEAP_PROFILE=1: also a sampling profile of what the run allocates, the garbage included (the
  // allocations that keep V8's collector busy), written beside the CPU profile as .heapprofile.
  const heap = process.env.BENCH_HEAP_PROFILE?.trim() === '1';
  try {
    await session.post('Profiler.enable');
    if (heap) {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    }
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`  CPU profile: ${file}`);
    if (heap) {
      const { profile: allocations } = await session.post('HeapProfiler.stopSampling');
      const heapFile = file.replace(/\.cpuprofile$/, '') + '.heapprofile';
      fs.writeFileSync(heapFile, JSON.stringify(allocations));
      console.log(`  allocation profile: ${heapFile}`);
    }
    return result;
  } finally {
    session.disconnect();
  }
}

export interface BareRoute {
  url: string;
  close(): Promise<void>;
}

/**
 * The yardstick: a Fastify app (same version as postbook, default options) with one route answering a
 * pre-serialised JSON body. POST routes parse the JSON request body like the real route does.
 */
export async function startBareRoute(method: 'GET' | 'POST', routePath: string, body: string | Buffer, encoding?: 'gzip'): Promise<BareRoute> {
  const app = Fastify({ logger: false });
  app.route({
    method,
    url: routePath,
    handler: encoding
      ? async (_request, reply) => reply.type('application/json; charset=utf-8').header('content-encoding', encoding).send(body)
      : async (_request, reply) => reply.type('application/json; charset=utf-8').send(body),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}${routePath}`, close: () => app.close() };
}

/** The yardstick of the store-bound measures: Fastify with one route answering `answer()` (a primary-key SELECT through the service's own store). */
export async function startPkSelectRoute(answer: () => Promise<object>): Promise<BareRoute> {
  const app = Fastify({ logger: false });
  app.post('/pk', answer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/pk`, close: () => app.close() };
}

/** One request with fetch, for the reference answer a measure checks and sizes its yardstick by. */
export async function fetchOnce(req: Omit<LoadRequest, 'expectBody' | 'label'>): Promise<{ http: number; text: string }> {
  const send = () => fetch(req.url, {
    method: req.method,
    // identity: the reference is the uncompressed body, as autocannon (which sends no accept-encoding) gets it
    headers: { ...req.headers, 'accept-encoding': 'identity' },
    ...(req.body !== undefined ? { body: req.body } : {}),
  });
  // After minutes without a request (a long measure before) the kept-alive connection may have been closed
  // by the server: one retry on a fresh connection.
  const res = await send().catch(() => send());
  return { http: res.status, text: await res.text() };
}

/**
 * One request asking for gzip, as the spec's callers do (`Accept-Encoding: gzip`): the answer's bytes as sent
 * (fetch would unzip them) and its Content-Encoding.
 */
export function fetchGzipOnce(req: Omit<LoadRequest, 'expectBody' | 'label'>): Promise<{ http: number; encoding: string | undefined; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = http.request(req.url, { method: req.method, headers: { ...req.headers, 'accept-encoding': 'gzip' }, agent: false, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ http: res.statusCode ?? 0, encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    sent.on('timeout', () => sent.destroy(new Error(`${req.url}: no answer within 60 s`)));
    sent.on('error', reject);
    sent.end(req.body);
  });
}

/**
 * The upkeep a measure's bulk writes leave behind, done before the next measure instead of during it: VACUUM
 * (ANALYZE) of the tables it wrote, untimed. Without it PostgreSQL's autovacuum took up a million deleted orders
 * or a drained backlog during the next measures (their bare routes read "noisy, 100 %"), and the embedded store's
 * own autovacuum would do the same on the one thread that serves requests.
 */
export async function settleTables(db: Kysely<Database>, tables: readonly string[], what: string, opts: { full?: boolean } = {}): Promise<void> {
  const started = performance.now();
  // FULL after a bulk delete (the quote-scale measure's million orders): the tables and their indexes are
  // rewritten at their live size. A plain VACUUM keeps the emptied pages, which the next measure's inserts then
  // spread over (the orders heap stayed at 40 MB for 12,000 rows, and every scan of it read all of that).
  const verb = opts.full ? sql`vacuum (full, analyze)` : sql`vacuum (analyze)`;
  for (const table of tables) await sql`${verb} ${sql.table(table)}`.execute(db);
  // And the pages they dirtied written out now, by PostgreSQL (checkpoint) and by the kernel (sync): the backlog
  // left 550 MB dirty, which the kernel's writeback would otherwise write during the next measure's counted seconds.
  await sql`checkpoint`.execute(db).catch(() => undefined);
  try {
    execFileSync('sync');
  } catch {
    // no sync(1) here: the writeback happens when the kernel gets to it
  }
  console.log(`  vacuumed${opts.full ? ' (full)' : ''} the ${what} tables in ${((performance.now() - started) / 1000).toFixed(0)} s (not measured)`);
}

/**
 * ANALYZE of the whole store once a measure has filled its tables and before it counts: what autovacuum does on
 * a deployment once a table has grown (docs/production.md "Autovacuum on"). Without it a PostgreSQL server
 * running without autovacuum (this machine's shared cluster) keeps the statistics of the tables as an earlier
 * measure left them, and the plans made from them (foreign-key checks, prepared statements) scan whole tables
 * believed empty: refund.do ran at 573/s after the quote-scale measure against 1,512/s alone (BENCHMARKS.md
 * "2026-11-26, night").
 */
export async function analyzeStore(db: Kysely<Database>, what: string): Promise<void> {
  const started = performance.now();
  await sql`analyze`.execute(db);
  console.log(`  analyzed the store ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s (not measured)`);
}
