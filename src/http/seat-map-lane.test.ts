// The seat map lane (decision 0050): served seat maps answered before Fastify's request cycle must be the route's
// answers — the same bytes and headers, counted once in the rate pool and look-to-book, in the metrics — and every
// other request it reads must reach the route as it was sent. Over real sockets: app.inject never meets the lane.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { authHeaders, call, makeTestApp, openTestStore, type TestApp } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import { systemClock } from '../clock.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, passenger, seatOf, seatSegments, verifyFlights } from '../test-support/booking.js';
import { PLANTED } from '../test-support/planted.js';
import { createRatePools, DEFAULT_POOL_LIMITS } from '../ratelimit/pools.js';
import { createLookToBook } from '../ratelimit/look-to-book.js';
import type { LookToBook } from '../booking/look-to-book.js';
import type { SeatMapLane } from './seat-map-lane.js';

const [lastA, firstA] = PLANTED.names;
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
const stable = (a: Answer) => a.headers.filter(([n]) => !PER_ANSWER.has(n));

describe('the seat map lane', () => {
  let t: TestApp;
  let port: number;
  let lane: SeatMapLane;
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
    lane = t.app.seatMapLane!;
    assert.ok(lane, 'built with the lane');
  });
  after(async () => {
    await t.close();
    await store.close();
  });

  const seatBody = async (flight = 'bk-wide', client = TEST_CLIENTS.alpha) => {
    const s = await verifyFlights(t, [flight], [], { adults: 1 }, client);
    return JSON.stringify({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, [flight]) });
  };
  /** Through the lane when it can; `?route` is Fastify's alone (the lane takes the bare path only). */
  const seats = (body: string, extra: Record<string, string> = {}, viaRoute = false, client = TEST_CLIENTS.alpha) =>
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
      assert.ok(small.app.seatMapLane!.stats.answered >= limit - 1, 'served by the lane after the first');
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
