// One passenger holding two tickets (an outbound and a return, spec 7.1: 804) with a bag bought with the first and
// a post-ticketing bag on the return (found by a review): each extra is refunded once, with the ticket that flies
// its segment, and the client's service fee is charged once for the passenger — both were counted per ticket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { BOOKED_BY_ALPHA, refundSegment, refundWorld } from '../test-support/refund-world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';

type Coupons = NonNullable<WorldFile['bookings'][number]['tickets']>[number]['coupons'];

function world(): WorldFile {
  const w = refundWorld();
  w.bookings.push({
    ...BOOKED_BY_ALPHA,
    pnr: 'TWO009',
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'DOUBLE', firstName: 'DORA' }],
    segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
    tickets: [
      {
        ticketNo: '999-2000000921',
        passenger: 'a',
        currency: 'EUR',
        fare: 200,
        tax: 40,
        segments: [1],
        coupons: ['OPEN_FOR_USE'],
        ancillaries: [{ category: 'StandardCheckInBaggage', segment: 1, price: 35, baggage: { piece: 1, weight: 23 } }],
      },
      { ticketNo: '999-2000000922', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [2], coupons: ['OPEN_FOR_USE'] },
    ],
    postTicketingServices: [{ orderNo: 'PT-TWO9', passenger: 'a', category: 'StandardCheckInBaggage', segment: 2, price: 40, currency: 'EUR', baggage: { piece: 1, weight: 23 } }],
  });
  // two passengers of one name (found by a review: the second could never be refunded), and two whose first's ticket
  // the airline refunded (found by a review of the fix: 817 for the second)
  const twoOfOneName = (pnr: string, firstName: string, tickets: [string, string], firstCoupons: Coupons) =>
    w.bookings.push({
      ...BOOKED_BY_ALPHA,
      pnr,
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'SMITH', firstName },
        { ref: 'b', type: 'ADT', lastName: 'SMITH', firstName },
      ],
      segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
      tickets: [
        { ticketNo: tickets[0], passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: firstCoupons },
        { ticketNo: tickets[1], passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] },
      ],
    });
  twoOfOneName('SAME01', 'JOHN', ['999-2000000901', '999-2000000902'], ['OPEN_FOR_USE', 'OPEN_FOR_USE']);
  twoOfOneName('SAME02', 'JANE', ['999-2000000911', '999-2000000912'], ['REFUND', 'REFUND']);
  // one passenger's two tickets refunded by voucher (Voucher Air): the voucher names the passenger once
  w.flights.push({ id: 'xv-ret', carrier: 'XV', flightNumber: 'XV78', from: 'SGN', to: 'HND', departure: '+6d 10:00', arrival: '+6d 16:00', aircraft: '320' });
  w.bookings.push({
    ...BOOKED_BY_ALPHA,
    pnr: 'TWOV01',
    carrier: 'XV',
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'DOUBLE', firstName: 'VERA' }],
    segments: [{ flight: 'xv' }, { flight: 'xv-ret', direction: 'ret' }],
    tickets: [
      { ticketNo: '111-2000000971', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [1], coupons: ['OPEN_FOR_USE'] },
      { ticketNo: '111-2000000972', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [2], coupons: ['OPEN_FOR_USE'] },
    ],
  });
  // an outbound ticket the airline refunded already, the return still open (found by a review: 804 alone, 817 with both)
  w.bookings.push({
    ...BOOKED_BY_ALPHA,
    pnr: 'HALF01',
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'HALF', firstName: 'HANNA' }],
    segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
    tickets: [
      { ticketNo: '999-2000000931', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [1], coupons: ['REFUND'] },
      { ticketNo: '999-2000000932', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [2], coupons: ['OPEN_FOR_USE'] },
    ],
  });
  return w;
}

describe('refunds of a passenger with two tickets and extras', () => {
  let t: TestApp;
  let orderNo: string;
  before(async () => {
    t = await makeTestApp({ world: world() });
    orderNo = await orderNoOfPnr(t.store.db, 'TWO009');
  });
  after(() => t.close());

  const request = (segments: string[]) => ({ orderNo, refundRequestList: [{ lastName: 'DOUBLE', firstName: 'DORA', refundReason: '1', segments: segments.map((s) => refundSegment(t.world, s)) }] });

  test('both tickets: the bag and the post-ticketing bag once each, the fee once (spec 2.4, 2.5 and 2.7 amounts)', async () => {
    const res = await call(t.app, '/refundQuotation.do', request(['out', 'ret']));
    assert.equal(res.body.status, 0, String(res.body.msg));
    const b = res.body as Record<string, any>;
    // paid: 2 × (200 + 40) + the bag 35 = 515; the ADT rule more than a day out: EUR 50 penalty per ticket
    assert.equal(b.refundFareAmount.originalFareAmount, 515, 'the bag counted once');
    assert.equal(b.refundFareAmount.estimatedRefundAmount, 2 * (240 - 50) + 35);
    assert.equal(b.refundPostTicketingServiceAmounts.originalPostTicketingServiceAmount, 40, 'the post-ticketing bag once');
    assert.equal(b.serviceFee.transactionFee, 5, 'the client fee (EUR 5.00) once for the one passenger');
  });

  test('a voucher names the passenger once, not once per ticket (found by a review)', async () => {
    const twov = await orderNoOfPnr(t.store.db, 'TWOV01');
    const req = { orderNo: twov, refundRequestList: [{ lastName: 'DOUBLE', firstName: 'VERA', refundReason: '1', segments: ['xv', 'xv-ret'].map((s) => refundSegment(t.world, s)) }] };
    const res = await call(t.app, '/refundQuotation.do', req);
    assert.equal(res.body.status, 0, String(res.body.msg));
    const vouchers = (res.body as Record<string, any>).refundVouchers as Array<{ eligiblePassengers: unknown }> | null;
    assert.ok(vouchers && vouchers.length === 1, JSON.stringify(res.body));
    assert.deepEqual(vouchers[0]!.eligiblePassengers, [{ name: 'DOUBLE/VERA' }]);
  });

  test('the stored offer gives each ticket its own extras: the airline is asked for what each ticket paid', async () => {
    const res = await call(t.app, '/refundQuotation.do', request(['out', 'ret']));
    assert.equal(res.body.status, 0, String(res.body.msg));
    const offer = await t.store.db.selectFrom('refund_offers').select('quote').where('offer_id', '=', String(res.body.refundOfferId)).executeTakeFirstOrThrow();
    const tickets = (offer.quote as { tickets: Array<{ ticketNo: string; paidMinor: number }> }).tickets;
    assert.deepEqual(
      tickets.map((x) => [x.ticketNo, x.paidMinor]),
      [
        ['9992000000921', 27_500],
        ['9992000000922', 24_000],
      ],
    );
  });

  const orderOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const person = (lastName: string, firstName: string, segments: string[], refundReason = '1') => ({ lastName, firstName, refundReason, segments: segments.map((s) => refundSegment(t.world, s)) });
  const ticketsOf = (body: Record<string, unknown>) => (body.refundTickets as Array<{ ticketNo: string }>).map((x) => x.ticketNo);

  test('spec 7.1: two passengers of one name are each refunded — named twice in one request, or one request each; a third time 803', async () => {
    const same = await orderOf('SAME01');
    const smith = () => person('SMITH', 'JOHN', ['out', 'ret']);
    const both = await call(t.app, '/refundQuotation.do', { orderNo: same, refundRequestList: [smith(), smith()] });
    assert.equal(both.body.status, 0, String(both.body.msg));
    assert.deepEqual(ticketsOf(both.body).sort(), ['9992000000901', '9992000000902']);
    const first = await call(t.app, '/refund.do', { orderNo: same, refundRequestList: [smith()] });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const second = await call(t.app, '/refund.do', { orderNo: same, refundRequestList: [smith()] });
    assert.equal(second.body.status, 0, `the other SMITH/JOHN: ${String(second.body.msg)}`);
    assert.deepEqual([...ticketsOf(first.body), ...ticketsOf(second.body)].sort(), ['9992000000901', '9992000000902']);
    const third = await call(t.app, '/refundQuotation.do', { orderNo: same, refundRequestList: [smith()] });
    assert.equal(third.body.status, 803, String(third.body.msg));
    // a name listed more often than the booking holds it: 810
    const twice = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [person('DOUBLE', 'DORA', ['out', 'ret']), person('DOUBLE', 'DORA', ['out', 'ret'])] });
    assert.equal(twice.body.status, 810, String(twice.body.msg));
    assert.match(String(twice.body.msg), /refundRequestList\[1\] names a passenger already listed/);
  });

  test('two of one name, the first refunded at the airline: the second is quoted (found by a review of the fix: 817)', async () => {
    const same = await orderOf('SAME02');
    const res = await call(t.app, '/refundQuotation.do', { orderNo: same, refundRequestList: [person('SMITH', 'JANE', ['out', 'ret'])] });
    assert.equal(res.body.status, 0, String(res.body.msg));
    assert.deepEqual(ticketsOf(res.body), ['9992000000912']);
  });

  test('spec 7.1 804: a ticket the airline shows refunded is not counted; the open one is refunded alone (817 with both)', async () => {
    const half = await orderOf('HALF01');
    for (const reason of ['0', '1']) {
      const alone = await call(t.app, '/refundQuotation.do', { orderNo: half, refundRequestList: [person('HALF', 'HANNA', ['ret'], reason)] });
      assert.equal(alone.body.status, 0, `reason ${reason}: ${String(alone.body.msg)}`);
      assert.deepEqual(ticketsOf(alone.body), ['9992000000932']);
      const withRefunded = await call(t.app, '/refundQuotation.do', { orderNo: half, refundRequestList: [person('HALF', 'HANNA', ['out', 'ret'], reason)] });
      assert.equal(withRefunded.body.status, 817, String(withRefunded.body.msg));
    }
  });
});
