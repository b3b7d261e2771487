// order.do, pay.do and queryOrderDetails.do on the original interface's shapes (docs/plans/original-chain.md
// §3.6, §3.8, §3.9; docs/decisions/0023): every status they answer, the re-pricing at order time (308/322 and a
// retry that accepts the new price), the tolerated extras, the answer's fields and the card never stored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ConnectorError } from '../airline/connector.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { CARD_NUMBER, contact, passenger, testCard, seatOf, seatSegments, verifyFlights, verifySeg, birthdayAged, type Cabin } from '../test-support/booking.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;
const card = testCard;
const child = () => ({ ...passenger(lastB, firstB), passengerType: 1, birthday: birthdayAged(8) });
const infant = () => ({ ...passenger(lastB, firstB), passengerType: 2, birthday: birthdayAged(1) });

/** What the airline does at the next booking: as the world says, or a refusal / failure a test asks for. */
let airlineMode: 'world' | 'soldOut' | 'closed' | ConnectorError['kind'] = 'world';
/** The app's sandbox airline (a test releases a hold through it, as the expiry job does). */
let sandboxAirline: SandboxConnector | null = null;

describe('order.do, pay.do, queryOrderDetails.do on the original shapes', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({
      world: bookingWorld(),
      // the sandbox airline, with failures a test switches on (airline-side conditions the world cannot stage)
      connectors: (world, books) => {
        const sandbox = new SandboxConnector(world, books);
        sandboxAirline = sandbox;
        const real = sandbox.booking;
        const book = real.book.bind(real);
        real.book = async (req, opts) => {
          if (airlineMode === 'soldOut') return { ok: false, reason: 'soldOut', message: 'not enough seats left' };
          if (airlineMode === 'timeout' || airlineMode === 'unavailable' || airlineMode === 'rejected') throw new ConnectorError(airlineMode, false, 'test airline failure');
          return book(req, opts);
        };
        const closed = new Proxy(sandbox, { get: (target, prop) => (prop === 'booking' && airlineMode === 'closed' ? undefined : Reflect.get(target, prop, target)) });
        return [closed];
      },
    });
  });
  after(() => t.close());

  const order = (body: Record<string, unknown>) => call(t.app, '/order.do', { contact, ...body });
  const status = async (body: Record<string, unknown>) => (await order(body)).body.status;

  test('order.do: the answer (plan §3.6) — our pnrCode, totals without the fee, GMT+8 deadline, rich paxTicketInfos, echoes, paymentOptions', async () => {
    const s = await verifyFlights(t, ['bk-route-ok']);
    t.clock.freeze();
    try {
      const now = t.clock.now();
      const res = await order({
        sessionId: s.sessionId,
        offerId: '',
        ifSeatOccupied: '',
        // tolerated extras (plan §3.6)
        clientContact: { email: 'ops@example.com' },
        useAtlasMailForContact: false,
        payment: { cardType: 'Visa' },
        locale: '',
        requestSource: 'test',
        passengers: [{ ...passenger(lastA, firstA), gender: 'female', ffpCardNo: '', ffpCarrier: null, residentInfo: null, cardIssuePlace: 'JP' }, child()],
        contact: { name: `${lastA}/${firstA}`, email: '', mobile: '0081-312345678', address: '1 Test Street', postcode: '100-0001' },
      });
      assert.equal(res.body.status, 0, res.body.msg ?? '');
      const b = res.body;
      assert.match(b.pnrCode as string, /^[A-Z2-9]{6}$/);
      assert.equal(b.sessionId, s.sessionId);
      assert.equal(b.offerId, null);
      // XQ: EUR 200 + 40 per adult, child 150 + 40; booking fee 5 PER_BOOKING
      assert.equal(b.totalPrice, 240 + 190);
      assert.equal(b.totalTransactionFee, 5);
      assert.equal(b.currency, 'EUR');
      const deadline = new Date(now.getTime() + 30 * 60_000);
      const gmt8 = new Date(deadline.getTime() + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      assert.equal(b.tktLimitTime, gmt8, 'yyyy-MM-dd HH:mm:ss in GMT+8, 30 minutes on');
      const infos = b.paxTicketInfos as Array<Record<string, unknown>>;
      assert.deepEqual(
        infos.map((p) => [p.passengerType, p.gender, p.birthday, p.cardType, p.cardIssuePlace, p.nationality, p.ticketNos, p.airlinePNRs, p.contactEmails, p.contactPhones]),
        [
          [0, 'F', '19900101', 'PP', 'JP', 'JP', [], [], null, ['0081-312345678']],
          [1, 'F', child().birthday, 'PP', null, 'JP', [], [], null, ['0081-312345678']],
        ],
      );
      const routing = b.routing as { routingIdentifier: string; fromSegments: Array<{ flightNumber: string }> };
      assert.match(routing.routingIdentifier, /^rt_/);
      assert.equal(routing.fromSegments[0]!.flightNumber, 'XQ2');
      assert.deepEqual(b.paymentOptions, [
        { paymentMethod: 1, ticketFare: { amount: 430, currency: 'EUR', deductFrom: 'DEPOSIT' }, serviceFee: { amount: 5, currency: 'EUR', deductFrom: 'DEPOSIT' }, paymentFee: null, cardType: null },
        { paymentMethod: 3, ticketFare: { amount: 430, currency: 'EUR', deductFrom: 'CARD' }, serviceFee: { amount: 5, currency: 'EUR', deductFrom: 'DEPOSIT' }, paymentFee: null, cardType: null },
      ]);
      assert.equal(b.duplicateOrders, null);

      // queryOrderDetails.do (plan §3.9): the same order, every field
      const q = (await call(t.app, '/queryOrderDetails.do', { orderNo: b.orderNo, pnrCode: b.pnrCode })).body;
      assert.equal(q.status, 0, q.msg ?? '');
      assert.equal(q.orderStatus, 0);
      assert.equal(q.ticketStatus, '0');
      assert.equal(q.tktLimitTime, gmt8);
      assert.deepEqual([q.totalPrice, q.totalTransactionFee, q.adultTotalFare, q.childTotalFare, q.infantTotalFare, q.totalAncillaryPrice], [430, 5, 240, 190, 0, 0]);
      assert.deepEqual([q.paymentMethod, q.payment, (q.paymentOptions as unknown[]).length], [null, null, 2]);
      assert.deepEqual(q.contact, { name: `${lastA}/${firstA}`, email: null, mobile: '0081-312345678', address: '1 Test Street', postcode: '100-0001', companyName: null });
      const [booking] = q.airlineBookings as Array<{ airlineCode: string; airlinePnr: string; tailDigitsOfPaymentCard: string | null }>;
      assert.equal(booking!.airlineCode, 'XQ');
      assert.match(booking!.airlinePnr, /^[A-Z2-9]{6}$/);
      assert.notEqual(booking!.airlinePnr, b.pnrCode);
      assert.equal(q.ifSeatOccupied, 'SIMILAR_SEAT');
    } finally {
      t.clock.unfreeze();
    }
  });

  test('order.do 307 (names the field), 327 age against the type, 323 e-mail, 410 phone, 407 birthday, 408 child alone, 312 beyond 9', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const one = (p: Record<string, unknown>, extra: Record<string, unknown> = {}) => status({ sessionId: s.sessionId, passengers: [{ ...passenger(lastA, firstA), ...p }], ...extra });
    for (const [p, field] of [
      [{ name: 'NOSLASH' }, 'name'],
      [{ passengerType: 5 }, 'passengerType'],
      [{ passengerType: 'x' }, 'passengerType'],
      [{ gender: 'X' }, 'gender'],
      [{ birthday: '1990-01-01' }, 'birthday'],
      [{ birthday: '19901399' }, 'birthday'],
      [{ birthday: '19900230' }, 'birthday'],
      [{ cardExpired: '2030' }, 'cardExpired'],
      [{ cardExpired: '20301301' }, 'cardExpired'],
    ] as const) {
      const res = await order({ sessionId: s.sessionId, passengers: [{ ...passenger(lastA, firstA), ...p }] });
      assert.equal(res.body.status, 307, field);
      assert.match(String(res.body.msg), new RegExp(field));
    }
    assert.equal(await one({}, { ifSeatOccupied: 'MAYBE' }), 307);
    assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact: { email: 'x@y.z' } }), 307, 'contact.name missing (schema)');
    assert.equal(await status({ sessionId: s.sessionId, passengers: [infant()] }), 307, 'no adult');
    assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), infant(), infant()] }), 307, 'two infants on one adult');
    assert.equal(await status({ sessionId: s.sessionId, passengers: [child()] }), 408);
    assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), { ...child(), birthday: '' }] }), 407);
    // 327: the age against the type, as the fares are priced (a review: an adult at the infant fare paid 10 % of it)
    const flown = t.world.flights.get('bk-narrow')!.current.dep;
    const aged = (years: number, days = 0) => flown.minus({ years }).plus({ days }).toFormat('yyyyMMdd');
    for (const [pax, why] of [
      [{ ...infant(), birthday: '19700101' }, /an infant \(passengerType 2\) is under 2/],
      [{ ...infant(), birthday: aged(2) }, /an infant/],
      [{ ...child(), birthday: aged(12) }, /a child \(passengerType 1\) is under 12/],
      [{ ...passenger(lastB, firstB), birthday: aged(12, 1) }, /an adult \(passengerType 0\) is 12 or older/],
      [{ ...child(), birthday: aged(0, 1) }, /the birthday is after the first flight/],
      [{ ...passenger(lastB, firstB), birthday: '18800101' }, /not a living passenger/],
      [{ ...passenger(lastB, firstB), cardExpired: aged(0, -1) }, /cardExpired: the document expires before the last flight/],
    ] as const) {
      const res = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), pax] });
      assert.equal(res.body.status, 327, `${JSON.stringify(pax)}: ${String(res.body.msg)}`);
      assert.match(String(res.body.msg), why);
      assert.match(String(res.body.msg), /^passengers\[1\]/);
    }
    // the day of the 12th birthday is an adult's, the day before the 2nd an infant's; under 2 a child may take a seat
    for (const pax of [{ ...passenger(lastB, firstB), birthday: aged(12) }, { ...infant(), birthday: aged(2, 1) }, { ...child(), birthday: aged(1) }, { ...passenger(lastB, firstB), cardExpired: aged(0) }]) {
      const res = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), pax] });
      assert.equal(res.body.status, 0, `${JSON.stringify(pax)}: ${String(res.body.msg)}`);
    }
    assert.equal(await one({}, { contact: { ...contact, email: 'not-an-address' } }), 323);
    assert.equal(await one({}, { contact: { ...contact, mobile: '+81 3 1234' } }), 410);
    assert.equal(await one({ passengerType: '0', gender: 'm' }), 0, 'passengerType as a string, gender in lower case');
    assert.equal(await status({ sessionId: s.sessionId, passengers: Array.from({ length: 10 }, () => passenger(lastA, firstA)) }), 312);
  });

  test('order.do 310: an airline that carries no infants; its own hold (45 minutes)', async () => {
    const s = await verifyFlights(t, ['bk-noinfant']);
    assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA), infant()] }), 310);
    t.clock.freeze();
    try {
      const res = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
      assert.equal(res.body.status, 0, res.body.msg ?? '');
      const deadline = new Date(t.clock.now().getTime() + 45 * 60_000 + 8 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
      assert.equal(res.body.tktLimitTime, deadline);
    } finally {
      t.clock.unfreeze();
    }
  });

  test('order.do 308: the fare moved since verify — the new price, nothing booked, the re-priced session books', async () => {
    const s = await verifyFlights(t, ['bk-fare-up']);
    assert.equal((s.routing as unknown as { adultPrice: number }).adultPrice, 300);
    const before = await t.store.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const res = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] });
    assert.equal(res.body.status, 308);
    assert.equal((res.body.routing as { adultPrice: number }).adultPrice, 320, 'the new fare in the routing');
    const after = await t.store.db.selectFrom('orders').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(after.n), Number(before.n), 'no order created');
    assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] }), 308, 'the old session stays at the old price');
    // decision 0008: under a key, its replay is the first answer byte for byte (found by a review: jsonb reordered it)
    const keyed = () => call(t.app, '/order.do', { contact, sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] }, { headers: { 'idempotency-key': 'fare-up-308' } });
    const first = await keyed();
    assert.equal(first.body.status, 308);
    assert.equal((await keyed()).raw, first.raw);
    const retry = await order({ sessionId: res.body.sessionId, passengers: [passenger(lastA, firstA)] });
    assert.equal(retry.body.status, 0, retry.body.msg ?? '');
    assert.equal(retry.body.totalPrice, 370);
  });

  test('order.do 322: a seat price moved since the seat map — the new price, the re-priced session books the same seat code', async () => {
    const s = await verifyFlights(t, ['bk-seat-up']);
    const cabins = (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-seat-up']) })).body.cabins as Cabin[];
    const seat = seatOf(cabins, 1, '12C');
    assert.equal(seat.price, 25);
    const pax = [passenger(lastA, firstA, [{ productCode: seat.productCode, segmentIndex: 1 }])];
    const res = await order({ sessionId: s.sessionId, passengers: pax });
    assert.equal(res.body.status, 322);
    assert.deepEqual(res.body.seatPrices, [{ passengerIndex: 1, segmentIndex: 1, seat: '12C', price: 30, currency: 'EUR' }]);
    const map = (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-seat-up']) })).body.cabins as Cabin[];
    assert.equal(seatOf(map, 1, '12C').seatStatus, 'F', 'nothing sold');
    const retry = await order({ sessionId: res.body.sessionId, passengers: pax });
    assert.equal(retry.body.status, 0, retry.body.msg ?? '');
    assert.equal(retry.body.totalPrice, 240 + 30);
  });

  test("order.do 322: the airline is asked at the seat's price as the caller's map showed it (in its productCode), not at the map's price of the order's moment (found by a review: a price raised between the two was charged unseen)", async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const cabins = (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) })).body.cabins as Cabin[];
    const seat = seatOf(cabins, 1, '15A');
    assert.equal(seat.price, 8);
    assert.match(seat.productCode, /_P800_/, 'the price shown, in minor units');
    // the map the caller saw said 5.00 (the airline's price rose to 8.00 since): its code asks 5.00 of the airline
    const shown = seat.productCode.replace('_P800_', '_P500_');
    const res = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: shown, segmentIndex: 1 }])] });
    assert.equal(res.body.status, 322, String(res.body.msg));
    assert.deepEqual(res.body.seatPrices, [{ passengerIndex: 1, segmentIndex: 1, seat: '15A', price: 8, currency: 'EUR' }]);
    // a code of before the price was in it is asked at the map's price now, as before
    const old = seat.productCode.replace('_P800_', '_');
    const booked = await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: old, segmentIndex: 1 }])] });
    assert.equal(booked.body.status, 0, String(booked.body.msg));
  });

  test('a 308 then a 322: the twice re-priced session books with the seat codes of the session it re-priced (found by a review: 309)', async () => {
    const world = bookingWorld();
    world.flights.push({ id: 'bk-both-up', carrier: 'XS', flightNumber: 'XS783', from: 'JFK', to: 'SGN', departure: '+5d 14:00', arrival: '+7d 00:00', aircraft: '321', seatPrices: [{ rows: { first: 12, last: 13 }, price: 25, currency: 'EUR' }], priceChangeAfterVerify: { fare: 20, seat: 5 } });
    const w = await makeTestApp({ world });
    try {
      const codeOf = async (sessionId: string) => {
        const cabins = (await call(w.app, '/seatAvailability.do', { sessionId, carrier: 'XS', outboundSegments: seatSegments(w, ['bk-both-up']) })).body.cabins as Cabin[];
        return seatOf(cabins, 1, '12C').productCode;
      };
      const s = await verifyFlights(w, ['bk-both-up']);
      const pax = (code: string) => [passenger(lastA, firstA, [{ productCode: code, segmentIndex: 1 }])];
      const fare = await call(w.app, '/order.do', { contact, sessionId: s.sessionId, passengers: pax(await codeOf(s.sessionId)) });
      assert.equal(fare.body.status, 308, String(fare.body.msg));
      const r1 = String(fare.body.sessionId);
      const r1Code = await codeOf(r1);
      const seat = await call(w.app, '/order.do', { contact, sessionId: r1, passengers: pax(r1Code) });
      assert.equal(seat.body.status, 322, String(seat.body.msg));
      const booked = await call(w.app, '/order.do', { contact, sessionId: seat.body.sessionId, passengers: pax(r1Code) });
      assert.equal(booked.body.status, 0, String(booked.body.msg));
    } finally {
      await w.close();
    }
  });

  test('order.do airline-side: 315 no seats, 316 time-out, 317 refused, 324 system, 303 closed — nothing recorded', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const cabins = (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) })).body.cabins as Cabin[];
    const seat = { productCode: seatOf(cabins, 1, '17A').productCode, segmentIndex: 1 };
    const cases: Array<[typeof airlineMode, number]> = [
      ['soldOut', 315],
      ['timeout', 316],
      ['rejected', 317],
      ['unavailable', 324],
      ['closed', 303],
    ];
    try {
      for (const [mode, expected] of cases) {
        airlineMode = mode;
        assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] }), expected, mode);
      }
      // with a seat too (a review: the seat's map was asked for first, and a closed airline answered verify.do's 205)
      airlineMode = 'closed';
      assert.equal(await status({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [seat])] }), 303, 'closed, a seat asked for');
    } finally {
      airlineMode = 'world';
    }
  });

  test('pay.do (plan §3.8): paymentMethod absent = deposit; card checks 400; 411 when the airline cannot issue; the card is never stored', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const o = (await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] })).body;
    const orderNo = o.orderNo as string;
    const pay = (body: Record<string, unknown>) => call(t.app, '/pay.do', { orderNo, ...body });
    for (const [c, why] of [
      [{ cardNumber: '4111111111111112' }, 'Luhn'],
      [{ cardNumber: '000000000000' }, 'all zeros (passes Luhn; no issuer number begins with 0)'],
      [{ cardNumber: '0411111111111111' }, 'a leading 0'],
      [{ paymentLimit: 1 }, 'paymentLimit below the order total'],
      [{ paymentLimit: 0 }, 'paymentLimit 0'],
      [{ paymentLimit: -500 }, 'paymentLimit negative'],
      [{ paymentLimit: 500.001 }, 'paymentLimit with more decimals than the currency has'],
      [{ cardCVV: '12' }, 'CVV 2 digits'],
      [{ cardCVV: '12345' }, 'CVV 5 digits'],
      [{ cardExpireMonth: '13' }, 'month'],
      [{ cardExpireYear: '2020' }, 'expired'],
      [{ cardExpireMonth: '1', cardExpireYear: '26' }, 'expired (two-digit year, by the service clock)'],
      [{ cardHolderLastName: '' }, 'holder'],
    ] as const) {
      const res = await pay({ paymentMethod: 3, creditCard: card(c) });
      assert.equal(res.body.status, 400, `${why}: ${res.body.msg}`);
      assert.ok(!res.raw.includes(CARD_NUMBER));
    }
    const below = await pay({ paymentMethod: 3, creditCard: card({ paymentLimit: 1 }) });
    assert.match(String(below.body.msg), /paymentLimit 1\.00 EUR is below the order's total \d+\.\d\d EUR; nothing was charged/);
    // the sandbox airline declines one test card (docs/world.md): 411, the order still unpaid and payable
    const declined = await pay({ paymentMethod: 3, creditCard: card({ cardNumber: '4000 0000 0000 0002' }) });
    assert.equal(declined.body.status, 411, String(declined.body.msg));
    assert.match(String(declined.body.msg), /nothing was charged/);
    assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo })).body.orderStatus, 0);
    assert.equal((await pay({ paymentMethod: '3', creditCard: card({ cardExpireMonth: 7, cardExpireYear: 31, threeDS: { ip: '192.0.2.1' }, reusable: true, paymentLimit: 500, cardHolderCountry: 'JP' }), clientOrderNo: 'c-1', requestSource: '' })).body.status, 0);
    const row = await t.store.db.selectFrom('booking_orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    assert.equal(row.card_last4, CARD_NUMBER.slice(-4));
    assert.ok(!JSON.stringify(row).includes(CARD_NUMBER) && !JSON.stringify(row).includes('"123"'), 'neither number nor CVV stored');
    const q = (await call(t.app, '/queryOrderDetails.do', { orderNo })).body;
    assert.deepEqual([q.orderStatus, q.paymentMethod, q.paymentOptions, (q.payment as { paymentMethod: number }).paymentMethod], [2, 3, null, 3]);
    assert.equal((q.airlineBookings as Array<{ tailDigitsOfPaymentCard: string }>)[0]!.tailDigitsOfPaymentCard, CARD_NUMBER.slice(-4));

    // the airline's hold gone before payment (released at the airline): it cannot issue → 411, the order stays unpaid
    const s2 = await verifyFlights(t, ['bk-narrow']);
    const o2 = (await order({ sessionId: s2.sessionId, passengers: [passenger(lastA, firstA)] })).body;
    const pnr = ((await call(t.app, '/queryOrderDetails.do', { orderNo: o2.orderNo })).body.airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
    assert.equal(await sandboxAirline!.booking.release('XS', pnr, { signal: AbortSignal.timeout(5000) }), 'released');
    const failed = await call(t.app, '/pay.do', { orderNo: o2.orderNo });
    assert.equal(failed.body.status, 411, failed.body.msg ?? '');
    assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo: o2.orderNo })).body.orderStatus, 0);
  });

  test('pay.do of a claimed order (ticketed at the airline, never booked through order.do): 402, not 404 "already paid" (decision 0023)', async () => {
    // as pnr/claim.do writes one: source claim, ticketed (2), no booking of this chain
    await sql`insert into orders (order_no, client_id, source, status, carrier, airline_pnr, payment_method, currency, total_minor)
              values ('9900000000000001', ${TEST_CLIENTS.alpha.id}, 'claim', '2', 'XS', 'CLMPAY', 'deposit', 'EUR', 50000)`.execute(t.store.db);
    const paid = await call(t.app, '/pay.do', { orderNo: '9900000000000001' });
    assert.equal(paid.body.status, 402, String(paid.body.msg));
    assert.match(String(paid.body.msg), /not booked through order\.do/);
  });

  test('queryOrderDetails.do (plan §3.9): 702 keys missing, 704 keys of two orders, 800, 703, another client', async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    const a = (await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] })).body;
    const b = (await order({ sessionId: s.sessionId, passengers: [passenger(lastB, firstB)] })).body;
    const airlinePnrOf = async (orderNo: unknown) => ((await call(t.app, '/queryOrderDetails.do', { orderNo })).body.airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
    const q = async (body: Record<string, unknown>, client: { id: string; secret: string } = TEST_CLIENTS.alpha) => (await call(t.app, '/queryOrderDetails.do', body, { client })).body.status;
    assert.equal(await q({}), 702);
    assert.equal(await q({ orderNo: '', pnrCode: null }), 702, '"" and null are absent');
    assert.equal(await q({ airlinePNR: 'ABCDEF' }), 702, 'airlinePNR without carrier');
    assert.equal(await q({ carrier: 'XS' }), 702);
    assert.equal(await q({ orderNo: a.orderNo, pnrCode: b.pnrCode }), 704);
    assert.equal(await q({ orderNo: a.orderNo, airlinePNR: await airlinePnrOf(b.orderNo), carrier: 'XS' }), 704);
    // found by pnrCode, the airline PNR still checked (was 0 with order a: found by a review)
    assert.equal(await q({ pnrCode: a.pnrCode, airlinePNR: await airlinePnrOf(b.orderNo), carrier: 'XS' }), 704);
    assert.equal(await q({ pnrCode: a.pnrCode, airlinePNR: await airlinePnrOf(a.orderNo), carrier: 'XS' }), 0);
    assert.equal(await q({ orderNo: a.orderNo, pnrCode: a.pnrCode, airlinePNR: await airlinePnrOf(a.orderNo), carrier: 'xs' }), 0, 'all three of one order');
    assert.equal(await q({ pnrCode: String(a.pnrCode).toLowerCase() }), 0);
    assert.equal(await q({ orderNo: '1234567890123456' }), 800);
    assert.equal(await q({ pnrCode: 'ZZZZZZ' }), 800);
    assert.equal(await q({ airlinePNR: 'ZZZZZZ', carrier: 'XS' }), 703);
    assert.equal(await q({ orderNo: a.orderNo }, TEST_CLIENTS.beta), 800, "another client's order");
  });

  test("queryOrderDetails.do by pnrCode finds a claimed order by the pnrCode it shows (the airline's locator), the caller's only (a review: 800, and 704 beside its orderNo)", async () => {
    // as pnr/claim.do writes them: source claim, no booking of this chain; one PNR held by two carriers, one by another client
    const claimed = async (orderNo: string, client: string, carrier: string, pnr: string) =>
      sql`insert into orders (order_no, client_id, source, status, carrier, airline_pnr, payment_method, currency, total_minor)
          values (${orderNo}, ${client}, 'claim', '2', ${carrier}, ${pnr}, 'deposit', 'EUR', 50000)`.execute(t.store.db);
    await claimed('9900000000000011', TEST_CLIENTS.alpha.id, 'XS', 'CLMQ01');
    await claimed('9900000000000012', TEST_CLIENTS.beta.id, 'XS', 'CLMQ02');
    await claimed('9900000000000013', TEST_CLIENTS.alpha.id, 'XS', 'CLMQ03');
    await claimed('9900000000000014', TEST_CLIENTS.alpha.id, 'XN', 'CLMQ03');
    const s = await verifyFlights(t, ['bk-narrow']);
    const a = (await order({ sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] })).body;
    const q = async (body: Record<string, unknown>, client: { id: string; secret: string } = TEST_CLIENTS.alpha) => (await call(t.app, '/queryOrderDetails.do', body, { client })).body;

    const shown = await q({ orderNo: '9900000000000011' });
    assert.equal(shown.pnrCode, 'CLMQ01');
    const byPnrCode = await q({ pnrCode: 'clmq01' });
    assert.equal(byPnrCode.status, 0, String(byPnrCode.msg));
    assert.equal(byPnrCode.orderNo, '9900000000000011');
    assert.equal((await q({ orderNo: '9900000000000011', pnrCode: 'CLMQ01' })).status, 0);
    assert.equal((await q({ orderNo: '9900000000000011', pnrCode: 'CLMQ01', airlinePNR: 'CLMQ01', carrier: 'XS' })).status, 0);
    assert.equal((await q({ orderNo: '9900000000000011', pnrCode: a.pnrCode })).status, 704);
    assert.equal((await q({ orderNo: a.orderNo, pnrCode: 'CLMQ01' })).status, 704);
    assert.equal((await q({ pnrCode: 'CLMQ01', airlinePNR: 'CLMQ01', carrier: 'XN' })).status, 704);
    // another client's claimed order is not found, nor named beside the caller's orderNo
    assert.equal((await q({ pnrCode: 'CLMQ02' })).status, 800);
    assert.equal((await q({ orderNo: '9900000000000011', pnrCode: 'CLMQ02' })).status, 704);
    assert.equal((await q({ pnrCode: 'CLMQ02' }, TEST_CLIENTS.beta)).orderNo, '9900000000000012');
    // one locator of two carriers: several orders (701), as by airlinePNR without its carrier; each by airlinePNR + carrier
    assert.equal((await q({ pnrCode: 'CLMQ03' })).status, 701);
    assert.equal((await q({ pnrCode: 'CLMQ03', airlinePNR: 'CLMQ03', carrier: 'XN' })).status, 701);
    assert.equal((await q({ orderNo: '9900000000000014', pnrCode: 'CLMQ03' })).status, 0);
    assert.equal((await q({ airlinePNR: 'CLMQ03', carrier: 'XN' })).orderNo, '9900000000000014');
    // an order of the booking chain shows our booking reference: its airline locator is no pnrCode
    const airlinePnrOfA = ((await q({ orderNo: a.orderNo })).airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
    assert.equal((await q({ pnrCode: airlinePnrOfA })).status, 800);
    assert.equal((await q({ orderNo: a.orderNo, pnrCode: airlinePnrOfA })).status, 704);
  });
});

test('a flight that has departed is not sold: verify.do 207, order.do of a session verified before it left 301 (found by a review: both answered 0 and pay.do ticketed it)', async () => {
  const w = bookingWorld();
  w.flights.push(
    { id: 'bk-soon', carrier: 'XS', flightNumber: 'XS791', from: 'HND', to: 'SGN', departure: '+90m', arrival: '+6h', aircraft: '321' },
    { id: 'bk-gone', carrier: 'XS', flightNumber: 'XS792', from: 'HND', to: 'SGN', departure: '-2h', arrival: '+2h', aircraft: '321' },
  );
  const t = await makeTestApp({ world: w });
  try {
    const gone = await call(t.app, '/verify.do', { adultNum: 1, outboundSegments: [verifySeg(t, 'bk-gone')] });
    assert.equal(gone.body.status, 207, String(gone.body.msg));
    const s = await verifyFlights(t, ['bk-soon']);
    t.clock.advance(100 * 60_000); // the flight leaves, and the session with it (decision 0021: 302 before sessions ended at departure)
    const o = await call(t.app, '/order.do', { sessionId: s.sessionId, contact, passengers: [passenger(lastA, firstA)] });
    assert.equal(o.body.status, 301, String(o.body.msg));
    assert.equal((await call(t.app, '/verify.do', { adultNum: 1, outboundSegments: [verifySeg(t, 'bk-soon')] })).body.status, 207);
  } finally {
    await t.close();
  }
});

test('an itinerary mixing fare currencies is not sold: verify.do 207, search.do does not combine it (found by a review: JPY 30000 out and EUR 300 back verified as 60000 JPY)', async () => {
  const w = bookingWorld();
  w.flights.push(
    { id: 'bk-jpy-out', carrier: 'XS', flightNumber: 'XS793', from: 'HND', to: 'SGN', departure: '+12d 10:00', arrival: '+12d 14:00', aircraft: '321', fares: { currency: 'JPY', adult: { fare: 30000, tax: 0 } } },
    { id: 'bk-eur-ret', carrier: 'XS', flightNumber: 'XS794', from: 'SGN', to: 'HND', departure: '+15d 10:00', arrival: '+15d 18:00', aircraft: '321', fares: { currency: 'EUR', adult: { fare: 300, tax: 0 } } },
    { id: 'bk-jpy-ret', carrier: 'XS', flightNumber: 'XS795', from: 'SGN', to: 'HND', departure: '+15d 12:00', arrival: '+15d 20:00', aircraft: '321', fares: { currency: 'JPY', adult: { fare: 31000, tax: 0 } } },
  );
  const t = await makeTestApp({ world: w });
  try {
    const mixed = await call(t.app, '/verify.do', { adultNum: 1, outboundSegments: [verifySeg(t, 'bk-jpy-out')], inboundSegments: [verifySeg(t, 'bk-eur-ret')] });
    assert.equal(mixed.body.status, 207, String(mixed.body.msg));
    const one = await call(t.app, '/verify.do', { adultNum: 1, outboundSegments: [verifySeg(t, 'bk-jpy-out')] });
    assert.equal(one.body.status, 0, String(one.body.msg));
    const depDate = (id: string) => t.world.flights.get(id)!.current.dep.toFormat('yyyyMMdd');
    const found = await call(t.app, '/search.do', { adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'HND', toCity: 'SGN', fromDate: depDate('bk-jpy-out'), retDate: depDate('bk-eur-ret'), tripType: '2' });
    const flightsOf = (r: { fromSegments: Array<{ flightNumber: string }>; retSegments: Array<{ flightNumber: string }> }) => [...r.fromSegments, ...r.retSegments].map((s) => s.flightNumber);
    assert.equal(found.body.status, 0, String(found.body.msg));
    const routings = (found.body.routings ?? []) as Array<Parameters<typeof flightsOf>[0]>;
    const pairs = routings.map((r) => flightsOf(r).join(' '));
    assert.ok(pairs.includes('XS793 XS795'), `the one-currency round trip is offered: ${pairs.join(', ')}`);
    assert.ok(!pairs.some((p) => p.includes('XS794')), `the mixed one is not: ${pairs.join(', ')}`);
  } finally {
    await t.close();
  }
});

test('order.do with Idempotency-Key: a retried or concurrent request books once and answers the first answer; another body with the key 307 (found by a review: three orders, three airline holds)', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, contact, passengers: [passenger(lastA, firstA)] };
    const order = (b: object, key: string) => call(t.app, '/order.do', b, { headers: { 'idempotency-key': key } });
    const orders = async () => Number((await sql<{ n: number }>`select count(*)::int as n from booking_orders`.execute(t.store.db)).rows[0]!.n);
    const before = await orders();
    const [a, b] = await Promise.all([order(body, 'order-retry-1'), order(body, 'order-retry-1')]);
    const c = await order(body, 'order-retry-1');
    assert.equal(a.body.status, 0, String(a.body.msg));
    assert.deepEqual([b.body.orderNo, c.body.orderNo], [a.body.orderNo, a.body.orderNo], 'the first answer, replayed');
    assert.equal((await orders()) - before, 1, 'one order, one airline hold');
    const other = await order({ ...body, passengers: [passenger(lastB, firstB)] }, 'order-retry-1');
    assert.equal(other.body.status, 307, String(other.body.msg));
    const fresh = await order(body, 'order-retry-2');
    assert.equal(fresh.body.status, 0, String(fresh.body.msg));
    assert.notEqual(fresh.body.orderNo, a.body.orderNo, 'another key books again');
  } finally {
    await t.close();
  }
});
