// The booking chain end to end on the sandbox airline: search → verify → seats → order with a seat → pay →
// extractPnr.do shows the seat → refundQuotation.do quotes the new order; and the chain's own statuses.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, depDate, passenger, seatOf, seatSegments, verifyFlights, birthdayAged, type Cabin } from '../test-support/booking.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;
const [emailA] = PLANTED.emails;
const CARD = '4111 1111 1111 1111';

describe('booking chain end to end', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld() });
  });
  after(() => t.close());

  test('search → verify → seats → order with a seat → pay → extract shows the seat → refund quote', async () => {
    // plan §3.1: the original's search body (tripType as a string, counts as integers, unknown cid tolerated)
    const search = await call(t.app, '/search.do', {
      cid: TEST_CLIENTS.alpha.id,
      tripType: '2',
      adultNum: 1,
      childNum: 0,
      infantNum: 0,
      fromCity: 'HND',
      toCity: 'SGN',
      fromDate: depDate(t, 'bk-narrow'),
      retDate: depDate(t, 'bk-narrow-ret'),
      airlines: ['XS'],
      requestSource: 'test',
    });
    assert.equal(search.body.status, 0, search.body.msg ?? '');
    const routings = search.body.routings as Array<{ routingIdentifier: string; fromSegments: Array<{ flightNumber: string }>; retSegments: Array<{ flightNumber: string }>; adultPrice: number }>;
    const routing = routings.find((r) => r.fromSegments[0]!.flightNumber === 'XS701' && r.retSegments[0]!.flightNumber === 'XS702')!;
    assert.ok(routing, 'the narrow-body flight is found');
    assert.equal(routing.adultPrice, 580);

    // plan §3.2: routingIdentifier alone; the passenger mix comes from the search
    const verify = await call(t.app, '/verify.do', { routingIdentifier: routing.routingIdentifier });
    assert.equal(verify.body.status, 0, verify.body.msg ?? '');
    const sessionId = verify.body.sessionId as string;
    assert.match(sessionId, /^ses_/);
    const r = verify.body.routing as Record<string, unknown>;
    assert.deepEqual(r.ancillarySupported, ['seat', 'luggage']);
    assert.notEqual(r.routingIdentifier, routing.routingIdentifier, 'verify answers a fresh routingIdentifier');
    assert.equal(r.transactionFeeMode, 'PER_PAX');
    assert.equal((r.retSegments as unknown[]).length, 1);

    const seats = await call(t.app, '/seatAvailability.do', {
      sessionId,
      carrier: 'XS',
      outboundSegments: seatSegments(t, ['bk-narrow']),
      inboundSegments: seatSegments(t, ['bk-narrow-ret'], 2),
    });
    assert.equal(seats.body.status, 0, seats.body.msg ?? '');
    const cabins = seats.body.cabins as Cabin[];
    assert.deepEqual(cabins.map((c) => c.segmentIndex), [1, 2]);
    const exit = seatOf(cabins, 1, '12A');
    assert.equal(exit.seatStatus, 'F');
    assert.deepEqual(exit.seatCharacteristics, ['W', 'E', 'IE', 'L']);
    // a middle seat is M, as the original's sample map writes it (a review: '9' was sent)
    assert.deepEqual(seatOf(cabins, 1, '12B').seatCharacteristics, ['M', 'E', 'IE', 'L']);
    assert.equal(exit.price, 25);
    assert.match(exit.productCode, /^SCI_SEAT_12A_XS_HND_SGN_P2500_[A-Za-z0-9]{10}$/);
    assert.equal(seatOf(cabins, 1, '10A').seatStatus, 'O');

    const order = await call(t.app, '/order.do', { sessionId, passengers: [passenger(lastA, firstA, [{ productCode: exit.productCode, segmentIndex: 1 }])], contact });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
    // plan §3.6: totalPrice without the service fee (this airline charges none), the seat per passenger
    assert.equal(order.body.totalPrice, 580 + 95 + 25);
    assert.equal(order.body.totalTransactionFee, 0);
    const info = (order.body.paxTicketInfos as Array<{ name: string; ancillaries: Array<{ auxSeatElement: unknown; ancillaryPrice: number }>; airlinePNRs: string[] }>)[0]!;
    assert.equal(info.name, `${lastA}/${firstA}`);
    assert.deepEqual(info.ancillaries.map((a) => [a.auxSeatElement, a.ancillaryPrice]), [[{ row: '12', column: 'A' }, 25]]);
    assert.deepEqual(info.airlinePNRs, [], 'no airline locator before ticketing');
    const orderNo = order.body.orderNo as string;
    const bookingRef = order.body.pnrCode as string;
    assert.match(bookingRef, /^[A-Z2-9]{6}$/, "pnrCode is postbook's own booking reference");
    const pnr = ((await call(t.app, '/queryOrderDetails.do', { orderNo })).body.airlineBookings as Array<{ airlinePnr: string }>)[0]!.airlinePnr;
    assert.notEqual(pnr, bookingRef);

    // An unpaid order is not refundable yet (809).
    const refundReq = {
      orderNo,
      refundRequestList: [
        {
          lastName: lastA,
          firstName: firstA,
          refundReason: '1',
          segments: ['bk-narrow', 'bk-narrow-ret'].map((id) => {
            const f = t.world.flights.get(id)!;
            return { depDate: depDate(t, id), flightNo: f.flightNumber, depAirport: f.from, arrAirport: f.to };
          }),
        },
      ],
    };
    assert.equal((await call(t.app, '/refundQuotation.do', refundReq)).body.status, 809);

    // The seat now shows O to a later session.
    const later = await verifyFlights(t, ['bk-narrow'], [], { adults: 1 }, TEST_CLIENTS.beta);
    const again = await call(t.app, '/seatAvailability.do', { sessionId: later.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) }, { client: TEST_CLIENTS.beta });
    assert.equal(seatOf(again.body.cabins as Cabin[], 1, '12A').seatStatus, 'O');

    const pay = await call(t.app, '/pay.do', {
      orderNo,
      paymentMethod: 3,
      creditCard: { cardNumber: CARD, cardCVV: '123', cardExpireMonth: '12', cardExpireYear: '2030', cardHolderFirstName: firstA, cardHolderLastName: lastA },
    });
    assert.equal(pay.body.status, 0, pay.body.msg ?? '');
    assert.equal(pay.body.orderStatus, 2);
    assert.equal(pay.body.paymentMethod, 3);
    assert.equal(pay.body.pnrCode, bookingRef);
    assert.deepEqual(pay.body.airlines, ['XS']);
    assert.equal(pay.body.cardLast4, '1111');
    const row = await t.store.db.selectFrom('booking_orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    assert.equal(row.card_last4, '1111');
    assert.ok(!JSON.stringify(row).includes('4111111111111111') && !JSON.stringify(row).includes(CARD), 'the card number is not stored');
    assert.equal((await call(t.app, '/pay.do', { orderNo, paymentMethod: 1 })).body.status, 404);

    const extract = await call(t.app, '/extractPnr.do', {
      airlinePnr: pnr,
      carrier: 'XS',
      passengers: [{ firstName: firstA, lastName: lastA }],
      contact: { email: emailA },
      routing: { fromSegments: [] },
    });
    assert.equal(extract.body.status, 0, extract.body.msg ?? '');
    assert.equal(extract.body.pnrStatus, 'Ticketed');
    assert.ok(JSON.stringify(extract.body).includes('12A'), 'extract shows the seat');

    const quote = await call(t.app, '/refundQuotation.do', refundReq);
    assert.equal(quote.body.status, 0, quote.body.msg ?? '');
    assert.ok(quote.body.refundOfferId);

    const details = await call(t.app, '/queryOrderDetails.do', { orderNo });
    assert.equal(details.body.status, 0);
    assert.equal(details.body.orderStatus, 2);
    assert.equal(details.body.ticketStatus, '1');
    const paxInfo = (details.body.paxTicketInfos as Array<{ ancillaries: Array<{ auxSeatElement: unknown }>; airlinePNRs: string[]; ticketNos: string[] }>)[0]!;
    assert.deepEqual(paxInfo.ancillaries[0]!.auxSeatElement, { row: '12', column: 'A' });
    assert.deepEqual(paxInfo.airlinePNRs, [pnr], 'the airline locator once ticketed');
    assert.equal(paxInfo.ticketNos.length, 1);
    const byPnr = await call(t.app, '/queryOrderDetails.do', { airlinePNR: pnr, carrier: 'XS' });
    assert.equal(byPnr.body.orderNo, orderNo);
    const byRef = await call(t.app, '/queryOrderDetails.do', { pnrCode: bookingRef });
    assert.equal(byRef.body.orderNo, orderNo);
  });

  test('getOffers → seats by offerId → order with bag; luggage by offerId and by sessionId', async () => {
    const f = t.world.flights.get('bk-wide')!;
    const offers = await call(t.app, '/getOffers.do', {
      adults: 2,
      children: 1,
      outboundSegments: [{ carrier: 'XS', departureAirport: 'CDG', arrivalAirport: 'JFK', flightNumber: f.flightNumber, departureDate: depDate(t, 'bk-wide') }],
    });
    assert.equal(offers.body.status, 0, offers.body.msg ?? '');
    const offerId = (offers.body.data as Array<{ offer: { offerID: string } }>)[0]!.offer.offerID;
    assert.match(offerId, /^ofr_/);

    const seats = await call(t.app, '/seatAvailability.do', { offerId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-wide']) });
    assert.equal(seats.body.status, 0, seats.body.msg ?? '');
    const cabins = seats.body.cabins as Cabin[];
    assert.deepEqual(cabins.map((c) => c.cabin.deck), ['Main', 'Upper deck'], 'economy spread over two decks appears once per deck');
    const total = cabins.reduce((n, c) => n + c.cabin.rows.reduce((m, r) => m + r.seats.length, 0), 0);
    assert.equal(total, 31 * 10 + 11 * 4);

    const luggage = await call(t.app, '/getLuggage.do', { offerId });
    assert.equal(luggage.body.status, 0);
    const bag = (luggage.body.data as { ancillaryProductElements: Array<{ productCode: string; categoryCode: string }> }).ancillaryProductElements.find((p) => p.categoryCode === 'StandardCheckInBaggage')!;

    const kid = { ...passenger(lastB, firstB), passengerType: 1, birthday: birthdayAged(8) };
    const order = await call(t.app, '/order.do', {
      offerId,
      passengers: [passenger(lastA, firstA, [{ productCode: bag.productCode, segmentIndex: 1 }, { productCode: seatOf(cabins, 1, '21A').productCode, segmentIndex: 1 }]), passenger(lastB, firstB), kid],
      contact,
    });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
    const session = await verifyFlights(t, ['bk-wide']);
    assert.equal((await call(t.app, '/getLuggage.do', { offerId: session.sessionId })).body.status, 0);
  });
});
