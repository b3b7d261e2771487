// seatAvailability.do: every status of spec 7.2 provoked, the flight-only flow of spec 1 seat rule 5, the
// error body, session binding of productCodes, the cache invalidated by a sale, and the security cases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, inflateSync } from 'node:zlib';
import { authHeaders, call, makeTestApp, type TestApp } from '../test-support/app.js';
import { assertAuthenticationRequired } from '../test-support/security.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { ApiError } from '../errors.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, depDate, passenger, seatOf, seatSegments, verifyFlights, type Cabin } from '../test-support/booking.js';
import { PLANTED } from '../test-support/planted.js';

const [lastA, firstA] = PLANTED.names;

describe('seatAvailability.do', () => {
  let t: TestApp;
  before(async () => {
    const world = bookingWorld();
    // a connection: two outbound segments
    world.flights.push(
      { id: 'bk-conn1', carrier: 'XS', flightNumber: 'XS741', from: 'CDG', to: 'HND', departure: '+6d 08:00', arrival: '+7d 02:00', aircraft: '321' },
      { id: 'bk-conn2', carrier: 'XS', flightNumber: 'XS743', from: 'HND', to: 'SGN', departure: '+7d 06:00', arrival: '+7d 10:00', aircraft: '321' },
    );
    t = await makeTestApp({ world });
  });
  after(() => t.close());

  const seats = (body: unknown, client: { id: string; secret: string } = TEST_CLIENTS.alpha) => call(t.app, '/seatAvailability.do', body, { client });
  const expectStatus = async (body: unknown, status: number, label: string) => {
    const res = await seats(body);
    assert.equal(res.http, 200, label);
    assert.equal(res.body.status, status, `${label}: ${res.body.msg}`);
    assert.equal(res.body.cabins, null, `${label}: error body has cabins null`);
    assert.equal(typeof res.body.msg, 'string');
  };

  test('security: credentials required', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    await assertAuthenticationRequired(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
  });

  test('a wide-body map: two cabins of a class on two decks, business on the upper deck, exit rows', async () => {
    const s = await verifyFlights(t, ['bk-wide']);
    const res = await seats({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']) });
    assert.equal(res.body.status, 0);
    const cabins = res.body.cabins as Array<{ cabin: { deck: string; cabinClass: number; cabinLayout: { exitRowPositions: unknown[]; columns: Array<{ characteristics: string }> } } }>;
    assert.equal(cabins.length, 2);
    assert.deepEqual(cabins[0]!.cabin.cabinLayout.exitRowPositions, [{ first: 20, last: 20 }, { first: 35, last: 35 }]);
    assert.deepEqual(new Set(cabins[0]!.cabin.cabinLayout.columns.map((c) => c.characteristics)), new Set(['A', 'M', 'W']));
    // another cabin than the one verified: its seats could not be ordered with this session (found by a review: order.do answered 320)
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']).map((x) => ({ ...x, cabinClass: 2 })) }, 216, 'business seats of an economy session');
    // a business session's map: business on the upper deck
    const f = t.world.flights.get('bk-wide')!;
    const offers = await call(t.app, '/getOffers.do', { adults: 1, cabinClass: 2, outboundSegments: [{ carrier: 'XS', departureAirport: f.from, arrivalAirport: f.to, flightNumber: f.flightNumber.slice(2), departureDate: f.current.dep.toFormat('yyyyMMdd') }] });
    assert.equal(offers.body.status, 0, String(offers.body.msg));
    const offerId = (offers.body.data as Array<{ offer: { offerID: string } }>)[0]!.offer.offerID;
    const business = await seats({ offerId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']).map((x) => ({ ...x, cabinClass: 2 })) });
    assert.equal(business.body.status, 0, String(business.body.msg));
    const b = business.body.cabins as Array<{ cabin: { deck: string; cabinClass: number } }>;
    assert.deepEqual(b.map((c) => [c.cabin.deck, c.cabin.cabinClass]), [['Upper deck', 2]]);
    // the same without cabinClass (as verified), and with "" (absent, decision 0021)
    for (const cabinClass of [undefined, '']) {
      const again = await seats({ offerId, sessionId: '', carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']).map((x) => ({ ...x, cabinClass })) });
      assert.equal(again.raw, business.raw, `cabinClass ${JSON.stringify(cabinClass)}`);
    }
  });

  test('214: unknown, expired and another client\'s session', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
    await expectStatus({ ...body, sessionId: 'ses_nope' }, 214, 'unknown');
    await expectStatus({ ...body, sessionId: null, offerId: 'ofr_nope' }, 214, 'unknown offer');
    const other = await seats(body, TEST_CLIENTS.beta);
    assert.equal(other.body.status, 214, 'another client\'s session');
    t.clock.advance(2 * 3_600_000 + 1_000);
    await expectStatus(body, 214, 'expired after 2 h');
  });

  test('220: a segment asked for twice, or sent in the wrong direction (spec 2.12: one cabins entry per flight segment; found by a review)', async () => {
    const s = await verifyFlights(t, ['bk-narrow'], ['bk-narrow-ret']);
    const [out] = seatSegments(t, ['bk-narrow']);
    const [ret] = seatSegments(t, ['bk-narrow-ret'], 2);
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [out, out], inboundSegments: [ret] }, 220, 'twice');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [out, ret] }, 220, 'a return segment as outbound');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [ret], inboundSegments: [out] }, 220, 'swapped');
    const ok = await seats({ sessionId: s.sessionId, offerId: '', carrier: 'XS', outboundSegments: [out], inboundSegments: [ret] });
    assert.equal(ok.body.status, 0, String(ok.body.msg));
  });

  test('220: every segment of the itinerary, in the order of take-off (spec/public-notes.md: all outbound segments in take-off order, inbound the same)', async () => {
    const round = await verifyFlights(t, ['bk-narrow'], ['bk-narrow-ret']);
    const [out] = seatSegments(t, ['bk-narrow']);
    const [ret] = seatSegments(t, ['bk-narrow-ret'], 2);
    const missingRet = await seats({ sessionId: round.sessionId, carrier: 'XS', outboundSegments: [out] });
    assert.equal(missingRet.body.status, 220, String(missingRet.body.msg));
    assert.match(String(missingRet.body.msg), /send every segment of the itinerary; segment 2 \(XS702 SGN-HND\) is missing from inboundSegments/);
    await expectStatus({ sessionId: round.sessionId, carrier: 'XS', outboundSegments: [out], inboundSegments: [] }, 220, 'inboundSegments empty');
    assert.equal((await seats({ sessionId: round.sessionId, carrier: 'XS', outboundSegments: [out], inboundSegments: [ret] })).body.status, 0, 'both segments');
    // two outbound segments (a connection), sent second first
    const connection = await verifyFlights(t, ['bk-conn1', 'bk-conn2']);
    const legs = seatSegments(t, ['bk-conn1', 'bk-conn2']);
    const reversed = await seats({ sessionId: connection.sessionId, carrier: 'XS', outboundSegments: [legs[1], legs[0]] });
    assert.equal(reversed.body.status, 220, String(reversed.body.msg));
    assert.match(String(reversed.body.msg), /send the segments in the order of take-off; segment 1 comes after segment 2/);
    await expectStatus({ sessionId: connection.sessionId, carrier: 'XS', outboundSegments: [legs[1]] }, 220, 'the first leg missing');
    const ok = await seats({ sessionId: connection.sessionId, carrier: 'XS', outboundSegments: legs });
    assert.equal(ok.body.status, 0, String(ok.body.msg));
    assert.deepEqual([...new Set((ok.body.cabins as Cabin[]).map((c) => c.segmentIndex))], [1, 2]);
  });

  test('215: segment index missing or not in the session', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const [seg] = seatSegments(t, ['bk-narrow']);
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...seg, segmentIndex: undefined }] }, 215, 'missing');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...seg, segmentIndex: 3 }] }, 215, 'not in the session');
  });

  test('216 and 217: the sandbox fails as the world says', async () => {
    for (const [id, status] of [['bk-fail', 216], ['bk-unknown', 217]] as const) {
      const s = await verifyFlights(t, [id]);
      await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, [id]) }, status, id);
    }
  });

  test('218 airline and 219 route without seat selection; 221 no fare family', async () => {
    const a = await verifyFlights(t, ['bk-noseats']);
    await expectStatus({ sessionId: a.sessionId, carrier: 'XZ', outboundSegments: seatSegments(t, ['bk-noseats']) }, 218, 'airline');
    const r = await verifyFlights(t, ['bk-route']);
    await expectStatus({ sessionId: r.sessionId, carrier: 'XQ', outboundSegments: seatSegments(t, ['bk-route']) }, 219, 'route');
    const ok = await verifyFlights(t, ['bk-route-ok']);
    assert.equal((await seats({ sessionId: ok.sessionId, carrier: 'XQ', outboundSegments: seatSegments(t, ['bk-route-ok']) })).body.status, 0, 'the airline\'s other route has seats');
    const f = await verifyFlights(t, ['bk-nofamily']);
    await expectStatus({ sessionId: f.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-nofamily']) }, 221, 'no fare family');
  });

  test('220: shape, carrier and flights that are not the session\'s; independent mode', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const segs = seatSegments(t, ['bk-narrow']);
    await expectStatus({ sessionId: s.sessionId, outboundSegments: segs }, 220, 'carrier missing');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [] }, 220, 'no segments');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XQ', outboundSegments: segs }, 220, 'another carrier');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...segs[0], depTime: '20261340' }] }, 220, 'a date that does not exist');
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-fail']) }, 220, 'another flight');
    // The session's flight on another day, or at another time (found by a review: depTime was not compared).
    const dep = String(segs[0]!.depTime);
    const dayAfter = new Date(Date.UTC(Number(dep.slice(0, 4)), Number(dep.slice(4, 6)) - 1, Number(dep.slice(6, 8)) + 1)).toISOString().slice(0, 10).replaceAll('-', '');
    const res = await seats({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...segs[0], depTime: `${dayAfter}${dep.slice(8)}` }] });
    assert.equal(res.body.status, 220);
    assert.equal(res.body.msg, `invalid request: segment 1 departs ${dep} (airport-local) in the session, not ${dayAfter}${dep.slice(8)}`);
    const otherTime = `${dep.slice(0, 8)}${dep.slice(8, 10) === '23' ? '22' : '23'}${dep.slice(10)}`;
    await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...segs[0], depTime: otherTime }] }, 220, 'another departure time');
    // the day alone (yyyyMMdd, as the schema accepts) is the session's flight
    assert.equal((await seats({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: [{ ...segs[0], depTime: dep.slice(0, 8) }] })).body.status, 0);
    // Flight data alone, and no verify session of this client on these flights: independent mode.
    await expectStatus({ carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow-ret']) }, 220, 'independent mode');
    const other = await seats({ carrier: 'XS', outboundSegments: segs }, TEST_CLIENTS.beta);
    assert.equal(other.body.status, 220, 'another client\'s session is never matched');
  });

  test('flight-only request matches the caller\'s verify session (spec 1 seat rule 5); its codes order seats', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const res = await seats({ carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    assert.equal(res.body.status, 0, res.body.msg ?? '');
    const seat = seatOf(res.body.cabins as never, 1, '15C');
    const order = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seat.productCode, segmentIndex: 1 }])], contact });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
  });

  test('a zero-padded flight number is the same flight (spec 4.4; verify.do reads XS0701 as XS701; a review found 220)', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const padded = seatSegments(t, ['bk-narrow']).map((x) => Object.assign({}, x, { flightNumber: 'XS0701' }));
    const named = await seats({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: padded });
    assert.equal(named.body.status, 0, String(named.body.msg));
    // flight-only: the flight key is made of normalized numbers on both sides
    const flightOnly = await seats({ carrier: 'XS', outboundSegments: padded });
    assert.equal(flightOnly.body.status, 0, String(flightOnly.body.msg));
  });

  test('productCodes are bound to their session; a sale shows O at once (cache invalidated)', async () => {
    const one = await verifyFlights(t, ['bk-narrow']);
    const two = await verifyFlights(t, ['bk-narrow']);
    const map1 = await seats({ sessionId: one.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    const map2 = await seats({ sessionId: two.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    const code1 = seatOf(map1.body.cabins as never, 1, '16D').productCode;
    assert.notEqual(code1, seatOf(map2.body.cabins as never, 1, '16D').productCode);
    const wrong = await call(t.app, '/order.do', { sessionId: two.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: code1, segmentIndex: 1 }])], contact });
    assert.equal(wrong.body.status, 309);
    const right = await call(t.app, '/order.do', { sessionId: one.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: code1, segmentIndex: 1 }])], contact });
    assert.equal(right.body.status, 0);
    const after = await seats({ sessionId: two.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    assert.equal(seatOf(after.body.cabins as never, 1, '16D').seatStatus, 'O');
  });

  test('gzip: the same answer compressed (spec 5); identity when the caller does not accept it', async () => {
    const s = await verifyFlights(t, ['bk-wide']);
    const body = JSON.stringify({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']) });
    const ask = (encoding: string | null) =>
      t.app.inject({ method: 'POST', url: '/seatAvailability.do', headers: { 'content-type': 'application/json', ...authHeaders(), ...(encoding ? { 'accept-encoding': encoding } : {}) }, payload: body });
    const plain = await ask(null);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.json().status, 0);
    for (const enc of ['gzip', 'br;q=1, gzip;q=0.5', '*']) {
      const zipped = await ask(enc);
      assert.equal(zipped.headers['content-encoding'], 'gzip', enc);
      assert.match(String(zipped.headers['content-type']), /^application\/json/);
      assert.equal(gunzipSync(zipped.rawPayload).toString(), plain.body, enc);
    }
    assert.equal((await ask('gzip;q=0')).headers['content-encoding'], undefined);
    // `*` stands only for the codings not named (RFC 9110 §12.5.3): gzip refused by name stays refused
    const deflated = await ask('gzip;q=0, *');
    assert.equal(deflated.headers['content-encoding'], 'deflate');
    assert.equal(inflateSync(deflated.rawPayload).toString(), plain.body);
    assert.equal((await ask('*;q=0')).headers['content-encoding'], undefined);
  });

  test('223: the look-to-book check refuses before any work (counter provided by the rate-limit module)', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const ltb = t.app.deps.lookToBook;
    const original = ltb.check.bind(ltb);
    ltb.check = async () => {
      throw new ApiError(223, 'ratio of seat quote requests to payment orders exceeded the allowed threshold');
    };
    try {
      await expectStatus({ sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) }, 223, 'look-to-book');
    } finally {
      ltb.check = original;
    }
  });
});

/** A business-class (2) verify session of the flight `id`, as search.do with its cabinClass and verify.do make it. */
async function verifyBusiness(t: TestApp, id: string): Promise<{ sessionId: string }> {
  const f = t.world.flights.get(id)!;
  const search = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: f.from, toCity: f.to, fromDate: depDate(t, id), airlines: ['XS'], cabinClass: 2 });
  assert.equal(search.body.status, 0, String(search.body.msg));
  const routing = (search.body.routings as Array<{ routingIdentifier: string; fromSegments: Array<{ flightNumber: string }> }>).find((r) => r.fromSegments[0]!.flightNumber === f.flightNumber)!;
  const business = await call(t.app, '/verify.do', { routingIdentifier: routing.routingIdentifier });
  assert.equal(business.body.status, 0, String(business.body.msg));
  return { sessionId: String(business.body.sessionId) };
}

describe('flight-only requests with several verify sessions on the flights (spec 1 seat rule 5)', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld() });
  });
  after(() => t.close());
  const seats = (body: unknown) => call(t.app, '/seatAvailability.do', body);

  test('sessions that differ in their passengers: 220 asking for the sessionId (a review: the newest was used, and order.do with the other answered 309)', async () => {
    const one = await verifyFlights(t, ['bk-narrow'], [], { adults: 1 });
    await verifyFlights(t, ['bk-narrow'], [], { adults: 2 });
    const flightOnly = await seats({ carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    assert.equal(flightOnly.body.status, 220, String(flightOnly.body.msg));
    assert.equal(flightOnly.body.cabins, null);
    assert.match(String(flightOnly.body.msg), /send the sessionId/);
    // named, the caller's own session answers and its codes order seats
    const named = await seats({ sessionId: one.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    assert.equal(named.body.status, 0, String(named.body.msg));
    const seat = seatOf(named.body.cabins as never, 1, '15C');
    const order = await call(t.app, '/order.do', { sessionId: one.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seat.productCode, segmentIndex: 1 }])], contact });
    assert.equal(order.body.status, 0, String(order.body.msg));
  });

  test('sessions alike in what the map depends on: the newest is used, as with one', async () => {
    await verifyFlights(t, ['bk-narrow-ret']);
    const newest = await verifyFlights(t, ['bk-narrow-ret']);
    const res = await seats({ carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow-ret']) });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const byId = await seats({ sessionId: newest.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow-ret']) });
    assert.equal(res.raw, byId.raw, 'the newest session\'s productCodes');
  });

  test('the request\'s cabinClass picks the session of that cabin; without it two cabins are ambiguous; a cabin no session has is independent mode', async () => {
    await verifyFlights(t, ['bk-wide']);
    await verifyBusiness(t, 'bk-wide');
    const segs = seatSegments(t, ['bk-wide']);
    const both = await seats({ carrier: 'XS', outboundSegments: segs });
    assert.equal(both.body.status, 220, String(both.body.msg));
    for (const cabinClass of [2, '1']) {
      const res = await seats({ carrier: 'XS', outboundSegments: segs.map((x) => Object.assign({}, x, { cabinClass })) });
      assert.equal(res.body.status, 0, String(res.body.msg));
      assert.deepEqual([...new Set((res.body.cabins as Cabin[]).map((c) => c.cabin.cabinClass))], [Number(cabinClass)]);
    }
    const first = await seats({ carrier: 'XS', outboundSegments: segs.map((x) => Object.assign({}, x, { cabinClass: 3 })) });
    assert.equal(first.body.status, 220, String(first.body.msg));
    assert.match(String(first.body.msg), /independent mode/);
  });
});

describe('a flight-only request for a cabin behind many sessions of another (spec 1 seat rule 5)', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld() });
  });
  after(() => t.close());

  test('a business session older than 20 economy ones on the same flight is found by cabinClass (found by a review: only the 20 newest were weighed)', async () => {
    const business = await verifyBusiness(t, 'bk-wide');
    for (let i = 0; i < 21; i++) await verifyFlights(t, ['bk-wide']);
    const segs = seatSegments(t, ['bk-wide']).map((x) => Object.assign({}, x, { cabinClass: 2 }));
    const res = await call(t.app, '/seatAvailability.do', { carrier: 'XS', outboundSegments: segs });
    assert.equal(res.body.status, 0, String(res.body.msg));
    assert.deepEqual([...new Set((res.body.cabins as Cabin[]).map((c) => c.cabin.cabinClass))], [2]);
    const named = await call(t.app, '/seatAvailability.do', { sessionId: business.sessionId, carrier: 'XS', outboundSegments: segs });
    assert.equal(res.raw, named.raw, "the business session's own map and productCodes");
  });
});

describe('a chain session ends when its first flight leaves', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld() });
  });
  after(() => t.close());

  test('search routing, verify session: usable until departure, then 214 at seatAvailability.do and 301 at order.do (a review: F seats were answered for a flight that had left)', async () => {
    const dep = t.world.flights.get('bk-narrow')!.current.dep;
    t.clock.advance(dep.toMillis() - t.clock.now().getTime() - 30 * 60_000);
    const search = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'HND', toCity: 'SGN', fromDate: depDate(t, 'bk-narrow'), airlines: ['XS'] });
    assert.equal(search.body.status, 0, String(search.body.msg));
    const routing = (search.body.routings as Array<{ expireTime: string; fromSegments: Array<{ flightNumber: string }> }>).find((r) => r.fromSegments[0]!.flightNumber === 'XS701')!;
    // decision 0021: expireTime is the routingIdentifier's expiry, here the departure instead of 6 h on
    assert.equal(routing.expireTime, dep.toUTC().toFormat("yyyy-MM-dd'T'HH:mm:ss'Z'"));
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
    const live = await call(t.app, '/seatAvailability.do', body);
    assert.equal(live.body.status, 0, String(live.body.msg));
    const seat = seatOf(live.body.cabins as Cabin[], 1, '16D');
    t.clock.advance(30 * 60_000);
    const afterwards = await call(t.app, '/seatAvailability.do', body);
    assert.equal(afterwards.body.status, 214, 'spec 7.2: 214 session expired');
    const order = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seat.productCode, segmentIndex: 1 }])], contact });
    assert.equal(order.body.status, 301, String(order.body.msg));
  });
});

describe('a seat a world booking holds', () => {
  let t: TestApp;
  before(async () => {
    const world = bookingWorld();
    // a ticketed world booking on bk-narrow with seat 16E (a review: it showed F and order.do sold it again)
    world.bookings.push({
      pnr: 'HLD001',
      carrier: 'XS',
      status: 'Ticketed',
      contact: { email: 'holder@example.test' },
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'HOLDER', firstName: 'HAL' }],
      segments: [{ flight: 'bk-narrow' }],
      issuedAt: '-1d 09:00',
      tickets: [{ ticketNo: '999-1000009901', passenger: 'a', currency: 'EUR', fare: 100, tax: 10, coupons: ['OPEN_FOR_USE'], ancillaries: [{ category: 'Seat', segment: 1, price: 25, seat: '16E' }] }],
    });
    t = await makeTestApp({ world });
  });
  after(() => t.close());

  test('is occupied on the map and order.do does not sell it', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const map = await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) });
    assert.equal(map.body.status, 0, String(map.body.msg));
    const held = seatOf(map.body.cabins as never, 1, '16E');
    assert.equal(held.seatStatus, 'O');
    assert.equal(seatOf(map.body.cabins as never, 1, '16D').seatStatus, 'F', 'its neighbour free');
    const order = await call(t.app, '/order.do', { sessionId: s.sessionId, ifSeatOccupied: 'STOP_TICKET', passengers: [passenger(lastA, firstA, [{ productCode: held.productCode, segmentIndex: 1 }])], contact });
    assert.notEqual(order.body.status, 0, 'the held seat is not sold');
    const sold = await t.store.db.selectFrom('sandbox_seat_sales').select('seat').where('seat', '=', '16E').execute();
    assert.deepEqual(sold, []);
  });
});
