// order.do, pay.do, queryOrderDetails.do, verify.do and getOffers.do: their statuses, ifSeatOccupied, card
// handling, durability of the sandbox airline's bookings across a restart, and the security cases.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, openTestStore, type TestApp } from '../test-support/app.js';
import { assertAuthenticationRequired } from '../test-support/security.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { TestClock } from '../clock.js';
import { ConnectorError } from '../airline/connector.js';
import { validCardNumber } from './pay.js';
import { contact, depDate, passenger, verifySeg, seatOf, seatSegments, verifyFlights, type Cabin } from '../test-support/booking.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;
const [emailA] = PLANTED.emails;
const CARD = { cardNumber: '4111 1111 1111 1111', cardCVV: '123', cardExpireMonth: '12', cardExpireYear: '30', cardHolderFirstName: firstA, cardHolderLastName: lastA };

describe('booking chain statuses', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld() });
  });
  after(() => t.close());

  const map = async (sessionId: string, id = 'bk-narrow') =>
    (await call(t.app, '/seatAvailability.do', { sessionId, carrier: 'XS', outboundSegments: seatSegments(t, [id]) })).body.cabins as Cabin[];
  const order = (body: Record<string, unknown>, client: { id: string; secret: string } = TEST_CLIENTS.alpha) =>
    call(t.app, '/order.do', { contact, ...body }, { client });

  test('security: every booking endpoint needs credentials', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const o = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    const seg = t.world.flights.get('bk-narrow')!;
    const cases: Array<[string, unknown]> = [
      ['/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'HND', toCity: 'SGN', fromDate: depDate(t, 'bk-narrow') }],
      ['/verify.do', { outboundSegments: [verifySeg(t, 'bk-narrow')] }],
      ['/getOffers.do', { adults: 1, outboundSegments: [{ carrier: 'XS', departureAirport: 'HND', arrivalAirport: 'SGN', flightNumber: seg.flightNumber, departureDate: depDate(t, 'bk-narrow') }] }],
      ['/getLuggage.do', { offerId: s.sessionId }],
      ['/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact }],
      ['/pay.do', { orderNo: o.body.orderNo, paymentMethod: 4 }],
      ['/queryOrderDetails.do', { orderNo: o.body.orderNo }],
    ];
    for (const [url, body] of cases) await assertAuthenticationRequired(t.app, url, body);
  });

  test('verify.do (plan §8.2): 200 unknown routing, 207 unknown flight or too many passengers, 212 passenger mix; the booking fee', async () => {
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: 'rt_nope' })).body.status, 200);
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [verifySeg(t, 'bk-narrow', { flightNumber: '999' })] })).body.status, 207);
    assert.equal((await call(t.app, '/verify.do', { adultNum: 1, infantNum: 2, outboundSegments: [verifySeg(t, 'bk-narrow')] })).body.status, 212);
    assert.equal((await call(t.app, '/verify.do', { adultNum: 0, outboundSegments: [verifySeg(t, 'bk-narrow')] })).body.status, 212);
    const fee = await call(t.app, '/verify.do', { outboundSegments: [verifySeg(t, 'bk-route-ok')] });
    const routing = fee.body.routing as { transactionFee: number; transactionFeeMode: string; transactionFeePerPax: number };
    assert.deepEqual([routing.transactionFee, routing.transactionFeeMode, routing.transactionFeePerPax], [5, 'PER_BOOKING', 0], 'a fee per booking: no passenger pays it alone');
  });

  test('order.do: 301 session, 302/312 passenger counts, 309 codes, 320 missing seat, infants get no seat', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const cabins = await map(s.sessionId);
    assert.equal((await order({ sessionId: 'ses_nope', passengers: [passenger(lastA, firstA)] })).body.status, 301);
    assert.equal((await order({ passengers: [passenger(lastA, firstA)] })).body.status, 301);
    assert.equal((await order({ sessionId: '', offerId: '', passengers: [passenger(lastA, firstA)] })).body.status, 301, '"" is absent');
    assert.equal((await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] }, TEST_CLIENTS.beta)).body.status, 301, "another client's session");
    // plan §3.2 FAQ: the count may differ from the verified one; each passenger at its type's verified fare
    const two = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), passenger(lastB, firstB)] });
    assert.equal(two.body.status, 0, two.body.msg ?? '');
    assert.equal(two.body.totalPrice, 2 * 350);
    // plan §3.6: 302 when the changed count does not fit the seats verify.do offered (maxSeats 2 here), 312 beyond 9
    const few = await verifyFlights(t, ['bk-few']);
    assert.equal((await order({ sessionId: few.sessionId, passengers: [1, 2, 3].map(() => passenger(lastA, firstA)) })).body.status, 302);
    assert.equal((await order({ sessionId: s.sessionId, passengers: Array.from({ length: 10 }, () => passenger(lastA, firstA)) })).body.status, 312);
    const code = seatOf(cabins, 1, '17A').productCode;
    for (const bad of ['NOPE', code.replace('_XS_', '_XQ_'), code.slice(0, -1) + (code.endsWith('a') ? 'b' : 'a'), 'BAG_StandardCheckInBaggage_9_XS_HND_SGN']) {
      assert.equal((await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: bad, segmentIndex: 1 }])] })).body.status, 309, bad);
    }
    assert.equal((await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: code, segmentIndex: 2 }])] })).body.status, 309, 'segment not in the session');
    // decision 0024 maxQty 1: one bag of a product per passenger and segment (found by a review: three were charged)
    const bag = { productCode: 'BAG_StandardCheckInBaggage_1_XS_HND_SGN', segmentIndex: 1 };
    const threeBags = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [bag, bag, bag])] });
    assert.equal(threeBags.body.status, 309, String(threeBags.body.msg));
    assert.match(String(threeBags.body.msg), /twice on segment 1/);
    const bagEach = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [bag]), passenger(lastB, firstB, [bag])] });
    assert.equal(bagEach.body.status, 0, `one each: ${String(bagEach.body.msg)}`);
    const missing = code.replace('SCI_SEAT_17A_', 'SCI_SEAT_30B_');
    assert.equal((await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: missing, segmentIndex: 1 }])] })).body.status, 320, 'a seat the aircraft does not have');
  });

  test("an airline that cannot give its seat map at order time: 324, not 320 'seat not found' (found by a review)", async () => {
    let down = false;
    const w = await makeTestApp({
      world: bookingWorld(),
      connectors: (world, books) => {
        const airline = new SandboxConnector(world, books);
        const booking = airline.booking;
        const version = booking.seatMapVersion.bind(booking);
        booking.seatMapVersion = (carrier, flight) => {
          if (down) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
          return version(carrier, flight);
        };
        return [airline];
      },
    });
    try {
      const s = await verifyFlights(w, ['bk-narrow']);
      const cabins = (await call(w.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(w, ['bk-narrow']) })).body.cabins as Cabin[];
      down = true;
      const res = await call(w.app, '/order.do', { contact, sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seatOf(cabins, 1, '17A').productCode, segmentIndex: 1 }])] });
      assert.equal(res.body.status, 324, String(res.body.msg));
      assert.match(String(res.body.msg), /seat map of segment 1 could not be read/);
    } finally {
      await w.close();
    }
  });

  test('ifSeatOccupied: SIMILAR_SEAT (default) gives a similar seat, STOP_SEAT drops it, STOP_TICKET refuses (328)', async () => {
    const first = await verifyFlights(t, ['bk-narrow']);
    const second = await verifyFlights(t, ['bk-narrow']);
    const stale = await map(second.sessionId);
    const taken = await order({ sessionId: first.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seatOf(await map(first.sessionId), 1, '18F').productCode, segmentIndex: 1 }])] });
    assert.equal(taken.body.status, 0);
    const want = [{ productCode: seatOf(stale, 1, '18F').productCode, segmentIndex: 1 }];
    const stop = await order({ sessionId: second.sessionId, ifSeatOccupied: 'STOP_TICKET', passengers: [passenger(lastB, firstB, want)] });
    assert.equal(stop.body.status, 328);
    const drop = await order({ sessionId: second.sessionId, ifSeatOccupied: 'STOP_SEAT', passengers: [passenger(lastB, firstB, want)] });
    assert.equal(drop.body.status, 0);
    const seatsOf = (body: Record<string, unknown>) => (body.paxTicketInfos as Array<{ ancillaries: Array<{ auxSeatElement: { row: string; column: string } }> }>)[0]!.ancillaries;
    assert.deepEqual(seatsOf(drop.body), [], 'STOP_SEAT: booked without the seat');
    assert.equal(drop.body.totalPrice, 350, 'the dropped seat is not charged');
    const similar = await order({ sessionId: second.sessionId, passengers: [passenger(lastB, firstB, want)] });
    assert.equal(similar.body.status, 0);
    const { row, column } = seatsOf(similar.body)[0]!.auxSeatElement;
    assert.match(`${row}${column}`, /^\d+[AF]$/, 'a window seat like the one asked for');
    assert.notEqual(`${row}${column}`, '18F');
  });

  test('the payment methods every answer advertises are the ones pay.do takes: [1, 3] (Atlas API_shopping and ticketing.md: Routing supportPaymentMethods and the pay.do status 403 unsupported payment method; a review: [1, 3, 4, 5] was advertised and 4/5 answered 403)', async () => {
    const date = depDate(t, 'bk-narrow');
    const found = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'HND', toCity: 'SGN', fromDate: date });
    const routings = found.body.routings as Array<{ routingIdentifier: string; supportPaymentMethods: number[] }>;
    assert.ok(routings.length > 0, JSON.stringify(found.body));
    const verified = await call(t.app, '/verify.do', { routingIdentifier: routings[0]!.routingIdentifier });
    const seg = t.world.flights.get('bk-narrow')!;
    const offers = await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [{ carrier: 'XS', departureAirport: 'HND', arrivalAirport: 'SGN', flightNumber: seg.flightNumber, departureDate: date }] });
    const booked = await order({ sessionId: verified.body.sessionId, passengers: [passenger(lastA, firstA)] });
    const orderNo = booked.body.orderNo as string;
    const query = (await call(t.app, '/queryOrderDetails.do', { orderNo })).body as unknown as { supportPaymentMethods: number[]; routing: { supportPaymentMethods: number[] } };
    const advertised = [
      ...routings.map((r) => r.supportPaymentMethods),
      (verified.body.routing as { supportPaymentMethods: number[] }).supportPaymentMethods,
      (booked.body.routing as { supportPaymentMethods: number[] }).supportPaymentMethods,
      query.supportPaymentMethods,
      query.routing.supportPaymentMethods,
    ];
    for (const methods of advertised) assert.deepEqual(methods, [1, 3]);
    for (const element of offers.body.data as Array<{ supportedPaymentMethods: string[] }>) assert.deepEqual(element.supportedPaymentMethods, ['Deposit', 'VCC_Passthrough']);
    // what is not advertised is refused; what is, is taken (the card payment issues the tickets)
    for (const method of [4, 5]) assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: method })).body.status, 403, `method ${method}`);
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 3, creditCard: CARD })).body.status, 0);
  });

  test("paxTicketInfos[].name echoes the passenger's name as sent, in order.do and queryOrderDetails.do (Atlas API_shopping and ticketing.md, order.do answer: paxTicketInfos name echoes the passenger's name; its samples send and answer For/Test; a review: FOR/TEST)", async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const sent = `${lastA[0]}${lastA.slice(1).toLowerCase()}/${firstA[0]}${firstA.slice(1).toLowerCase()}`;
    const booked = await order({ sessionId: s.sessionId, passengers: [{ ...passenger(lastA, firstA), name: sent }] });
    assert.equal(booked.body.status, 0, String(booked.body.msg));
    const names = (body: Record<string, unknown>) => (body.paxTicketInfos as Array<{ name: string }>).map((p) => p.name);
    assert.deepEqual(names(booked.body), [sent]);
    const orderNo = booked.body.orderNo as string;
    assert.deepEqual(names((await call(t.app, '/queryOrderDetails.do', { orderNo })).body), [sent]);
    assert.deepEqual(names((await call(t.app, '/queryOrderDetails.do', { pnrCode: booked.body.pnrCode })).body), [sent]);
    // the airline is handed (and keeps) the upper-cased form
    const stored = await t.store.db.selectFrom('order_passengers').select(['last_name', 'first_name']).where('order_no', '=', orderNo).execute();
    assert.deepEqual(stored, [{ last_name: lastA, first_name: firstA }]);
  });

  test("the original's sandbox test cards: the four failing the Luhn check are refused 400, the others are card numbers pay.do takes (integration-reference/sandbox-test-data/sandbox-test-cards.md; Atlas API_shopping and ticketing.md, pay.do cardNumber conforms to the Luhn algorithm)", async () => {
    const failingLuhn = ['4916931584764308', '5223456789012346', '375987654321001', '6011987612345678'];
    const passing = ['4532015112830366', '4485275742308327', '4556737586899855', '4532644189324563', '4054695723100768', '5555555555554444', '5105105105105100', '5301250070000191', '5454545454545454', '5162774114974622', '378282246310005', '371449635398431', '340000000000009', '370000000000002', '6011111111111117', '6011000990139424', '3566002020360505'];
    for (const n of failingLuhn) assert.equal(validCardNumber(n), null, n);
    for (const n of passing) assert.equal(validCardNumber(n), n, n);
    const s = await verifyFlights(t, ['bk-narrow']);
    const o = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    const orderNo = o.body.orderNo as string;
    for (const cardNumber of failingLuhn) {
      const res = await call(t.app, '/pay.do', { orderNo, paymentMethod: 3, creditCard: { ...CARD, cardNumber } });
      assert.equal(res.body.status, 400, cardNumber);
      assert.match(String(res.body.msg), /cardNumber/);
    }
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 3, creditCard: { ...CARD, cardNumber: '3566002020360505' } })).body.status, 0, 'a JCB test card of the page pays');
  });

  test('pay.do: 800, 403, 400 card, 401 past the deadline, 404 paid', async () => {
    assert.equal((await call(t.app, '/pay.do', { orderNo: '1234567890123456', paymentMethod: 1 })).body.status, 800);
    const s = await verifyFlights(t, ['bk-narrow']);
    const o = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    const orderNo = o.body.orderNo as string;
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 1 }, { client: TEST_CLIENTS.beta })).body.status, 800, "another client's order");
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 4 })).body.status, 403);
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 3 })).body.status, 400, 'card missing');
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 3, creditCard: { ...CARD, cardNumber: '4111 1111 1111 1112' } })).body.status, 400, 'Luhn');
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 9 })).body.status, 400);
    const late = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 1 })).body.status, 0);
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 1 })).body.status, 404);
    // plan §7: the hold is 30 minutes; pay.do after it: 401 (before or after the expiry job ran)
    t.clock.advance(31 * 60_000);
    assert.equal((await call(t.app, '/pay.do', { orderNo: late.body.orderNo, paymentMethod: 1 })).body.status, 401);
    assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo: late.body.orderNo })).body.orderStatus, 0, 'not yet swept');
    assert.ok((await t.orderExpiry.sweep()).includes(late.body.orderNo as string));
    assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo: late.body.orderNo })).body.orderStatus, -3);
    assert.equal((await call(t.app, '/pay.do', { orderNo: late.body.orderNo })).body.status, 401);
  });
});

test('an order booked before migration 0010 (details {seats, ancillaries}) is answered from its tickets, not HTTP 500 (found by a review)', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const o = await call(t.app, '/order.do', { contact, sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    assert.equal(o.body.status, 0, String(o.body.msg));
    const orderNo = String(o.body.orderNo);
    assert.equal((await call(t.app, '/pay.do', { orderNo })).body.status, 0);
    await t.store.db.updateTable('booking_orders').set({ details: JSON.stringify({ seats: [], ancillaries: [] }) }).where('order_no', '=', orderNo).execute();
    const q = await call(t.app, '/queryOrderDetails.do', { orderNo });
    assert.equal(q.http, 200);
    assert.equal(q.body.status, 0, String(q.body.msg));
    assert.equal(q.body.totalPrice, o.body.totalPrice, 'the fare from its tickets');
  } finally {
    await t.close();
  }
});

describe('sandbox bookings survive a restart', () => {
  /** bookingWorld with a daily flight: the same local times on each of the next 5 days (ids bk-daily+Nd). */
  const withDaily = () => {
    const w = bookingWorld();
    const narrow = w.flights.find((f) => f.id === 'bk-narrow')!;
    w.flights.push({ ...structuredClone(narrow), id: 'bk-daily', flightNumber: 'XS705', departure: '+2d 09:00', arrival: '+2d 13:00', occupiedSeats: [], repeatDays: 5 });
    return w;
  };
  for (const flightId of ['bk-narrow', 'bk-daily+2d']) test(`a booking made through the chain keeps its flight's day when the next start resolves the world a day later: ${flightId} (a review: the record moved a day, the order did not)`, async () => {
    const store = await openTestStore();
    let pnr: string;
    let orderNo: string;
    const DAY = 86_400_000;
    const t1 = await makeTestApp({ world: withDaily(), store, clock: new TestClock(() => Date.now() - DAY) });
    try {
      const s = await verifyFlights(t1, [flightId]);
      const o = await call(t1.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact });
      assert.equal(o.body.status, 0, o.body.msg ?? '');
      orderNo = String(o.body.orderNo);
      pnr = ((await call(t1.app, '/queryOrderDetails.do', { orderNo })).body.airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
      assert.equal((await call(t1.app, '/pay.do', { orderNo, paymentMethod: 1 })).body.status, 0);
    } finally {
      await t1.close();
    }
    const booked = await store.db.selectFrom('order_segments').select('dep_local').where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    const t2 = await makeTestApp({ world: withDaily(), store });
    try {
      assert.notEqual(t2.world.flights.get(flightId)!.current.dep.toFormat('yyyy-MM-dd HH:mm'), booked.dep_local, `the world's ${flightId} is a day later now`);
      const extract = await call(t2.app, '/extractPnr.do', { airlinePnr: pnr, carrier: 'XS', passengers: [{ firstName: firstA, lastName: lastA }], contact: { email: emailA }, routing: { fromSegments: [] } });
      assert.equal(extract.body.status, 0, extract.body.msg ?? '');
      const routing = extract.body.routing as { fromSegments: Array<{ depTime: string }> };
      assert.equal(routing.fromSegments[0]?.depTime, booked.dep_local, 'the airline\'s record keeps the booked day');
      // spec 4.1: the booked day's flight finds the order's segment
      const f = t2.world.flights.get(flightId)!;
      const segment = { depDate: booked.dep_local.slice(0, 10).replaceAll('-', ''), flightNo: f.flightNumber, depAirport: f.from, arrAirport: f.to };
      const quote = await call(t2.app, '/refundQuotation.do', { orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [segment] }] });
      assert.equal(quote.body.status, 0, String(quote.body.msg));
    } finally {
      await t2.close();
      await store.close();
    }
  });

  test('a ticketed booking made through the chain is extracted by a new app on the same database', async () => {
    const store = await openTestStore();
    let pnr: string;
    const t1 = await makeTestApp({ world: bookingWorld(), store });
    try {
      const s = await verifyFlights(t1, ['bk-narrow']);
      const cabins = (await call(t1.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t1, ['bk-narrow']) })).body.cabins as Cabin[];
      const o = await call(t1.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seatOf(cabins, 1, '19C').productCode, segmentIndex: 1 }])], contact });
      assert.equal(o.body.status, 0, o.body.msg ?? '');
      pnr = ((await call(t1.app, '/queryOrderDetails.do', { orderNo: o.body.orderNo })).body.airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
      assert.equal((await call(t1.app, '/pay.do', { orderNo: o.body.orderNo, paymentMethod: 1 })).body.status, 0);
    } finally {
      await t1.close();
    }
    const t2 = await makeTestApp({ world: bookingWorld(), store });
    try {
      const extract = await call(t2.app, '/extractPnr.do', { airlinePnr: pnr, carrier: 'XS', passengers: [{ firstName: firstA, lastName: lastA }], contact: { email: emailA }, routing: { fromSegments: [] } });
      assert.equal(extract.body.status, 0, extract.body.msg ?? '');
      assert.ok(JSON.stringify(extract.body).includes('19C'));
      const s = await verifyFlights(t2, ['bk-narrow']);
      const cabins = (await call(t2.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t2, ['bk-narrow']) })).body.cabins as Cabin[];
      assert.equal(seatOf(cabins, 1, '19C').seatStatus, 'O');
    } finally {
      await t2.close();
      await store.close();
    }
  });
});
