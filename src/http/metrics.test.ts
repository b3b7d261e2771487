// GET /metrics after real traffic (README "Operating it"): requests by route, HTTP status and body status;
// refunds by status and airline and the oldest one waiting; job queue depth; undelivered webhook events;
// rate-pool refusals; the seat-map cache's hits and misses and its gzip answers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { gunzipSync } from 'node:zlib';
import { authHeaders, call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { seatSegments, verifyFlights } from '../test-support/booking.js';
import { sessionBinding } from '../booking/seat-product-code.js';

/** The value of one sample of the exposition text, or undefined when the series is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const got = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[2]);
  }
  return undefined;
}

const scrape = async (t: TestApp) => {
  const res = await t.app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  return res.body;
};

describe('/metrics: refunds, jobs, webhooks and body statuses', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  test('after a quote, a refusal and a submission the scrape shows each of them', async () => {
    const [last, first] = PLANTED.names;
    const orderNo = (await t.store.db.selectFrom('orders').select('order_no').where('airline_pnr', '=', 'DEP001').executeTakeFirstOrThrow()).order_no;
    const item = { lastName: last, firstName: first, refundReason: '1', segments: ['out', 'ret'].map((id) => refundSegment(t.world, id)) };
    // A receiver nobody listens on: the events stay pending (the deliverer does not run in tests).
    assert.equal((await call(t.app, '/updateWebhookURL.do', { url: 'http://127.0.0.1:9/hooks' })).body.status, 0);

    const before = await scrape(t);
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    // spec 7.1: 801 order not found
    assert.equal((await call(t.app, '/refundQuotation.do', { orderNo: '4242424242424242', refundRequestList: [item] })).body.status, 801);
    const submit = await call(t.app, '/refund.do', { orderNo, refundOfferId: quote.body.refundOfferId });
    assert.equal(submit.body.status, 0, String(submit.body.msg));
    t.clock.advance(90 * 60_000);

    const text = await scrape(t);
    const requests = (route: string, body: string) => sample(text, 'postbook_requests_total', { route, http_status: '200', body_status: body }) ?? 0;
    assert.equal(requests('/refundQuotation.do', '0') - (sample(before, 'postbook_requests_total', { route: '/refundQuotation.do', http_status: '200', body_status: '0' }) ?? 0), 1);
    assert.equal(requests('/refundQuotation.do', '801'), 1);
    assert.equal(requests('/refund.do', '0'), 1);
    assert.equal(sample(text, 'postbook_refunds', { status: '0', carrier: 'XS' }), 1);
    const waited = sample(text, 'postbook_refund_oldest_waiting_seconds', { status: '0' });
    assert.ok(waited !== undefined && waited >= 90 * 60 && waited < 91 * 60, `oldest waiting ${waited}`);
    assert.equal(sample(text, 'postbook_jobs', { queue: 'refund-submit', state: 'created' }), 0, 'no job per refund (decision 0035)');
    assert.equal(sample(text, 'postbook_refund_submissions_given_up'), 0);
    assert.equal(sample(text, 'postbook_refund_polls_given_up'), 0);
    assert.equal(sample(text, 'postbook_webhook_events_undelivered', { type: 'order.refund', state: 'pending' }), 1);
    assert.equal(sample(text, 'postbook_metrics_collect_errors_total'), undefined, 'no store figure failed');

    // decision 0035: a refund at 0 whose submissions gave up (next_poll_at null) is counted until it is retried.
    const code = String(submit.body.refundCode);
    await t.store.db.updateTable('refund_orders').set({ next_poll_at: null }).where('refund_code', '=', code).execute();
    assert.equal(sample(await scrape(t), 'postbook_refund_submissions_given_up'), 1);
    assert.equal(sample(await scrape(t), 'postbook_refund_polls_given_up'), 0);
    await sql`with due as (${t.workers.lifecycle.scheduler.submitNowSql(code)}) select count(*) from due`.execute(t.store.db);
    assert.equal(sample(await scrape(t), 'postbook_refund_submissions_given_up'), 0);
    // decision 0034: a refund at the airline whose looks gave up (next_poll_at null) is counted until it is retried.
    await t.store.db.updateTable('refund_orders').set({ status: 1, next_poll_at: null }).where('refund_code', '=', code).execute();
    assert.equal(sample(await scrape(t), 'postbook_refund_polls_given_up'), 1);
    assert.equal(sample(await scrape(t), 'postbook_refund_submissions_given_up'), 0);
    await sql`with due as (${t.workers.lifecycle.scheduler.pollNowSql(code)}) select count(*) from due`.execute(t.store.db);
    assert.equal(sample(await scrape(t), 'postbook_refund_polls_given_up'), 0);
  });
});

describe('/metrics: seat-map cache and rate-pool refusals', () => {
  let t: TestApp;
  before(async () => {
    const world = bookingWorld();
    world.clients[0]!.settings = { ...world.clients[0]!.settings, rateLimits: { ancillaryPerMinute: 3 } };
    t = await makeTestApp({ world });
  });
  after(() => t.close());

  test('three seat maps of one session (miss, then kept and hit), then the pool refuses the fourth', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
    for (let i = 0; i < 3; i++) assert.equal((await call(t.app, '/seatAvailability.do', body)).body.status, 0);
    const refused = await call(t.app, '/seatAvailability.do', body);
    assert.equal(refused.http, 429);

    const text = await scrape(t);
    // The first answer is built and remembered as asked once, the second built and kept, the third a hit.
    assert.equal(sample(text, 'postbook_seat_map_answers_total', { cache: 'hit' }), 1);
    assert.equal(sample(text, 'postbook_seat_map_answers_total', { cache: 'miss' }), 2);
    assert.equal(sample(text, 'postbook_seat_map_loads_total', { cache: 'miss' }), 1);
    assert.equal(sample(text, 'postbook_seat_map_loads_total', { cache: 'hit' }), 2);
    assert.equal(sample(text, 'postbook_rate_pool_refusals_total', { pool: 'ancillary' }), 1);
    assert.equal(sample(text, 'postbook_requests_total', { route: '/seatAvailability.do', http_status: '200', body_status: '0' }), 3);
    assert.equal(sample(text, 'postbook_requests_total', { route: '/seatAvailability.do', http_status: '429', body_status: '429' }), 1);
    // A second scrape adds nothing that did not happen.
    assert.equal(sample(await scrape(t), 'postbook_seat_map_answers_total', { cache: 'hit' }), 1);
  });

  test('gzip seat maps of two new sessions: one template made, both answers written from it (decision 0043)', async () => {
    for (let i = 0; i < 2; i++) {
      const s = await verifyFlights(t, ['bk-narrow'], [], { adults: 1 }, TEST_CLIENTS.beta);
      const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
      const res = await t.app.inject({ method: 'POST', url: '/seatAvailability.do', headers: { 'content-type': 'application/json', 'accept-encoding': 'gzip', ...authHeaders(TEST_CLIENTS.beta) }, payload: body });
      assert.equal(res.headers['content-encoding'], 'gzip');
      const answer = gunzipSync(res.rawPayload).toString();
      assert.equal((JSON.parse(answer) as { status: number }).status, 0);
      // every productCode carries this session's own binding (spec 2.12), none another's
      const codes = answer.match(/"productCode":"[^"]*"/g) ?? [];
      assert.ok(codes.length > 0 && codes.every((c) => c.endsWith(`_${sessionBinding(s.sessionId, 1)}"`)), `session ${i}`);
    }
    const text = await scrape(t);
    assert.equal(sample(text, 'postbook_seat_map_gzip_total', { how: 'template' }), 1);
    assert.equal(sample(text, 'postbook_seat_map_gzip_total', { how: 'spliced' }), 2);
    assert.equal(sample(text, 'postbook_seat_map_gzip_total', { how: 'compressed' }), 0);
  });
});

describe('/metrics: the process\'s own figures', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('resident memory, heap by V8 space, CPU and event-loop delay, read at the scrape', async () => {
    const text = await scrape(t);
    const rss = sample(text, 'process_resident_memory_bytes');
    assert.ok(rss !== undefined && rss > 10 * 2 ** 20 && Math.abs(rss - process.memoryUsage.rss()) < 256 * 2 ** 20, `resident memory ${rss}`);
    const heapUsed = sample(text, 'nodejs_heap_size_used_bytes');
    assert.ok(heapUsed !== undefined && heapUsed > 0 && heapUsed <= (sample(text, 'nodejs_heap_size_total_bytes') ?? 0), `heap used ${heapUsed}`);
    // Heap by V8 space: where a growth under load sits (new space, old space, large objects).
    assert.ok((sample(text, 'nodejs_heap_space_size_used_bytes', { space: 'old' }) ?? 0) > 0, 'old space shown');
    assert.ok((sample(text, 'process_cpu_seconds_total') ?? 0) > 0, 'CPU shown');
    // A loop held for 150 ms shows in the next scrape's maximum delay, and not in the one after it. (A scrape
    // starts the figures afresh; the histogram's first sample after that only marks the time, so wait for it.)
    await new Promise((r) => setTimeout(r, 60));
    const held = Date.now() + 150;
    while (Date.now() < held);
    await new Promise((r) => setTimeout(r, 50));
    const max = sample(await scrape(t), 'nodejs_eventloop_lag_max_seconds') ?? 0;
    assert.ok(max >= 0.1, `event-loop delay max ${max} s after a 150 ms hold`);
    await new Promise((r) => setTimeout(r, 100));
    const after = sample(await scrape(t), 'nodejs_eventloop_lag_max_seconds') ?? 1;
    assert.ok(after < 0.1, `event-loop delay max ${after} s in the scrape after`);
  });
});
