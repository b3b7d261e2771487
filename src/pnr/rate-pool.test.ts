// extractPnr.do and pnr/claim.do share a per-client rate pool of their own (decision 0026), so a PNR and a
// passenger name cannot be probed at line rate: spec 8's 429 answer with limitType "pnr"; another client is
// not affected; a client's settings.rateLimits.pnrPerMinute sets its own limit.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';

const extract = (lastName: string) => ({
  airlinePnr: 'TST001',
  carrier: 'XS',
  passengers: [{ firstName: PLANTED.names[1], lastName }],
  contact: { email: PLANTED.emails[0] },
  routing: { fromSegments: [] },
});

/** A well-formed claim of a booking the airline does not have (answered, so counted). */
const claim = {
  mmb: { airlinePnr: 'NOSUCH', email: 'nobody@example.com' },
  passengers: [{ name: 'NOBODY/HERE', passengerType: 0, birthday: null, gender: null, cardNum: null, cardType: null, cardIssuePlace: null, cardExpired: null, nationality: null }],
  fromSegments: [
    { carrier: 'XS', flightNumber: 'XS101', depAirport: 'CDG', arrAirport: 'JFK', depTime: '203001010900', arrTime: '203001011200', stopCities: null, codeShare: 0, operatingCarrier: null, operatingFlightNumber: null, depTerminal: null, arrTerminal: null, cabinClass: '1', fareFamily: null, flightIndex: null, duration: 480 },
  ],
  retSegments: null,
  connectInfo: null,
};

let t: TestApp;
before(async () => {
  const world = testWorld();
  const alpha = world.clients.find((c) => c.id === TEST_CLIENTS.alpha.id)!;
  alpha.settings = { ...alpha.settings, rateLimits: { pnrPerMinute: 3 } };
  t = await makeTestApp({ world });
});
after(() => t.close());

test('decision 0026: the fourth PNR call of a minute is refused with 429 (extract and claim count together)', async () => {
  assert.equal((await call(t.app, '/extractPnr.do', extract(PLANTED.names[0]))).body.status, 0);
  // A probe with a wrong name is answered (and counted): the pool limits guessing.
  assert.notEqual((await call(t.app, '/extractPnr.do', extract('WRONGNAME'))).body.status, 0);
  const claimed = await call(t.app, '/pnr/claim.do', claim);
  assert.equal(claimed.http, 200);
  assert.notEqual(claimed.body.status, 100, String(claimed.body.msg));
  const refused = await call(t.app, '/extractPnr.do', extract(PLANTED.names[0]));
  assert.equal(refused.http, 429);
  assert.equal(refused.body.status, 429);
  assert.equal(refused.body.limitType, 'pnr');
  assert.equal(refused.body.limit, 3);
  assert.ok(Number(refused.headers['retry-after']) > 0);
  assert.equal((await call(t.app, '/pnr/claim.do', claim)).http, 429);

  // Another client has its own count, at the default limit.
  assert.equal((await call(t.app, '/extractPnr.do', extract(PLANTED.names[0]), { client: TEST_CLIENTS.beta })).http, 200);
  // The refund endpoints are not in this pool.
  assert.notEqual((await call(t.app, '/refundQuotation.do', { orderNo: '4242424242424242', refundRequestList: [] })).http, 429);
});
