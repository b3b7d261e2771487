// seatAvailability.do for a wide-body aircraft (XS901, 777 with 352 seats in two cabins) ÷ a bare route
// returning the same JSON (docs/architecture.md "Performance targets": ≥ 0.6 with the same session repeated, ≥ 0.4 with a fresh session
// per request: seat maps are cached as bytes, invalidated on every sale; verify.do is not counted).
import { formatRps, gzipAnswer, gzipRatioToBareRoute, ratioToBareRoute, referenceAnswer, type BenchContext, type Measure } from './measures.js';
import { sessionBinding } from '../src/booking/seat-product-code.js';
import { load, LoadFailure } from './harness.js';
import { startServerProcess } from './server-process.js';

/** More sessions than the answer cache keeps whole answers for: every request joins its bytes anew. */
const FRESH_SESSIONS = 3_000;

async function seatRequest(ctx: BenchContext) {
  const flight = ctx.service.world.flights.get('XS901-wide')!;
  const depTime = flight.current.dep.toFormat('yyyyMMddHHmm');
  const headers = { ...ctx.authHeaders, 'content-type': 'application/json' };
  const newSession = async () => {
    const send = () => fetch(`${ctx.baseUrl}/verify.do`, { method: 'POST', headers, body: JSON.stringify({ outboundSegments: [{ carrier: 'XS', flightNumber: '901', departureAirport: flight.from, arrivalAirport: flight.to, departureDate: depTime.slice(0, 8) }] }) });
    // one retry on a fresh connection: a kept-alive one may have been closed during a long measure before
    const verify = await send().catch(() => send());
    const session = (await verify.json()) as { status: number; sessionId?: string; msg?: string };
    if (session.status !== 0 || !session.sessionId) throw new Error(`verify.do for XS901 answered ${session.status}: ${session.msg}`);
    return session.sessionId;
  };
  const bodyOf = (sessionId: string) =>
    JSON.stringify({
      sessionId,
      carrier: 'XS',
      outboundSegments: [{ segmentIndex: 1, flightNumber: 'XS901', depAirport: flight.from, arrAirport: flight.to, depTime, cabinClass: 1 }],
    });
  return { headers, newSession, bodyOf };
}

export const seatAvailability: Measure = {
  id: 'seatAvailability',
  name: 'seatAvailability.do, 300+-seat wide-body map, rps ÷ bare route returning the same JSON',
  target: { cmp: '>=', value: 0.6 },
  async run(ctx) {
    const { headers, newSession, bodyOf } = await seatRequest(ctx);
    const body = bodyOf(await newSession());
    return ratioToBareRoute(ctx, { label: 'seatAvailability.do', url: `${ctx.baseUrl}/seatAvailability.do`, method: 'POST', headers, body }, '/seatAvailability.do');
  },
};

export const seatAvailabilityFresh: Measure = {
  id: 'seatAvailabilityFresh',
  name: 'seatAvailability.do, the same map with a fresh session per request (verify not counted) ÷ bare route',
  target: { cmp: '>=', value: 0.4 },
  async run(ctx) {
    const { sessions, bodies, subject } = await freshSubject(ctx, 'seatAvailability.do (fresh sessions)');
    // Every answer is the reference but for its productCodes' session binding (10 characters each): its own
    // request's session's, the one order.do recomputes.
    return ratioToBareRoute(ctx, subject, '/seatAvailability.do', (answer) => ({
      ...subject,
      cycle: { bodies, ids: sessions.map((s) => sessionBinding(s, 1)), reference: answer, varying: bindingOffsets(answer), varyingLength: 10 },
    }));
  },
};

export const seatAvailabilityGzip: Measure = {
  id: 'seatAvailabilityGzip',
  name: 'seatAvailability.do with Accept-Encoding: gzip, as callers send it, same session, rps ÷ bare route sending the same gzip bytes',
  target: { cmp: '>=', value: 0.6 },
  async run(ctx) {
    const { headers, newSession, bodyOf } = await seatRequest(ctx);
    const body = bodyOf(await newSession());
    return gzipRatioToBareRoute(ctx, { label: 'seatAvailability.do (gzip)', url: `${ctx.baseUrl}/seatAvailability.do`, method: 'POST', headers, body }, '/seatAvailability.do');
  },
};

export const seatAvailabilityFreshGzip: Measure = {
  id: 'seatAvailabilityFreshGzip',
  name: 'seatAvailability.do with Accept-Encoding: gzip and a fresh session per request (verify not counted) ÷ bare route sending gzip bytes',
  target: { cmp: '>=', value: 0.4 },
  async run(ctx) {
    const { sessions, bodies, subject } = await freshSubject(ctx, 'seatAvailability.do (gzip, fresh sessions)');
    // Each session's gzip answer fetched once and checked: the reference's map with that session's own binding
    // (the one order.do recomputes) in every productCode. Under load each answer must be its request's.
    return gzipRatioToBareRoute(ctx, subject, '/seatAvailability.do', async (reference) => {
      const referenceBinding = sessionBinding(sessions[0]!, 1);
      if (bindingOffsets(reference.text).length === 0 || reference.text.replaceAll(referenceBinding, '') === reference.text) {
        throw new LoadFailure(`${subject.label}: the reference answer does not carry its session's binding`);
      }
      const answers: Buffer[] = [];
      for (let i = 0; i < bodies.length; i += 20) {
        answers.push(
          ...(await Promise.all(
            bodies.slice(i, i + 20).map(async (body, j) => {
              const { zipped, text } = await gzipAnswer({ ...subject, body });
              if (text !== reference.text.replaceAll(referenceBinding, sessionBinding(sessions[i + j]!, 1))) {
                throw new LoadFailure(`${subject.label}: a session's answer is not the reference's map with that session's binding`);
              }
              return zipped;
            }),
          )),
        );
      }
      return { bodies, answers };
    });
  },
};

/** FRESH_SESSIONS new sessions (verify.do, 20 at a time), a seat map request's body for each, and the subject (the first body). */
async function freshSubject(ctx: BenchContext, label: string) {
  const { headers, newSession, bodyOf } = await seatRequest(ctx);
  const sessions: string[] = [];
  for (let i = 0; i < FRESH_SESSIONS; i += 20) sessions.push(...(await Promise.all(Array.from({ length: 20 }, () => newSession()))));
  const bodies = sessions.map(bodyOf);
  return { sessions, bodies, subject: { label, url: `${ctx.baseUrl}/seatAvailability.do`, method: 'POST' as const, headers, body: bodies[0]! } };
}

/** Where the session binding of each productCode (`SCI_SEAT_12A_XS_CDG_JFK_P0_<binding>`) sits in an answer. */
function bindingOffsets(answer: string): number[] {
  return [...answer.matchAll(/"productCode":"SCI_SEAT_[0-9A-Z]+_[A-Z0-9]{2}_[A-Z]{3}_[A-Z]{3}_P\d+_([A-Za-z0-9]{10})"/g)].map((m) => m.index + m[0].length - 11);
}

const MB = 1024 * 1024;

/**
 * V8's old space in use (bytes), from the service's /metrics, garbage not yet collected included: it tells which
 * garbage-collector mode a run's peak came from (BENCHMARKS.md, "2026-11-28, evening session"; the promoting one
 * is gone since decision 0037, and a figure near 150 MB would say it is back).
 */
async function oldSpaceInUse(baseUrl: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = /^nodejs_heap_space_size_used_bytes\{space="old"\} (\d+)/m.exec(text);
  if (!line) throw new Error('seat memory: /metrics has no old-space figure');
  return Number(line[1]);
}

export const seatMemory: Measure = {
  id: 'seatMemory',
  name: 'API process resident memory (MB) under the seat-map load',
  // docs/architecture.md "Performance targets": the memory target is PostgreSQL mode's; the embedded store's WASM heap is
  // the process's own there (BENCHMARKS.md gives its figure)
  target: { cmp: '<=', value: 250, store: 'postgres' },
  async run(ctx) {
    // postbook as deployed, in its own process: this process's memory would include the load generator's.
    const server = await startServerProcess(ctx);
    try {
      const own = { ...ctx, baseUrl: server.baseUrl };
      const { headers, newSession, bodyOf } = await seatRequest(own);
      const subject = { label: 'seatAvailability.do (memory, own process)', url: `${server.baseUrl}/seatAvailability.do`, method: 'POST' as const, headers, body: bodyOf(await newSession()) };
      const answer = await referenceAnswer(subject);
      const idle = server.rssBytes();
      let peak = idle;
      const sampler = setInterval(() => {
        peak = Math.max(peak, server.rssBytes());
      }, 100);
      const loaded = await load(ctx.settings, { ...subject, expectBody: answer, serverPid: server.pid }).finally(() => clearInterval(sampler));
      peak = Math.max(peak, server.rssBytes());
      const oldSpace = await oldSpaceInUse(server.baseUrl);
      return {
        value: peak / MB,
        detail:
          `peak RSS ${(peak / MB).toFixed(0)} MB of \`node dist/server.js\` (a process of its own${ctx.storeKind === 'postgres' ? ', WORKERS=false as deployed' : ', the workers in it'}) during ${ctx.settings.warmupSeconds} + ${ctx.settings.seconds} s of ` +
          `seatAvailability.do at ${formatRps(loaded.rps)} req/s; ${(idle / MB).toFixed(0)} MB after start-up and one seat map, before the load; ` +
          `V8's old space ${(oldSpace / MB).toFixed(0)} MB in use at the end of the load (garbage included)`,
        loads: [loaded],
      };
    } finally {
      await server.stop();
    }
  },
};
