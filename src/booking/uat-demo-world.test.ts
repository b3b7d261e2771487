// The original interface's UAT happy path (docs/plans/original-chain.md §5.1), its first three requests with
// the collection's own bodies, on the demo world (worlds/demo.yaml): search JKT→SUB in USD on a date 2–4 weeks
// ahead → verify with the routingIdentifier alone → order with the sessionId. pay.do and queryOrderDetails.do
// follow in the next part of issue 9 (their shapes are not converted yet).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadWorldFile } from '../airline/sandbox/world.js';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';

let t: TestApp;
before(async () => {
  const demo = loadWorldFile(path.resolve('worlds/demo.yaml'), new Date()).raw;
  t = await makeTestApp({ world: { ...demo, clients: testWorld().clients, bookings: [] } });
});
after(() => t.close());

for (const weeks of [2, 3, 4]) {
  test(`plan §5.1: the UAT bodies — search JKT→SUB (currency USD, ${weeks} weeks ahead), verify, order`, async () => {
    const fromDate = new Date(t.clock.now().getTime() + weeks * 7 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const cid = TEST_CLIENTS.alpha.id;
    const search = await call(t.app, '/search.do', { cid, tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'JKT', toCity: 'SUB', fromDate, currency: 'USD', requestSource: 'uat-happypath' });
    assert.equal(search.body.status, 0, String(search.body.msg));
    const routings = search.body.routings as Array<{ routingIdentifier: string; currency: string; fromSegments: Array<{ depAirport: string }> }>;
    assert.ok(Array.isArray(routings) && routings.length > 0);
    assert.deepEqual([...new Set(routings.map((r) => r.fromSegments[0]!.depAirport))].sort(), ['CGK', 'HLP']);
    assert.equal(routings[0]!.currency, 'USD');

    const verify = await call(t.app, '/verify.do', { cid, routingIdentifier: routings[0]!.routingIdentifier, requestSource: 'uat-happypath' });
    assert.equal(verify.body.status, 0, String(verify.body.msg));
    assert.equal(typeof verify.body.sessionId, 'string');

    const order = await call(t.app, '/order.do', {
      cid,
      sessionId: verify.body.sessionId,
      passengers: [{ name: 'TEST/ONE', passengerType: 0, birthday: '19900101', gender: 'M', cardNum: 'A12345678', cardType: 'PP', cardExpired: '20301231', nationality: 'ID' }],
      contact: { name: 'TEST/ONE', email: 'test@example.com', mobile: '0062-8123456789' },
      requestSource: 'uat-happypath',
    });
    assert.equal(order.body.status, 0, String(order.body.msg));
    assert.equal(order.body.currency, 'USD', "the order's currency is the routing's");
    assert.ok(typeof order.body.orderNo === 'string' && order.body.orderNo.length > 0);
  });
}

test('demo world: JKT→DPS exists only as a one-stop connection (XS771 + XS781 via SUB)', async () => {
  const fromDate = new Date(t.clock.now().getTime() + 14 * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
  const res = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'JKT', toCity: 'DPS', fromDate });
  assert.equal(res.body.status, 0, String(res.body.msg));
  const routings = res.body.routings as Array<{ fromSegments: Array<{ flightNumber: string; segmentIndex: number }> }>;
  assert.deepEqual(
    routings.map((r) => r.fromSegments.map((s) => `${s.segmentIndex}:${s.flightNumber}`)),
    [['1:XS771', '2:XS781']],
  );
});
