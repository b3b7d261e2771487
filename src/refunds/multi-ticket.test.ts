// One passenger holding two tickets (an outbound and a return, spec 7.1: 804) with a bag bought with the first and
// a post-ticketing bag on the return (found by a review): each extra is refunded once, with the ticket that flies
// its segment, and the client's service fee is charged once for the passenger — both were counted per ticket.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { BOOKED_BY_ALPHA, refundSegment, refundWorld } from '../test-support/refund-world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';

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
  return w;
}

describe('refunds of a passenger with two tickets and extras', () => {
  let t: TestApp;
  let orderNo: string;
  before(async () => {
    t = await makeTestApp({ world: world() });
    orderNo = (await t.store.db.selectFrom('orders').select('order_no').where('airline_pnr', '=', 'TWO009').executeTakeFirstOrThrow()).order_no;
  });
  after(() => t.close());

  const request = (segments: string[]) => ({ orderNo, refundRequestList: [{ lastName: 'DOUBLE', firstName: 'DORA', refundReason: '1', segments: segments.map((s) => refundSegment(t.world, s)) }] });

  test('both tickets: the bag and the post-ticketing bag once each, the fee once (spec 2.3 amounts)', async () => {
    const res = await call(t.app, '/refundQuotation.do', request(['out', 'ret']));
    assert.equal(res.body.status, 0, String(res.body.msg));
    const b = res.body as Record<string, any>;
    // paid: 2 × (200 + 40) + the bag 35 = 515; the ADT rule more than a day out: EUR 50 penalty per ticket
    assert.equal(b.refundFareAmount.originalFareAmount, 515, 'the bag counted once');
    assert.equal(b.refundFareAmount.estimatedRefundAmount, 2 * (240 - 50) + 35);
    assert.equal(b.refundPostTicketingServiceAmounts.originalPostTicketingServiceAmount, 40, 'the post-ticketing bag once');
    assert.equal(b.serviceFee.transactionFee, 5, 'the client fee (EUR 5.00) once for the one passenger');
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
});
