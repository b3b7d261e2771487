// The original interface's UAT happy path (docs/plans/original-chain.md §5), with the collection's own request
// bodies (§5.1) on the demo world (worlds/demo.yaml) and the collection's headers (HEADER_PREFIX=atlas,
// Content-Type application/json, Accept-Encoding gzip): search JKT→SUB in USD on a date 2–4 weeks ahead →
// verify with the routingIdentifier alone → order with the sessionId → pay without paymentMethod →
// queryOrderDetails until ticketed. Every assertion the collection makes is made here: HTTP 200 and status 0
// (a number) at each step, routings a non-empty array, sessionId and orderNo non-empty strings, orderStatus the
// number 2 and pnrCode a non-empty string at the end.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { loadWorldFile } from '../airline/sandbox/world.js';
import { authHeaders, call, makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';

let t: TestApp;
before(async () => {
  const demo = loadWorldFile(path.resolve('worlds/demo.yaml'), new Date()).raw;
  t = await makeTestApp({ world: { ...demo, clients: testWorld().clients, bookings: [] }, env: { HEADER_PREFIX: 'atlas' } });
});
after(() => t.close());

/** One request as the collection sends it (plan §5: its four headers), the answer un-gzipped. */
async function uat(url: string, body: object) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { 'x-atlas-client-id': TEST_CLIENTS.alpha.id, 'x-atlas-client-secret': TEST_CLIENTS.alpha.secret, 'content-type': 'application/json', 'accept-encoding': 'gzip' },
    payload: JSON.stringify(body),
  });
  const raw = res.headers['content-encoding'] === 'gzip' ? gunzipSync(res.rawPayload).toString() : res.body;
  assert.equal(res.statusCode, 200, `${url}: HTTP 200 (${raw.slice(0, 200)})`);
  const json = JSON.parse(raw) as Record<string, unknown>;
  assert.strictEqual(json.status, 0, `${url}: status === 0 (${String(json.msg)})`);
  return json;
}

for (const weeks of [2, 3, 4]) {
  test(`plan §5.1: the UAT collection, every request and assertion (JKT→SUB in USD, ${weeks} weeks ahead, HEADER_PREFIX=atlas)`, async () => {
    const fromDate = new Date(t.clock.now().getTime() + weeks * 7 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const cid = TEST_CLIENTS.alpha.id;
    // 1.1 Search
    const search = await uat('/search.do', { cid, tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'JKT', toCity: 'SUB', fromDate, currency: 'USD', requestSource: 'uat-happypath' });
    const routings = search.routings as Array<{ routingIdentifier: string; currency: string; fromSegments: Array<{ depAirport: string }> }>;
    assert.ok(Array.isArray(routings) && routings.length > 0, 'routings is a non-empty array');
    assert.deepEqual([...new Set(routings.map((r) => r.fromSegments[0]!.depAirport))].sort(), ['CGK', 'HLP']);
    assert.equal(routings[0]!.currency, 'USD');

    // 1.2 Verify
    const verify = await uat('/verify.do', { cid, routingIdentifier: routings[0]!.routingIdentifier, requestSource: 'uat-happypath' });
    assert.ok(typeof verify.sessionId === 'string' && verify.sessionId.length > 0, 'sessionId is a non-empty string');

    // 1.3 Order
    const order = await uat('/order.do', {
      cid,
      sessionId: verify.sessionId,
      passengers: [{ name: 'TEST/ONE', passengerType: 0, birthday: '19900101', gender: 'M', cardNum: 'A12345678', cardType: 'PP', cardExpired: '20991231', nationality: 'ID' }],
      contact: { name: 'TEST/ONE', email: 'test@example.com', mobile: '0062-8123456789' },
      requestSource: 'uat-happypath',
    });
    assert.ok(typeof order.orderNo === 'string' && order.orderNo.length > 0, 'orderNo is a non-empty string');
    assert.equal(order.currency, 'USD', "the order's currency is the routing's");

    // 1.4 Pay (no paymentMethod: deposit)
    await uat('/pay.do', { cid, orderNo: order.orderNo, requestSource: 'uat-happypath' });

    // 1.5 Retrieve, polled while orderStatus === 1 (at most 40 times), then the "Ticketed" branch
    let details: Record<string, unknown> = {};
    for (let poll = 0; poll < 40; poll++) {
      details = await uat('/queryOrderDetails.do', { cid, orderNo: order.orderNo, requestSource: 'uat-happypath' });
      if (details.orderStatus !== 1) break;
    }
    assert.strictEqual(details.orderStatus, 2, 'orderStatus is the number 2');
    assert.ok(typeof details.pnrCode === 'string' && details.pnrCode.length > 0, 'pnrCode is a non-empty string');
    assert.equal(details.pnrCode, order.pnrCode, 'the booking reference order.do answered');
  });
}

test('the collection\'s headers are the brand\'s: the default prefix is refused (HEADER_PREFIX=atlas)', async () => {
  const res = await call(t.app, '/queryOrderDetails.do', { orderNo: '1' });
  assert.equal(res.body.status, 900);
});

test('demo world: JKT→DPS exists only as a one-stop connection (XS771 + XS781 via SUB)', async () => {
  const fromDate = new Date(t.clock.now().getTime() + 14 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
  const res = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'JKT', toCity: 'DPS', fromDate }, { client: null, headers: authHeaders(TEST_CLIENTS.alpha, 'atlas') });
  assert.equal(res.body.status, 0, String(res.body.msg));
  const routings = res.body.routings as Array<{ fromSegments: Array<{ flightNumber: string; segmentIndex: number }> }>;
  assert.deepEqual(
    routings.map((r) => r.fromSegments.map((s) => `${s.segmentIndex}:${s.flightNumber}`)),
    [['1:XS771', '2:XS781']],
  );
});
