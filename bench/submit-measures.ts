// Refund submission measures of `npm run bench` (docs/architecture.md "Performance targets"):
// - refund.do committed submissions/s ÷ raw single-row INSERT transactions/s on the same database;
// - 10⁵ queued refunds taken to status 1 by the lifecycle workers ÷ the job queue's own drain rate.
import { randomBytes, randomInt } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import pino from 'pino';
import { Pool } from 'undici';
import type { AirlineRecord } from '../src/airline/connector.js';
import { utcStamp } from '../src/ids.js';
import { measureQueueDrain } from '../src/jobs/throughput.js';
import { insertOrderFromRecord, newOrderNo } from '../src/orders/orders.js';
import { JOB_SUBMIT, SWEEP_SHAPES, submitWorker } from '../src/refunds/lifecycle.js';
import { createRefundWorkers, REFUND_JOB_EXPIRE_SECONDS, REFUND_QUEUES, type RefundWorkers } from '../src/refunds/workers.js';
import { createAirlines } from '../src/service.js';
import type { Database } from '../src/store/schema.js';
import path from 'node:path';
import { analyzeStore, LoadFailure, mergeLoads, orderAnswerCheck, profiled, settleTables, startCpuMeter, submitAnswerCheck, type LoadResult } from './harness.js';
import { formatRps, type BenchContext, type Measure, type MeasureOutcome } from './measures.js';

/** YYYYMMDD of a demo flight's departure, as the service resolved the world. */
function depDate(ctx: BenchContext, flightId: string): string {
  return ctx.service.world.flights.get(flightId)!.current.dep.toFormat('yyyyMMdd');
}

/** The walk-through booking DEMO20 (one adult, return, deposit; the sandbox airline accepts its refunds). */
function demo20(ctx: BenchContext) {
  return [...ctx.service.world.bookings.values()].find((b) => b.record.pnr === 'DEMO20')!;
}

/**
 * refund.do bodies by refundRequestList for copies of DEMO20 (quote and submit in one step). The segments' dates
 * are formatted once: the load generator runs in the service's process, and its own work per request would be
 * counted as the service's (luxon's `toFormat`, twice a request before).
 */
function submitBodies(ctx: BenchContext): (orderNo: string) => string {
  const segments = [
    { depDate: depDate(ctx, 'XS101-out'), flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' },
    { depDate: depDate(ctx, 'XS102-ret'), flightNo: 'XS102', depAirport: 'SGN', arrAirport: 'HND' },
  ];
  return (orderNo) => JSON.stringify({ orderNo, refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '0', segments }] });
}

/**
 * The tables refund.do and the backlog write (with the console's counts their triggers keep), vacuumed as a
 * deployment's autovacuum keeps them (docs/production.md "Autovacuum on"): by refund.do after its planting and after
 * its runs, by the backlog after its runs. This
 * machine's PostgreSQL runs none: on a database the bench had used for three runs refund_orders held 171,110 dead
 * rows beside 94,710 live ones (each refund's later moves leave one or two), and its indexes as many dead entries,
 * which a submission's inserts then step over; PostgreSQL's CPU per submission 663 µs there, 567 once vacuumed
 * (BENCHMARKS.md, 2026-12-04 night).
 */
const REFUND_TABLES = ['orders', 'refund_offers', 'refund_orders', 'refund_tickets', 'refund_status_history', 'console_queue_counts', 'sandbox_refunds'] as const;

/** Runs `work` from `concurrency` loops for `seconds` (or until it returns false); returns completions/s. */
async function rate(seconds: number, concurrency: number, work: () => Promise<boolean>): Promise<Rate> {
  const cpu = startCpuMeter();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (!(await work())) return;
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: done / elapsed, done, elapsed, ...cpu(done) };
}

type Rate = { perSecond: number; done: number; elapsed: number } & Pick<LoadResult, 'cpuUsPerRequest' | 'othersCpu'>;

/** Two counted runs of one load as one (the halves of A B B A), merged as the HTTP loads are. */
function mergeRates(a: Rate, b: Rate): Rate {
  const m = mergeLoads(loadOf('', a), loadOf('', b));
  return { perSecond: m.rps, done: m.requests, elapsed: m.seconds, othersCpu: m.othersCpu, ...(m.cpuUsPerRequest ? { cpuUsPerRequest: m.cpuUsPerRequest } : {}) };
}

const loadOf = (label: string, r: Rate): LoadResult => ({
  label,
  rps: r.perSecond,
  p50Ms: 0,
  p99Ms: 0,
  requests: r.done,
  seconds: r.elapsed,
  othersCpu: r.othersCpu,
  ...(r.cpuUsPerRequest ? { cpuUsPerRequest: r.cpuUsPerRequest } : {}),
});

/**
 * BENCH_REFUND_FLOW=offer: the refund.do measure's callers each quote (refundQuotation.do) and then submit by
 * the quote's refundOfferId, instead of submitting by refundRequestList; the rate is of these pairs. With
 * `offer-pnr` the submission names the order by PNR and carrier, which takes the reading path (the offer and
 * the order read, as for an offer quoted by another API process). A diagnostic of the by-offer paths
 * (decision 0038), not the row's method: such a run leaves BENCHMARKS.md unchanged.
 */
export function refundFlow(): 'list' | 'offer' | 'offer-pnr' {
  const flow = process.env.BENCH_REFUND_FLOW?.trim() || 'list';
  if (flow !== 'list' && flow !== 'offer' && flow !== 'offer-pnr') throw new Error(`BENCH_REFUND_FLOW must be list, offer or offer-pnr, got ${JSON.stringify(flow)}`);
  return flow;
}

/**
 * Seconds of warm-up before each target's first counted half in the refund.do measure (at least the harness's).
 * V8 settles refund.do's code over its first ~10⁴ submissions: the refund engine's functions (checkRequest,
 * quoteRequest, priceSelection, departureInstant, …) are optimized, deoptimized on an array of a new map and
 * optimized again four or five times each (`node --trace-opt --trace-deopt`). After the harness's 2 s (~2,000
 * submissions) the counted seconds still held ~1.9 s of background compilation per 10 s — the "other threads"
 * column at 200–300 µs per submission, 88–100 after 15 s (BENCHMARKS.md, 2026-11-28): the measure counted the
 * JIT's start, not the service.
 */
const REFUND_WARMUP_SECONDS = 15;

/**
 * Callers of the refund.do row, and of its yardstick (decision 0054): more than one submission statement carries
 * (the group committer's 32), so that while a statement is written the thread has requests to answer and price, as
 * under a deployment's independent arrivals — the service's capacity in committed submissions, not one cycle's time.
 * At the other measures' 10 connections the ten callers wait on one another: each cycle of ten is a context read,
 * pricing, a statement and ten answers in turn, the thread idle ~55 % of it (docs/plans/refund-writes.md); that rate
 * is measured in the same run after the row's and reported beside it.
 */
const REFUND_CALLERS = 40;

export const refundSubmit: Measure = {
  id: 'refund',
  name: 'refund.do committed submissions/s ÷ raw single-row INSERT transactions/s on the same database',
  target: { cmp: '>=', value: 0.5 },
  // 5–8 min from the reference submission to the last answer checked against it, in a slow phase
  sameDayMinutes: 30,
  async run(ctx): Promise<MeasureOutcome> {
    const db = ctx.service.store.db;
    // bench.ts starts postbook as deployed: workers in the API process only on the embedded store.
    const workersInProcess = ctx.storeKind !== 'postgres';
    const demo = demo20(ctx);
    const template = demo.record;
    // Enough for every counted half at the rates seen: running out early fails the measure (below).
    const warmupSeconds = Math.max(ctx.settings.warmupSeconds, REFUND_WARMUP_SECONDS);
    // The warm-up and the row's counted seconds at REFUND_CALLERS, then the lockstep's at 10 callers: PostgreSQL up to
    // ~5,000/s and ~3,500/s (a fast phase on 2026-12-07 used all the orders planted for ~3,600 and ~2,500, a failed
    // measure), PGlite's since decision 0065 (its sweep a quarter of the statements) up to ~2,000 and ~1,500.
    const [rowRate, lockstepRate] = ctx.storeKind === 'postgres' ? [5000, 3500] : [2000, 1500];
    const estimate = Math.max(2000, (ctx.settings.seconds + warmupSeconds) * rowRate + ctx.settings.seconds * lockstepRate);
    // Orders to refund: copies of the walk-through booking (one adult, return, deposit), made in batches.
    const orders: string[] = [];
    const pnrOf = new Map<string, { airlinePNR: string; carrier: string }>();
    const ticketsOf = new Map<string, string[]>();
    // The sandbox airline knows each copy as a booking of its world, so the refund workers running meanwhile
    // take the normal path (accepted, 0 → 1 in batches), not a refusal per refund for an unknown booking.
    const world = ctx.service.world;
    const keys: string[] = [];
    const now = new Date();
    // Ticket numbers: 8, a run tag no stored ticket starts with, the order's number, the ticket's (13 digits).
    // Random ones collided now and then among 5·10⁴ orders (a failed run).
    if (Math.ceil(estimate / 200) * 200 > 1e6) throw new Error(`refund.do measure: ${estimate} orders do not fit 6 digits of ticket numbers`);
    const runTag = await unusedTicketPrefix(db);
    // The store analyzed whenever the planted orders have doubled since 2,000, as a deployment's autovacuum would
    // (this machine's PostgreSQL runs none): after the quote-at-10⁶ measure has emptied and analyzed the order tables
    // (17 orders on one page), the foreign-key checks of every order's rows were planned as sequential scans of
    // tables that then grew to 6·10⁴ orders — 20 orders/s by the end, a full run's refund.do taking ~29 minutes
    // to plant instead of one (BENCHMARKS.md, 2026-11-28 morning). Not timed.
    let analyzeAt = 2_000;
    for (let batch = 0; batch < estimate / 200; batch++) {
      if (batch * 200 >= analyzeAt) {
        await analyzeStore(db, `with ${batch * 200} orders planted`);
        analyzeAt *= 2;
      }
      await db.transaction().execute(async (trx) => {
        for (let i = 0; i < 200; i++) {
          const n = batch * 200 + i;
          // Unique across runs by construction (the PostgreSQL database is reused): the run tag and the order's
          // number together, in base 36 to fit the wire's 8 characters (BENCH_REFUND_FLOW=offer-pnr names it).
          // Random locators (Z and 10 hex digits) collided with an earlier run's on a database reused for a few
          // runs: orders_airline_record, a failed measure.
          const pnr = (Number(runTag) * 1_000_000 + n).toString(36).toUpperCase().padStart(8, '0');
          const record: AirlineRecord = {
            ...template,
            pnr,
            tickets: template.tickets.map((t, k) => ({ ...t, ticketNo: `8${runTag}${String(n).padStart(6, '0')}${k}`, ancillaries: [] })),
            bookedByClient: 'demo-agency',
          };
          const orderNo = newOrderNo();
          await insertOrderFromRecord(trx, { orderNo, clientId: 'demo-agency', source: 'booking', record, now });
          orders.push(orderNo);
          pnrOf.set(orderNo, { airlinePNR: pnr, carrier: record.carrier });
          ticketsOf.set(orderNo, record.tickets.map((t) => t.ticketNo));
          const key = `${record.carrier}/${pnr}`;
          world.bookings.set(key, { ...demo, record });
          keys.push(key);
        }
      });
    }
    // What earlier measures and runs left (dead rows, on a reused database) vacuumed, and the planting's pages written
    // out, before anything is counted: the yardstick's first half ran during that writeback (a run read 1,001
    // INSERT transactions a second, against 3,110 in the run before).
    await settleTables(db, REFUND_TABLES, "refund.do's");
    await sql`create table if not exists bench_insert (id bigint generated always as identity primary key, v text not null)`.execute(db);
    const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
    // Over the service's HTTP port, as its callers reach it (decision 0057): keep-alive connections from undici, one a
    // caller, in the bench's process (a load generator on the second core costs more than the service's whole answer:
    // docs/plans/refund-writes.md, "Over HTTP instead of inject"). Each answer is read whole and checked (submitAnswerCheck).
    const http = new Pool(ctx.baseUrl, { connections: REFUND_CALLERS, pipelining: 1 });
    const post = async (path: string, payload: string) => {
      const res = await http.request({ method: 'POST', path, headers, body: payload });
      const text = await res.body.text();
      return { statusCode: res.statusCode, text };
    };
    let next = 0;
    let failures = 0;
    let firstFailure = '';
    const flow = refundFlow();
    const byOffer = flow !== 'list';
    const submitBody = submitBodies(ctx);
    // Each answer checked against the reference submission's (submitAnswerCheck), made below before any load.
    let answerMatches: ((text: string, orderNo: string, ticketNos: readonly string[]) => boolean) | null = null;
    let quoteMatches: ((text: string, orderNo: string, ticketNos: readonly string[]) => boolean) | null = null;
    const OFFER_ID = /"refundOfferId":"(rfo_[A-Za-z0-9_-]+)"/;
    /** refund.do by the quote's refundOfferId, the order named as the flow names it. */
    const byOfferBody = (orderNo: string, refundOfferId: string | null) =>
      JSON.stringify(flow === 'offer' ? { orderNo, refundOfferId } : { ...pnrOf.get(orderNo), refundOfferId });
    const submit = async () => {
      const orderNo = orders[next++];
      if (!orderNo) return false;
      let payload = submitBody(orderNo);
      if (byOffer) {
        // A caller's usual flow: the quote, then refund.do by its refundOfferId (a failed quote fails the submission).
        const quote = await post('/refundQuotation.do', payload);
        if (quote.statusCode !== 200 || !quoteMatches!(quote.text, orderNo, ticketsOf.get(orderNo)!)) {
          failures++;
          firstFailure ||= `the quote: ${quote.text.slice(0, 200)}`;
        }
        const refundOfferId = OFFER_ID.exec(quote.text)?.[1] ?? null;
        payload = byOfferBody(orderNo, refundOfferId);
      }
      const res = await post('/refund.do', payload);
      if (res.statusCode !== 200 || !answerMatches!(res.text, orderNo, ticketsOf.get(orderNo)!)) {
        failures++;
        firstFailure ||= res.text.slice(0, 200);
      }
      return true;
    };
    try {
      {
        // The reference: one planted order quoted and submitted as the callers do, not counted (no caller takes its
        // order). Its quote is the reference of the by-offer flows' quotes, which differ from it only in their own
        // order, tickets and new refundOfferId.
        const orderNo = orders[next++]!;
        const quote = await post('/refundQuotation.do', submitBody(orderNo));
        const refundOfferId = OFFER_ID.exec(quote.text)?.[1];
        if (quote.statusCode !== 200 || !refundOfferId) throw new LoadFailure(`refund.do: the reference quote answered HTTP ${quote.statusCode}: ${quote.text.slice(0, 200)}`);
        quoteMatches = orderAnswerCheck(quote.text, ['orderNo', 'ticketNo', 'refundOfferId']);
        const payload = byOffer ? byOfferBody(orderNo, refundOfferId) : submitBody(orderNo);
        const answer = await post('/refund.do', payload);
        if (answer.statusCode !== 200) throw new LoadFailure(`refund.do: the reference submission answered HTTP ${answer.statusCode}: ${answer.text.slice(0, 200)}`);
        answerMatches = submitAnswerCheck(quote.text, answer.text, orderNo, ticketsOf.get(orderNo)!);
      }
      const insert = async () => {
        await db.transaction().execute((trx) => sql`insert into bench_insert (v) values (${'x'})`.execute(trx));
        return true;
      };
      const concurrency = REFUND_CALLERS;
      const lockstep = ctx.settings.connections;
      const half = ctx.settings.seconds / 2;
      const profileDir = ctx.settings.profileDir;
      // A B B A at `callers`, half the counted time each (as the HTTP loads, harness.ts loadAbba): the yardstick's
      // halves and refund.do's, each merged. `first`: each target warmed up before its first half (not counted: the
      // first statements parse, plan and JIT), the store analyzed before refund.do's, its first half profiled.
      const abba = async (callers: number, first: boolean) => {
        if (first) await rate(warmupSeconds, callers, insert);
        const base1 = await rate(half, callers, insert);
        if (first) {
          await rate(warmupSeconds, callers, submit);
          // The planted orders and the warm-up's refunds, offers and jobs are in the statistics before the count.
          await analyzeStore(db, 'after the warm-up');
        }
        const measured1 = await (first && profileDir
          ? profiled(path.join(profileDir, 'refund.do.cpuprofile'), () => rate(half, callers, submit))
          : rate(half, callers, submit));
        const measured = mergeRates(measured1, await rate(half, callers, submit));
        return { measured, base: mergeRates(base1, await rate(half, callers, insert)) };
      };
      const { measured, base } = await abba(concurrency, true);
      // The same at the other measures' connections, both targets warm: the lockstep's rate, reported beside.
      const { measured: lockMeasured, base: lockBase } = await abba(lockstep, false);
      if (failures > 0) throw new LoadFailure(`refund.do: ${failures} answers were not the reference's (status 0, the same quote), e.g. ${firstFailure}`);
      if (next >= orders.length) {
        // The last half ran short of orders and ended early: its rate would be of fewer callers than it names.
        throw new LoadFailure(`refund.do: all ${orders.length} prepared orders were used before the last counted half ended; plant more`);
      }
      const where = workersInProcess ? 'in process (refund workers running)' : 'API process with WORKERS=false, as deployed (the workers\' throughput is the backlog row)';
      const lockRatio = (lockMeasured.perSecond / lockBase.perSecond).toFixed(2);
      return {
        value: measured.perSecond / base.perSecond,
        detail:
          `refund.do${byOffer ? ` (each after its quote, by refundOfferId${flow === 'offer-pnr' ? ', the order named by PNR' : ''})` : ''} ${formatRps(measured.perSecond)} commits/s ÷ single-row INSERT ${formatRps(base.perSecond)} tx/s, ${concurrency} callers each (decision 0054), ${where}, ${ctx.settings.seconds} s each in two halves (A B B A) after ${warmupSeconds} s warm-up; ` +
          `at ${lockstep} callers each, the lockstep (after them, A B B A): ${formatRps(lockMeasured.perSecond)} ÷ ${formatRps(lockBase.perSecond)}, ${lockRatio}`,
        loads: [
          loadOf(`single-row INSERT tx, ${concurrency} callers`, base),
          loadOf(`refund.do (HTTP), ${concurrency} callers`, measured),
          loadOf(`single-row INSERT tx, ${lockstep} callers`, lockBase),
          loadOf(`refund.do (HTTP), ${lockstep} callers`, lockMeasured),
        ],
      };
    } finally {
      await http.close();
      // Without workers in this process (PostgreSQL, as deployed), workers of the bench's own take the measure's
      // refunds to the airline, as the deployment's worker processes would, before the cleanup.
      const drainer = workersInProcess
        ? null
        : createRefundWorkers({ store: ctx.service.store, airlines: createAirlines(world, ctx.service.store, ctx.service.clock), clock: ctx.service.clock, logger: pino({ level: 'silent' }), pollSeconds: 3600 });
      await drainer?.start(true);
      await leaveNoWorkBehind(db, orders).finally(() => drainer?.stop());
      for (const key of keys) world.bookings.delete(key);
      await sql`drop table if exists bench_insert`.execute(db);
      await settleTables(db, REFUND_TABLES, "refund.do's");
    }
  },
};

/**
 * Five digits that no stored ticket number has after its leading 8 (the PostgreSQL database is reused across runs);
 * no order of an earlier run has them after its locator's Z either (its tickets were written with it).
 */
async function unusedTicketPrefix(db: Kysely<Database>): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const tag = String(randomInt(10_000, 100_000));
    const taken = await db.selectFrom('tickets').select('ticket_no').where('ticket_no', 'like', `8${tag}%`).limit(1).executeTakeFirst();
    if (!taken) return tag;
  }
  throw new Error('refund.do measure: no unused ticket-number prefix found in 100 tries');
}

/**
 * The measure's refunds would be polled by the service's workers REFUND_POLL_SECONDS later, for as long as the
 * sandbox airline takes to pay them: thousands of polls running during the measures after this one (or during
 * the next run on a reused PostgreSQL database), unseen by the harness's check of other processes' CPU. Once
 * the submissions are through (status 0 drained, at most a minute), their polls are called off (next_poll_at
 * null, as a poll that gave up: decision 0034).
 */
async function leaveNoWorkBehind(db: Kysely<Database>, orders: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from unnest(${orders}::text[]) as o(order_no) join refund_orders r on r.order_no = o.order_no where r.status = 0`.execute(db);
    if ((rows[0]?.n ?? 0) === 0 || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  // The measure's orders as a joined set, not `= any(array)`: as a filter over every stored refund that array
  // was searched once per row (~6·10⁴ orders, a database reused for a few runs: 15 minutes, not finished).
  const removed = await sql`
    update refund_orders r set next_poll_at = null from unnest(${orders}::text[]) as o(order_no)
    where r.order_no = o.order_no and r.status in (1, 3) and r.next_poll_at is not null`.execute(db);
  console.log(`  refund.do: called off the polls of ${String(removed.numAffectedRows ?? 0)} of the measure's refunds (they would run during later measures)`);
}

// ---- backlog ----

/** Columns of a table of the store, in order (the bulk copies below follow whatever the migrations made). */
async function columnsOf(db: Kysely<Database>, table: string): Promise<string[]> {
  const { rows } = await sql<{ column_name: string }>`
    select column_name from information_schema.columns
    where table_schema = current_schema() and table_name = ${table} and is_generated = 'NEVER' and identity_generation is null
    order by ordinal_position`.execute(db);
  return rows.map((r) => r.column_name);
}

/** `insert into table (cols) select <override or t.col> from table t, generate_series(from, to) g where …` */
function copyRows(table: string, cols: string[], overrides: Record<string, RawBuilder<unknown>>, where: RawBuilder<unknown>, from: number, to: number) {
  const exprs = cols.map((c) => overrides[c] ?? sql`t.${sql.id(c)}`);
  return sql`insert into ${sql.table(table)} (${sql.join(cols.map((c) => sql.id(c)))})
    select ${sql.join(exprs)} from ${sql.table(table)} t, generate_series(${from}::int, ${to}::int) g where ${where}`;
}

const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;

/** The backlog measure fails once no refund has reached status 1 for this long (a drain moves hundreds a second). */
const BACKLOG_STALL_MS = 30_000;

export const refundBacklog: Measure = {
  id: 'backlog',
  name: '10⁵ queued refunds to status 1: throughput ÷ the job queue\'s own throughput',
  target: { cmp: '>=', value: 0.7 },
  async run(ctx): Promise<MeasureOutcome> {
    const raw = process.env.BENCH_BACKLOG?.trim();
    const n = raw ? Number(raw) : 100_000;
    if (!Number.isInteger(n) || n < 10 || n > 10_000_000) throw new Error(`BENCH_BACKLOG must be a whole number from 10 to 10⁷, got ${JSON.stringify(raw)}`);
    const { store, world, clock } = ctx.service;
    const db = store.db;
    const booking = demo20(ctx);
    // Unique per run (the PostgreSQL database is reused across runs).
    const tag = String(randomInt(10_000, 100_000));
    // Keys shaped as the service's are (decision 0061): order numbers and refund codes a UTC millisecond and a counter,
    // offer ids the millisecond in hex and then random, so that a batch's rows sit side by side at the end of each
    // index. Copy g is keyed at the measure's start plus g milliseconds, and its keys end with the run's tag, which
    // finds the copies. A PNR is the airline's random one: copy g takes its six hex digits from a bijection of the key
    // space, g + 1 times a stride of ~0.618 of it and prime to it (so that consecutive copies land far apart). Ticket
    // numbers stay in order: an airline issues them so.
    const base = Date.now();
    const STRIDE_24 = 10_368_889; // of 2²⁴ (a PNR's six hex digits; BENCH_BACKLOG stays below 2²⁴)
    const orderNo = (g: number) => `${utcStamp(base + g)}0000001${tag}`;
    const pnr = (g: number) => `${(((g + 1) * STRIDE_24) % 2 ** 24).toString(16).toUpperCase().padStart(6, '0')}${tag}`;
    const ticketNo = (g: number) => `7${tag}${String(g).padStart(7, '0')}`;
    // yyyyMMddHHmmssSSS of copy g's millisecond (UTC), as orderNo's
    const stamp = sql`to_char(timestamp 'epoch' + (${base}::bigint + g) * interval '1 millisecond', 'YYYYMMDDHH24MISSMS')`;
    const sqlOrderNo = sql`${stamp} || '0000001' || ${tag}::text`;
    const sqlPnr = sql`lpad(upper(to_hex(((g::bigint + 1) * ${STRIDE_24}::bigint) % 16777216)), 6, '0') || ${tag}::text`;
    const sqlTicket = sql`${`7${tag}`}::text || lpad(g::text, 7, '0')`;
    // a refund's code: its order's millisecond, another count
    const sqlCode = sql`${stamp} || '0000002' || ${tag}::text`;
    const sqlOffer = sql`'rfo_' || lpad(to_hex(${base}::bigint + g), 11, '0') || md5(${tag}::text || ':' || g)`;

    // The template: one real refund.do of a copy of DEMO20 (g = 0), which the copies repeat with their own numbers.
    const record: AirlineRecord = { ...booking.record, pnr: pnr(0), tickets: booking.record.tickets.map((t) => ({ ...t, ticketNo: ticketNo(0), ancillaries: [] })), bookedByClient: 'demo-agency' };
    await db.transaction().execute((trx) => insertOrderFromRecord(trx, { orderNo: orderNo(0), clientId: 'demo-agency', source: 'booking', record, now: clock.now() }));
    // Quoted first, so that its submission is checked in full against its quote (submitAnswerCheck, as refund.do's
    // reference is): every copy repeats its amounts, rule and dates.
    const templateBody = submitBodies(ctx)(orderNo(0));
    const post = (url: string) => ctx.service.app.inject({ method: 'POST', url, headers: { ...ctx.authHeaders, 'content-type': 'application/json' }, payload: templateBody });
    const quote = await post('/refundQuotation.do');
    const res = await post('/refund.do');
    try {
      submitAnswerCheck(quote.body, res.body, orderNo(0), [ticketNo(0)]);
    } catch (err) {
      throw new LoadFailure(`backlog: the template's ${err instanceof Error ? err.message : String(err)}`);
    }
    const tplCode = res.json<{ refundCode: string }>().refundCode;
    const tplOffer = (await db.selectFrom('refund_orders').select('offer_id').where('refund_code', '=', tplCode).executeTakeFirstOrThrow()).offer_id;
    // The template itself is worked by the service's own workers meanwhile: copies start from status 0 whatever it
    // reached, their submissions due (decision 0035).
    const fresh = {
      status: sql`0`,
      cancel_reason: sql`null`,
      airline_refund_id: sql`null`,
      actual_refund_minor: sql`null`,
      completed_on: sql`null`,
      updated_at: sql`t.created_at`,
      next_poll_at: sql`t.created_at`,
      poll_failures: sql`0`,
      poll_error: sql`null`,
    };
    const swap = (col: string) => sql`replace(replace(t.${sql.id(col)}::text, ${ticketNo(0)}, ${sqlTicket}), ${orderNo(0)}, ${sqlOrderNo})::jsonb`;

    // The sandbox airline knows each copy as a booking of its world (no latency for XS).
    const keys: string[] = [];
    for (let g = 1; g <= n; g++) {
      const key = `XS/${pnr(g)}`;
      world.bookings.set(key, { ...booking, record: { ...record, pnr: pnr(g), tickets: record.tickets.map((t) => ({ ...t, ticketNo: ticketNo(g) })) } });
      keys.push(key);
    }
    // Lifecycle workers of their own (own pg-boss schema, one set per counted half), started once the half's
    // refunds are in place; status 1 is the measured step, so the follow-up polls are put an hour away. The
    // embedded store's process runs the service's own workers, whose sweep would take the same due refunds:
    // paused meanwhile.
    const serviceLifecycle = ctx.storeKind === 'postgres' ? null : ctx.service.workers.lifecycle;
    let toOne = 0;
    let otherwise = 0;
    let waiting: { upTo: number; resolve: () => void } | null = null;
    // Counted from the log calls' own arguments (a hook), not by parsing the lines: each line is still serialized as
    // the service's logging costs, but the harness's JSON.parse of it (~2 µs a refund, more than pino's ~1) is not
    // counted as the drain's work any more. The lines themselves are dropped.
    const countMove = (o: unknown, msg: unknown) => {
      const move = o as { refundCode?: unknown; to?: unknown } | null;
      // the copies only (the template, or a refund an earlier run left due, may move too)
      if (msg !== 'refund status changed' || typeof move?.refundCode !== 'string' || !move.refundCode.endsWith(tag)) return;
      if (move.to === 1) {
        toOne++;
        if (waiting && toOne >= waiting.upTo) waiting.resolve();
      } else otherwise++;
    };
    const logger = pino(
      {
        level: 'info',
        hooks: {
          logMethod(args, method) {
            countMove(args[0], args[1]);
            return method.apply(this, args);
          },
        },
      },
      { write: () => undefined },
    );
    /** Resolves once `upTo` copies in all have reached status 1. */
    const reached = (upTo: number) => (toOne >= upTo ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { upTo, resolve })));
    let workers: RefundWorkers | null = null;
    const stopWorkers = async () => {
      const w = workers;
      workers = null;
      await w?.stop();
    };
    const workerSchemas: string[] = [];
    try {
      await serviceLifecycle?.pauseSweeps();
      const cols = Object.fromEntries(
        await Promise.all(['orders', 'refund_offers', 'refund_orders', 'refund_tickets'].map(async (t) => [t, await columnsOf(db, t)] as const)),
      ) as Record<string, string[]>;
      /** Copies from..to in place: orders, used offers, refunds at status 0 (due), their tickets and history rows. */
      const plant = async (from: number, to: number) => {
        const loadStarted = performance.now();
        const chunk = 5_000;
        for (let first = from; first <= to; first += chunk) {
          const last = Math.min(to, first + chunk - 1);
          // One statement per chunk.
          await sql`
            with o as (${copyRows('orders', cols.orders!, { order_no: sqlOrderNo, airline_pnr: sqlPnr }, sql`t.order_no = ${orderNo(0)}`, first, last)}),
            f as (${copyRows('refund_offers', cols.refund_offers!, { offer_id: sqlOffer, order_no: sqlOrderNo, ticket_nos: sql`array[${sqlTicket}]`, quote: swap('quote'), request: swap('request') }, sql`t.offer_id = ${tplOffer}`, first, last)}),
            r as (${copyRows('refund_orders', cols.refund_orders!, { ...fresh, refund_code: sqlCode, order_no: sqlOrderNo, offer_id: sqlOffer, ticket_nos: sql`array[${sqlTicket}]`, details: swap('details') }, sql`t.refund_code = ${tplCode}`, first, last)}),
            k as (${copyRows('refund_tickets', cols.refund_tickets!, { refund_code: sqlCode, ticket_no: sqlTicket, live: sql`true` }, sql`t.refund_code = ${tplCode}`, first, last)}),
            h as (insert into refund_status_history (refund_code, from_status, to_status, at, cause)
                  select ${sqlCode}, null, 0, now(), 'submitted by the client' from generate_series(${first}::int, ${last}::int) g returning 1)
            select count(*) from h`.execute(db);
        }
        console.log(`  backlog: refunds ${from}–${to} at status 0, their submissions due, loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s`);
        await analyzeStore(db, 'with them in place');
      };

      const profileDir = ctx.settings.profileDir;
      const maybeProfiled = <T>(name: string, work: () => Promise<T>) => (profileDir ? profiled(path.join(profileDir, `${name}.cpuprofile`), work) : work());
      // This process's CPU besides the wall-clock rates: steadier than they are on a busy machine (with PGlite it
      // includes the database's work; with PostgreSQL the server's is elsewhere).
      let noopCpuMs = 0;
      let refundCpuMs = 0;
      /** The queue's own rate: `jobs` no-op jobs, the same queue declaration and worker options. */
      const noopHalf = async (jobs: number, part: string): Promise<Rate> => {
        const cpu0 = process.cpuUsage();
        const meter = startCpuMeter();
        const drained = await maybeProfiled(`backlog.noop_${part}`, () => measureQueueDrain(store, { jobs, ...submitWorker(ctx.storeKind), declaration: REFUND_QUEUES[JOB_SUBMIT] }));
        noopCpuMs += cpuMs(process.cpuUsage(cpu0));
        return { perSecond: drained.perSecond, done: jobs, elapsed: drained.seconds, ...meter(jobs) };
      };
      /** The lifecycle's rate: from the workers' start until `upTo` copies in all are at status 1 and the workers stopped. */
      const refundHalf = async (jobs: number, upTo: number, part: string): Promise<Rate> => {
        const schema = `rb_${randomBytes(4).toString('hex')}`;
        workerSchemas.push(schema);
        // Kept in `workers` too, so that the measure's `finally` stops them when the half fails.
        const own = createRefundWorkers({ store, airlines: createAirlines(world, store, clock), clock, logger, pollSeconds: 3600, schema });
        workers = own;
        await own.start(false);
        const limitMs = Math.max(120_000, (jobs / 10) * 1000);
        let timer: NodeJS.Timeout | undefined;
        const cpu0 = process.cpuUsage();
        const meter = startCpuMeter();
        const t0 = performance.now();
        await maybeProfiled(`backlog_${part}`, async () => {
          await own.lifecycle.startWorkers();
          // Fails at the limit, or as soon as no refund has reached status 1 for BACKLOG_STALL_MS (a drain that stopped:
          // a run whose copies were unusable waited out the whole limit, ten minutes, before it failed).
          let seen = toOne;
          let movedAt = performance.now();
          await Promise.race([
            reached(upTo),
            new Promise((_, reject) => {
              timer = setInterval(() => {
                const now = performance.now();
                if (toOne !== seen) {
                  seen = toOne;
                  movedAt = now;
                }
                const why = now - t0 > limitMs ? `within ${limitMs / 1000} s` : now - movedAt > BACKLOG_STALL_MS ? `and none for ${BACKLOG_STALL_MS / 1000} s` : null;
                if (why) reject(new LoadFailure(`backlog: only ${toOne} of ${upTo} refunds reached status 1 ${why}`));
              }, 1_000);
            }),
          ]);
        }).finally(() => clearInterval(timer));
        await stopWorkers();
        const seconds = (performance.now() - t0) / 1000;
        refundCpuMs += cpuMs(process.cpuUsage(cpu0));
        return { perSecond: jobs / seconds, done: jobs, elapsed: seconds, ...meter(jobs) };
      };

      // A B B A, half the backlog each time (as the HTTP loads, harness.ts loadAbba): a machine that speeds up or
      // slows down during the measure shifts both alike. The second half's refunds are planted after the first
      // half has reached status 1 (not timed), so each half's sweep finds only its own due.
      const first = Math.floor(n / 2);
      const second = n - first;
      await plant(1, first);
      const noop1 = await noopHalf(first, '1_of_2');
      const refunds1 = await refundHalf(first, first, '1_of_2');
      await plant(first + 1, n);
      const refunds2 = await refundHalf(second, n, '2_of_2');
      const noop2 = await noopHalf(second, '2_of_2');
      const noop = mergeRates(noop1, noop2);
      const refunds = mergeRates(refunds1, refunds2);
      const halves = (a: Rate, b: Rate) => `${formatRps(a.perSecond)} and ${formatRps(b.perSecond)}/s`;
      console.log(`  backlog: the halves, no-op jobs ${halves(noop1, noop2)}, refunds ${halves(refunds1, refunds2)}`);
      console.log(`  backlog: this process's CPU ${(refundCpuMs / n).toFixed(2)} ms per refund, ${(noopCpuMs / n).toFixed(2)} ms per no-op job`);
      if (otherwise > 0) throw new LoadFailure(`backlog: ${otherwise} refunds moved elsewhere than to status 1`);
      const shape = SWEEP_SHAPES[ctx.storeKind];
      return {
        value: refunds.perSecond / noop.perSecond,
        detail:
          `${n} refunds to status 1 at ${formatRps(refunds.perSecond)}/s (due in their rows, sent by the lifecycle's sweep, batches of ${shape.page}, up to ${shape.lanes} in flight; decisions 0035, 0063 and 0065) ÷ ` +
          `${n} no-op jobs at ${formatRps(noop.perSecond)}/s (the submission queue's policy, worker batch ${shape.page} in up to ${shape.lanes} lane${shape.lanes === 1 ? '' : 's'}, expiry ${REFUND_JOB_EXPIRE_SECONDS} s), in process${n === 100_000 ? '' : ` (BENCH_BACKLOG=${n})`}, each in two halves (A B B A)`,
        loads: [loadOf('no-op jobs drained', noop), loadOf('refunds to status 1', refunds)],
      };
    } finally {
      await stopWorkers().catch(() => undefined);
      serviceLifecycle?.resumeSweeps();
      // The copies' polls (an hour away) called off: the service's own poll sweep would look at them in a later run.
      await sql`update refund_orders r set next_poll_at = null from generate_series(1, ${n}::int) g where r.refund_code = ${sqlCode}`.execute(db);
      for (const key of keys) world.bookings.delete(key);
      for (const schema of workerSchemas) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
      await settleTables(db, REFUND_TABLES, 'backlog\'s');
    }
  },
};
