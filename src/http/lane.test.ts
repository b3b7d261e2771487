// The answer lane (decision 0050): served seat maps and kept extracts answered before Fastify's request cycle must be
// the route's answers — the same bytes and headers, counted once in the rate pool and look-to-book, in the metrics —
// and every other request it reads must reach the route as it was sent, with the work the lane did for it (the
// airline asked once). Over real sockets: app.inject never meets the lane.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import { authHeaders, call, makeTestApp, openTestStore, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import { systemClock } from '../clock.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { sql } from 'kysely';
import { contact, passenger, seatOf, seatSegments, verifyFlights } from '../test-support/booking.js';
import { PLANTED } from '../test-support/planted.js';
import { createRatePools, DEFAULT_POOL_LIMITS } from '../ratelimit/pools.js';
import { createLookToBook } from '../ratelimit/look-to-book.js';
import type { LookToBook } from '../booking/look-to-book.js';
import { seatPlanStats } from '../booking/seat-availability.js';
import { buildWorld } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import type { AnswerLane } from './lane.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { ConnectorError, type AirlineRecord, type CallOptions } from '../airline/connector.js';

const [lastA, firstA] = PLANTED.names;
const [emailA] = PLANTED.emails;
/** How long the test airline takes to answer SLOW01. */
const SLOW_MS = 300;
/** Headers that differ between any two answers. */
const PER_ANSWER = new Set(['date', 'x-ratelimit-remaining']);

interface Answer {
  http: number;
  /** Header names and values as sent, in their order. */
  headers: Array<[string, string]>;
  body: Buffer;
}

function post(port: number, path: string, body: string | Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        resolve({ http: res.statusCode!, headers: pairs, body: Buffer.concat(chunks) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const header = (a: Answer, name: string) => a.headers.find(([n]) => n === name)?.[1];
/** The body as JSON text, whatever its coding. */
const decoded = (a: Answer) => {
  const coding = header(a, 'content-encoding');
  return (coding === 'gzip' ? gunzipSync(a.body) : coding === 'deflate' ? inflateSync(a.body) : a.body).toString('utf8');
};
const stable = (a: Answer) => a.headers.filter(([n]) => !PER_ANSWER.has(n));

describe('the answer lane: seat maps', () => {
  let t: TestApp;
  let port: number;
  let lane: AnswerLane;
  let recorded = 0;
  const limit = 6;
  let store: Store;
  before(async () => {
    store = await openTestStore();
    const counter = createLookToBook({ db: store.db, clock: systemClock });
    const lookToBook: LookToBook = {
      check: (id, settings) => counter.check(id, settings),
      recordSeatRequest: async (id) => {
        recorded++;
        await counter.recordSeatRequest(id);
      },
      recordPaidOrder: (id) => counter.recordPaidOrder(id),
    };
    t = await makeTestApp({ store, world: bookingWorld(), pools: createRatePools({ redis: null, defaults: { ...DEFAULT_POOL_LIMITS, ancillaryPerMinute: 1_000 } }), lookToBook });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    lane = t.app.answerLane!;
    assert.ok(lane, 'built with the lane');
  });
  after(async () => {
    await t.close();
    await store.close();
  });

  const seatBody = async (flight = 'bk-wide', client: { id: string; secret: string } = TEST_CLIENTS.alpha) => {
    const s = await verifyFlights(t, [flight], [], { adults: 1 }, client);
    return JSON.stringify({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, [flight]) });
  };
  /** Through the lane when it can; `?route` is Fastify's alone (the lane takes the bare path only). */
  const seats = (body: string, extra: Record<string, string> = {}, viaRoute = false, client: { id: string; secret: string } = TEST_CLIENTS.alpha) =>
    post(port, viaRoute ? '/seatAvailability.do?route' : '/seatAvailability.do', body, { ...authHeaders(client), ...extra });

  for (const gzip of [false, true]) {
    test(`a served map${gzip ? ' (gzip)' : ''} is the route's answer: its bytes, its headers in its order, its request id`, async () => {
      const body = await seatBody();
      const asked = { 'x-request-id': 'lane-test-1', ...(gzip ? { 'accept-encoding': 'gzip' } : {}) };
      const byRoute = await seats(body, asked, true);
      assert.equal(byRoute.http, 200);
      const before = { ...lane.stats };
      const byLane = await seats(body, asked);
      assert.equal(lane.stats.answered, before.answered + 1, 'the lane answered');
      assert.deepEqual(byLane.body, byRoute.body);
      assert.deepEqual(stable(byLane), stable(byRoute));
      assert.equal(header(byLane, 'x-request-id'), 'lane-test-1');
      assert.equal(Number(header(byLane, 'x-ratelimit-remaining')), Number(header(byRoute, 'x-ratelimit-remaining')) - 1, 'counted once');
      assert.equal(header(byLane, 'content-encoding'), gzip ? 'gzip' : undefined);
      const json = JSON.parse((gzip ? gunzipSync(byLane.body) : byLane.body).toString('utf8')) as { status: number };
      assert.equal(json.status, 0);
      // a request id of the lane's own when the caller sends none (or one no log line can hold)
      const own = await seats(body, { 'x-request-id': 'bad id with spaces' });
      assert.match(header(own, 'x-request-id')!, /^[0-9a-f-]{36}$/);
    });
  }

  test('a sale between two requests: the next served map shows the seat occupied', async () => {
    const body = await seatBody('bk-narrow');
    await seats(body);
    const first = await seats(body);
    const served = lane.stats.answered;
    const free = JSON.parse(first.body.toString('utf8')) as { cabins: never };
    assert.equal(seatOf(free.cabins, 1, '16C').seatStatus, 'F');
    const buyer = await verifyFlights(t, ['bk-narrow']);
    const map = await call(t.app, '/seatAvailability.do', { sessionId: buyer.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    const order = await call(t.app, '/order.do', { sessionId: buyer.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seatOf(map.body.cabins as never, 1, '16C').productCode, segmentIndex: 1 }])], contact });
    assert.equal(order.body.status, 0, String(order.body.msg));
    const next = await seats(body);
    assert.equal(lane.stats.answered, served + 1, 'answered by the lane');
    assert.equal(seatOf((JSON.parse(next.body.toString('utf8')) as { cabins: never }).cabins, 1, '16C').seatStatus, 'O');
  });

  test('a request the lane kept is checked against its session once: asked again, the checked plan (a sale still seen), per session', async () => {
    const body = await seatBody('bk-narrow');
    // the lane serves once the route has answered (its serializer kept), whichever tests ran before this one
    await seats(body, {}, true);
    const first = await seats(body);
    const checked = seatPlanStats.checked;
    // the second request of the text is the lane's kept object: checked once more, then never again
    const second = await seats(body);
    assert.equal(seatPlanStats.checked, checked + 1);
    const third = await seats(body);
    assert.equal(seatPlanStats.checked, checked + 1, 'the third request of the text: its plan');
    assert.deepEqual(third.body, second.body);
    assert.deepEqual(second.body, first.body);
    // the same flights in another session: a plan of its own, with that session's productCodes
    const other = await seatBody('bk-narrow');
    await seats(other);
    const otherAnswer = await seats(other);
    assert.equal(seatPlanStats.checked, checked + 3);
    assert.notDeepEqual(otherAnswer.body, third.body);
    // a world reload: the kept plan's flight is looked up in the reloaded world (its seat 22F now occupied)
    assert.equal(seatOf((JSON.parse(third.body.toString('utf8')) as { cabins: never }).cabins, 1, '22F').seatStatus, 'F');
    const raw = structuredClone<WorldFile>(t.world.raw);
    const f = raw.flights.find((x) => x.id === 'bk-narrow')!;
    f.occupiedSeats = [...(f.occupiedSeats ?? []), '22F'];
    // resolved at the world's own time: a reload past midnight would move every flight a day, and the kept session's
    // flights with them (a run of the suite with the clock faked to 23:57 UTC met it)
    Object.assign(t.world, buildWorld(raw, t.world.resolvedAt, 'reloaded'));
    const served = lane.stats.answered;
    const reloaded = await seats(body);
    assert.equal(lane.stats.answered, served + 1, 'answered by the lane');
    assert.equal(seatOf((JSON.parse(reloaded.body.toString('utf8')) as { cabins: never }).cabins, 1, '22F').seatStatus, 'O');
    // a refusal is not kept: the same wrong text refused each time by the checks
    const wrong = JSON.stringify({ ...(JSON.parse(body) as object), carrier: 'ZZ' });
    for (let i = 0; i < 3; i++) assert.equal((JSON.parse((await seats(wrong)).body.toString('utf8')) as { status: number }).status, 220);
  });

  test('a flight-only request the lane kept (spec 1 seat rule 5) is matched to the kept session: its plan checked once, a newer session matched anew', async () => {
    const beta = TEST_CLIENTS.beta;
    const { sessionId, ...flightOnly } = JSON.parse(await seatBody('bk-wide', beta)) as { sessionId: string };
    const body = JSON.stringify(flightOnly);
    // by its sessionId through the route first: the lane serves once the route has answered, whatever ran before
    const byId = await seats(JSON.stringify({ sessionId, ...flightOnly }), {}, true, beta);
    const first = await seats(body, {}, false, beta);
    assert.equal((JSON.parse(first.body.toString('utf8')) as { status: number }).status, 0);
    assert.deepEqual(first.body, byId.body, 'the session the caller verified: its productCodes');
    const checked = seatPlanStats.checked;
    // the second request of the text is the lane's kept object: checked once more, then never again while the
    // store's match is the same session
    const second = await seats(body, {}, false, beta);
    assert.equal(seatPlanStats.checked, checked + 1);
    const third = await seats(body, {}, false, beta);
    assert.equal(seatPlanStats.checked, checked + 1, 'the third request of the text: its plan, the session matched from the store');
    assert.deepEqual(third.body, second.body);
    // a newer verify session on the flights, alike (spec 1 seat rule 5: the newest is the match): its own plan and productCodes
    await seatBody('bk-wide', beta);
    const fourth = await seats(body, {}, false, beta);
    assert.equal(seatPlanStats.checked, checked + 2);
    assert.notDeepEqual(fourth.body, third.body);
  });

  test('every request it cannot serve reaches the route as sent: the route\'s own answers', async () => {
    const body = await seatBody();
    await seats(body);
    const parsed = JSON.parse(body) as Record<string, unknown>;
    const cases: Array<[string, string, Record<string, string>]> = [
      ['unknown session (214)', JSON.stringify({ ...parsed, sessionId: 'ses_nope' }), {}],
      ['another carrier (220)', JSON.stringify({ ...parsed, carrier: 'ZZ' }), {}],
      ['not JSON (400)', '{"sessionId": ', {}],
      ['a schema failure (220)', JSON.stringify({ ...parsed, outboundSegments: 'none' }), {}],
      ['a poisoned key (400)', body.replace('{', '{"__proto__":{"x":1},'), {}],
      ['a wrong secret (401)', body, { 'x-service-client-secret': 'wrong-secret' }],
      ['no credentials (401)', body, { 'x-service-client-id': '' }],
    ];
    for (const [label, text, extra] of cases) {
      const before = { ...lane.stats };
      const got = await seats(text, extra);
      const want = await seats(text, extra, true);
      assert.equal(lane.stats.answered, before.answered, `${label}: not answered by the lane`);
      assert.equal(got.http, want.http, label);
      const a = JSON.parse(got.body.toString('utf8')) as { status: number };
      assert.deepEqual(a, JSON.parse(want.body.toString('utf8')), label);
      assert.notEqual(a.status, 0, label);
    }
  });

  test('a caller that accepts a coding but not gzip (deflate, x-gzip, identity, br) gets the route\'s answer in it', async () => {
    const body = await seatBody();
    await seats(body);
    for (const coding of ['deflate', 'x-gzip', 'identity', 'br', 'gzip;q=0, deflate']) {
      const before = lane.stats.answered;
      const got = await seats(body, { 'accept-encoding': coding });
      const want = await seats(body, { 'accept-encoding': coding }, true);
      assert.equal(lane.stats.answered, before, `${coding}: not answered by the lane`);
      assert.equal(got.http, 200, coding);
      assert.equal(header(got, 'content-encoding'), header(want, 'content-encoding'), coding);
      assert.deepEqual(decoded(got), decoded(want), coding);
    }
  });

  test('the rate pool and look-to-book count each served map once; past the limit the route answers 429', async () => {
    const small = await makeTestApp({ world: bookingWorld(), pools: createRatePools({ redis: null, defaults: { ...DEFAULT_POOL_LIMITS, ancillaryPerMinute: limit } }) });
    try {
      await small.app.listen({ port: 0, host: '127.0.0.1' });
      const p = (small.app.server.address() as AddressInfo).port;
      const s = await verifyFlights(small, ['bk-wide']);
      const body = JSON.stringify({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(small, ['bk-wide']) });
      const remaining: Array<string | undefined> = [];
      const statuses: number[] = [];
      for (let i = 0; i < limit + 1; i++) {
        const a = await post(p, '/seatAvailability.do', body, authHeaders());
        remaining.push(header(a, 'x-ratelimit-remaining'));
        statuses.push(a.http);
      }
      assert.deepEqual(statuses, [...Array<number>(limit).fill(200), 429]);
      assert.deepEqual(remaining, [...Array.from({ length: limit }, (_, i) => String(limit - 1 - i)), '0']);
      assert.ok(small.app.answerLane!.stats.answered >= limit - 1, 'served by the lane after the first');
      const usage = await small.app.deps.pools.usage(TEST_CLIENTS.alpha.id, undefined);
      assert.equal(usage.find((u) => u.pool === 'ancillary')!.used, limit, 'each counted once');
    } finally {
      await small.close();
    }
    // look-to-book: one seat request recorded per served map
    const body = await seatBody();
    await seats(body);
    const [answered, was] = [lane.stats.answered, recorded];
    await seats(body);
    await seats(body);
    assert.equal(lane.stats.answered, answered + 2);
    assert.equal(recorded, was + 2);
  });

  test('its answers are in the metrics as the route\'s', async () => {
    const body = await seatBody();
    await seats(body);
    const count = async () => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith('postbook_requests_total{') && l.includes('route="/seatAvailability.do"') && l.includes('http_status="200"') && l.includes('body_status="0"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const was = await count();
    const answered = lane.stats.answered;
    await seats(body);
    assert.equal(lane.stats.answered, answered + 1);
    assert.equal(await count(), was + 1);
  });
});

describe('the answer lane: extractPnr.do', () => {
  let t: TestApp;
  let port: number;
  let lane: AnswerLane;
  /** The airline's record reads, by PNR. */
  const reads = new Map<string, number>();
  class Counting extends SandboxConnector {
    override readRecord(carrier: string, pnr: string, opts: CallOptions): Promise<AirlineRecord | null> {
      reads.set(pnr, (reads.get(pnr) ?? 0) + 1);
      if (pnr === 'DOWN01') return Promise.reject(new ConnectorError('rejected', false, 'the airline will not show this record'));
      // an airline that takes its time to say a record does not exist
      if (pnr === 'SLOW01') return new Promise((resolve) => setTimeout(() => resolve(null), SLOW_MS));
      return super.readRecord(carrier, pnr, opts);
    }
  }
  before(async () => {
    t = await makeTestApp({ connectors: (world, books) => [new Counting(world, books)] });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    lane = t.app.answerLane!;
    // the credential verified (the lane takes only a credential this process has verified)
    await extract(extractBody({ airlinePnr: 'NOPE11' }), {}, true);
  });
  after(() => t.close());

  const extractBody = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      airlinePnr: 'TST001',
      carrier: 'XS',
      passengers: [{ firstName: firstA, lastName: lastA, passengerType: null }],
      contact: { email: emailA },
      routing: { fromSegments: [], retSegments: null },
      requestId: 'r-1',
      ...over,
    });
  const extract = (body: string, extra: Record<string, string> = {}, viaRoute = false) =>
    post(port, viaRoute ? '/extractPnr.do?route' : '/extractPnr.do', body, { ...authHeaders(), ...extra });

  test('a record version\'s first extract is the route\'s to write, with the lane\'s answer: the airline read once', async () => {
    const body = extractBody({ airlinePnr: 'USED01' });
    const before = { ...lane.stats };
    const first = await extract(body);
    assert.equal(first.http, 200);
    assert.equal((JSON.parse(first.body.toString('utf8')) as { status: number }).status, 0, first.body.toString('utf8'));
    assert.deepEqual(lane.stats, { answered: before.answered, handedOver: before.handedOver + 1 }, 'handed over: no kept bytes yet');
    assert.equal(reads.get('USED01'), 1, 'the route answered from the lane\'s read');
    const second = await extract(body);
    assert.equal(lane.stats.answered, before.answered + 1, 'kept since: the lane answers');
    assert.equal(reads.get('USED01'), 2);
    assert.deepEqual(second.body, first.body);
  });

  for (const gzip of [false, true]) {
    test(`a kept extract${gzip ? ' (gzip)' : ''} is the route's answer: its bytes, its headers in its order, counted once`, async () => {
      const body = extractBody();
      const asked = { 'x-request-id': 'lane-extract-1', ...(gzip ? { 'accept-encoding': 'gzip' } : {}) };
      const byRoute = await extract(body, asked, true);
      assert.equal(byRoute.http, 200);
      const before = lane.stats.answered;
      const byLane = await extract(body, asked);
      assert.equal(lane.stats.answered, before + 1, 'the lane answered');
      assert.deepEqual(byLane.body, byRoute.body);
      assert.deepEqual(stable(byLane), stable(byRoute));
      assert.equal(header(byLane, 'content-encoding'), gzip ? 'gzip' : undefined);
      assert.equal(Number(header(byLane, 'x-ratelimit-remaining')), Number(header(byRoute, 'x-ratelimit-remaining')) - 1, 'counted once');
      assert.equal((JSON.parse(decoded(byLane)) as { status: number }).status, 0);
    });
  }

  test('a refusal the lane met (a wrong name, an unknown PNR, an airline failure) is answered by the route from it', async () => {
    await extract(extractBody());
    const cases: Array<[string, string]> = [
      ['a wrong name', extractBody({ passengers: [{ firstName: firstA, lastName: 'Nobody', passengerType: null }] })],
      ['an unknown PNR', extractBody({ airlinePnr: 'NOPE77' })],
      ['an airline failure', extractBody({ airlinePnr: 'DOWN01' })],
      ['a schema failure', extractBody({ carrier: 7 })],
    ];
    for (const [label, text] of cases) {
      const pnr = (JSON.parse(text) as { airlinePnr: string }).airlinePnr;
      const before = { ...lane.stats };
      const readsBefore = reads.get(pnr) ?? 0;
      const got = await extract(text);
      assert.equal(lane.stats.answered, before.answered, `${label}: not answered by the lane`);
      const readByLane = (reads.get(pnr) ?? 0) - readsBefore;
      const want = await extract(text, {}, true);
      assert.equal(got.http, want.http, label);
      assert.deepEqual(JSON.parse(got.body.toString('utf8')), JSON.parse(want.body.toString('utf8')), label);
      assert.notEqual((JSON.parse(got.body.toString('utf8')) as { status: number }).status, 0, label);
      // one airline read a request, whoever answered it (none for a body the schema refuses)
      assert.equal(readByLane, (reads.get(pnr) ?? 0) - readsBefore - readByLane, `${label}: the airline read once`);
      assert.ok(readByLane <= 1, label);
    }
    // a text is kept (not parsed again) once the lane has answered it: never a probe's wrong name
    const kept = (lane as unknown as { lanes: Map<string, { requests: Map<string, unknown> }> }).lanes.get('/extractPnr.do')!.requests;
    assert.ok(kept.has(extractBody()), 'an answered extract\'s text');
    for (const [label, text] of cases) assert.ok(!kept.has(text), `${label}: not kept`);
  });

  test('a request handed over is timed from its arrival: the lane\'s wait for the airline is in the route\'s metrics', async () => {
    const sum = async () => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line = text.split('\n').find((l) => l.startsWith('postbook_http_request_duration_seconds_sum{') && l.includes('route="/extractPnr.do"'));
      return Number(line?.split(' ').pop() ?? 0);
    };
    const was = await sum();
    const handed = lane.stats.handedOver;
    const slow = await extract(extractBody({ airlinePnr: 'SLOW01' }));
    assert.equal(lane.stats.handedOver, handed + 1, 'not found: handed over after the lane\'s read');
    assert.equal(reads.get('SLOW01'), 1, 'the airline read once');
    assert.notEqual((JSON.parse(slow.body.toString('utf8')) as { status: number }).status, 0);
    assert.ok((await sum()) - was >= (SLOW_MS - 20) / 1000, 'the airline\'s time counted');
  });

  test('over the PNR pool\'s limit no airline record is read: the route answers 429 (decision 0026)', async () => {
    const small = await makeTestApp({ connectors: (world, books) => [new Counting(world, books)], pools: createRatePools({ redis: null, defaults: { ...DEFAULT_POOL_LIMITS, pnrPerMinute: 2 } }) });
    try {
      await small.app.listen({ port: 0, host: '127.0.0.1' });
      const p = (small.app.server.address() as AddressInfo).port;
      await post(p, '/extractPnr.do?route', extractBody({ airlinePnr: 'PROBE0' }), authHeaders()); // verifies the credential
      const was = reads.get('PROBE1') ?? 0;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await post(p, '/extractPnr.do', extractBody({ airlinePnr: 'PROBE1' }), authHeaders())).http);
      assert.deepEqual(statuses, [200, 429, 429]);
      assert.equal((reads.get('PROBE1') ?? 0) - was, 1, 'read for the counted request only');
      assert.ok(small.app.answerLane!.stats.handedOver >= 3);
    } finally {
      await small.close();
    }
  });

  test('a request the lane took before the service began to shut down is served by the route, not shed', async () => {
    const closing = await makeTestApp({ connectors: (world, books) => [new Counting(world, books)] });
    let closed = false;
    try {
      await closing.app.listen({ port: 0, host: '127.0.0.1' });
      const p = (closing.app.server.address() as AddressInfo).port;
      await post(p, '/extractPnr.do?route', extractBody({ airlinePnr: 'NOPE12' }), authHeaders());
      const handed = closing.app.answerLane!.stats.handedOver;
      const pending = post(p, '/extractPnr.do', extractBody({ airlinePnr: 'SLOW01' }), { ...authHeaders(), connection: 'close' });
      await new Promise((resolve) => setTimeout(resolve, SLOW_MS / 3));
      const closed$ = closing.close().then(() => (closed = true));
      const answer = await pending;
      assert.equal(closing.app.answerLane!.stats.handedOver, handed + 1);
      assert.equal(answer.http, 200, 'answered by the route, not 503');
      assert.equal((JSON.parse(answer.body.toString('utf8')) as { status: number }).status, 99005);
      await closed$;
    } finally {
      if (!closed) await closing.close();
    }
  });
});

describe('the answer lane: refundQuotation.do', () => {
  let t: TestApp;
  let port: number;
  let lane: AnswerLane;
  let orderNo: string;
  const [lastQ, firstQ, lastR, firstR] = PLANTED.names;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
    lane = t.app.answerLane!;
    orderNo = await orderNoOfPnr(t.store.db, 'DEP001');
  });
  after(() => t.close());

  const quoteBody = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ orderNo, refundRequestList: [{ lastName: lastQ, firstName: firstQ, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }], ...over });
  const quote = (body: string, extra: Record<string, string> = {}, viaRoute = false) =>
    post(port, viaRoute ? '/refundQuotation.do?route' : '/refundQuotation.do', body, { ...authHeaders(), ...extra });
  const offers = async () => Number((await sql<{ n: string }>`select count(*) as n from refund_offers`.execute(t.store.db)).rows[0]!.n);
  const json = (a: Answer) => JSON.parse(decoded(a)) as { status: number; msg: string; refundOfferId?: string };
  /** The answer but for its refundOfferId (each quote records an offer of its own). */
  const sameBut = (a: Answer) => ({ ...json(a), refundOfferId: typeof json(a).refundOfferId });

  test('a quote is the route\'s answer, its offer recorded once: the same fields and headers, an offer refund.do takes', async () => {
    const body = quoteBody();
    const byRoute = await quote(body, { 'x-request-id': 'lane-quote-1' }, true);
    assert.equal(json(byRoute).status, 0, json(byRoute).msg);
    const [before, offersBefore] = [lane.stats.answered, await offers()];
    const byLane = await quote(body, { 'x-request-id': 'lane-quote-1' });
    assert.equal(lane.stats.answered, before + 1, 'the lane answered');
    assert.equal(await offers(), offersBefore + 1, 'one offer recorded');
    assert.deepEqual(sameBut(byLane), sameBut(byRoute));
    assert.notEqual(json(byLane).refundOfferId, json(byRoute).refundOfferId);
    // the route's own serializer: the same bytes once the offer ids are swapped
    assert.equal(byLane.body.toString('utf8'), byRoute.body.toString('utf8').replace(json(byRoute).refundOfferId!, json(byLane).refundOfferId!));
    assert.deepEqual(stable(byLane).filter(([n]) => n !== 'content-length'), stable(byRoute).filter(([n]) => n !== 'content-length'));
    assert.equal(Number(header(byLane, 'content-length')), byLane.body.length);
    const submitted = await call(t.app, '/refund.do', { orderNo, refundOfferId: json(byLane).refundOfferId });
    assert.equal(submitted.body.status, 0, String(submitted.body.msg));
  });

  test('a refusal is answered by the route from the lane\'s work', async () => {
    await quote(quoteBody());
    const cases: Array<[string, string]> = [
      ['an order not the caller\'s', quoteBody({ orderNo: 'NO-SUCH-ORDER' })],
      ['a passenger not on the order', quoteBody({ refundRequestList: [{ lastName: 'Nobody', firstName: 'X', refundReason: '1', segments: [refundSegment(t.world, 'out')] }] })],
      ['a schema failure', quoteBody({ refundRequestList: 'all' })],
    ];
    for (const [label, text] of cases) {
      const before = lane.stats.answered;
      const got = await quote(text);
      const want = await quote(text, {}, true);
      assert.equal(lane.stats.answered, before, `${label}: not answered by the lane`);
      assert.equal(got.http, want.http, label);
      assert.deepEqual(json(got), json(want), label);
      assert.notEqual(json(got).status, 0, label);
    }
  });

  test('a quote asked with gzip is gzipped as the route gzips it (@fastify/compress at its level), one offer each', async () => {
    const other = quoteBody({ refundRequestList: [{ lastName: lastR, firstName: firstR, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }] });
    const asked = { 'accept-encoding': 'gzip', 'x-request-id': 'lane-quote-2' };
    const byRoute = await quote(other, asked, true);
    assert.equal(header(byRoute, 'content-encoding'), 'gzip', 'a quote of 1 KB or more');
    const [offersBefore, answered] = [await offers(), lane.stats.answered];
    const byLane = await quote(other, asked);
    assert.equal(lane.stats.answered, answered + 1, 'the lane answered');
    assert.equal(await offers(), offersBefore + 1, 'one offer recorded');
    assert.deepEqual(sameBut(byLane), sameBut(byRoute));
    assert.deepEqual(stable(byLane).filter(([n]) => n !== 'content-length'), stable(byRoute).filter(([n]) => n !== 'content-length'));
    // the same coding of the same text: the route's own bytes once the offer ids are swapped
    const relabel = decoded(byRoute).replace(json(byRoute).refundOfferId!, json(byLane).refundOfferId!);
    assert.deepEqual(byLane.body, gzipSync(relabel, { level: 1 }));
    assert.deepEqual(byRoute.body, gzipSync(decoded(byRoute), { level: 1 }), 'the route\'s gzip is zlib\'s at level 1');
    // a caller that names deflate too is answered by the route in the coding @fastify/compress picks
    for (const coding of ['deflate, gzip;q=0.5', 'gzip, deflate']) {
      const [was, offersThen] = [lane.stats.answered, await offers()];
      const got = await quote(other, { 'accept-encoding': coding });
      const want = await quote(other, { 'accept-encoding': coding }, true);
      assert.equal(lane.stats.answered, was, `${coding}: the route's`);
      assert.equal(await offers(), offersThen + 2, 'one offer each');
      assert.equal(header(got, 'content-encoding'), header(want, 'content-encoding'), coding);
      assert.deepEqual(sameBut(got), sameBut(want), coding);
    }
  });
});
