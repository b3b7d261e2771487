// Refund endpoints end to end on the sandbox airline: spec 4.1–4.3, 7.1, docs/architecture.md "Offers and submission",
// the check order and the lifecycle.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { assertAuthenticationRequired } from '../test-support/security.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { BOOKED_BY_ALPHA, GAMMA, refundWorld } from '../test-support/refund-world.js';
import { TestClock } from '../clock.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

/** yyyyMMdd of a world flight's departure (airport-local). */
const depDate = (t: TestApp, flightId: string) => t.world.flights.get(flightId)!.current.dep.toFormat('yyyyMMdd');
const seg = (t: TestApp, flightId: string) => {
  const f = t.world.flights.get(flightId)!;
  return { depDate: depDate(t, flightId), flightNo: f.flightNumber, depAirport: f.from, arrAirport: f.to };
};

const orderNoOf = (t: TestApp, pnr: string) => orderNoOfPnr(t.store.db, pnr);

describe('refundQuotation.do', () => {
  let t: TestApp;
  let dep001: string;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    dep001 = await orderNoOf(t, 'DEP001');
  });
  after(() => t.close());

  const item = (tt: TestApp, last: string, first: string, reason = '1', flights = ['out', 'ret']) => ({
    lastName: last,
    firstName: first,
    refundReason: reason,
    segments: flights.map((f) => seg(tt, f)),
  });

  test('spec 4.1 / refund arithmetic: an accurate voluntary quote, itemised, with an offer', async () => {
    const res = await call(t.app, '/refundQuotation.do', { orderNo: dep001, airlinePNR: null, carrier: null, refundRequestList: [item(t, lastA, firstA)] });
    assert.equal(res.http, 200);
    const b = res.body as any;
    assert.equal(b.status, 0, b.msg);
    assert.equal(b.refundQuoteType, 'AccurateQuote');
    assert.equal(b.isRefundable, true);
    assert.equal(b.refundMethod, 'CashBackToOriginalPayment');
    assert.match(b.refundOfferId, /^rfo_[0-9a-f]{11}[A-Za-z0-9_-]{24}$/);
    // 3 days out: window (1440, 525600] → EUR 50 penalty; fare 420 + tax 85.40 − 50 + bag 35 = 490.40
    assert.deepEqual(b.refundFareAmount, { currency: 'EUR', originalFareAmount: 540.4, estimatedRefundAmount: 490.4, displayOriginalFareAmount: null, displayEstimatedRefundAmount: null });
    assert.equal(b.refundVouchers, null);
    assert.equal(b.refundPostTicketingServiceAmounts, null);
    assert.deepEqual(b.serviceFee, { currency: 'EUR', transactionFee: 5 });
    assert.deepEqual(b.refundTickets, [{ lastName: lastA, firstName: firstA, ticketNo: '9992000000001' }]);
    assert.equal(b.orderNo, dep001);
    assert.equal(b.fastConfirmation, 0);
    const today = DateTime.fromJSDate(t.clock.now(), { zone: 'UTC' });
    assert.equal(b.expectedConfirmationDate, today.plus({ days: 2 }).toFormat('yyyyMMdd'));
    assert.equal(b.expectedRefundDate, today.plus({ days: 9 }).toFormat('yyyyMMdd'));
    // refundRules: the airline's rules for ADT (typed ADT or generic)
    assert.ok(b.refundRules.length >= 4);
    assert.ok(b.refundRules.every((r: any) => r.airline === 'XS' && (r.passengerType === undefined || r.passengerType === 'ADT')));
    for (const forbidden of ['refundStatus', 'refundCode', 'cancelReason', 'refundReason', 'displayCurrency']) assert.equal(forbidden in b, false, forbidden);
  });

  test('post-ticketing services come as one object in the quote (spec 2.5)', async () => {
    const res = await call(t.app, '/refundQuotation.do', { orderNo: dep001, refundRequestList: [item(t, lastB, firstB, '0')] });
    const b = res.body as any;
    assert.equal(b.status, 0, b.msg);
    assert.deepEqual(b.refundPostTicketingServiceAmounts, {
      postTicketingOrderNo: 'PT-DEP1',
      currency: 'EUR',
      originalPostTicketingServiceAmount: 40,
      estimatedRefundAmount: 40,
      displayPostTicketingServiceAmount: null,
      displayEstimatedRefundAmount: null,
    });
  });

  test('by airlinePNR + carrier as well as by orderNo', async () => {
    const res = await call(t.app, '/refundQuotation.do', { orderNo: null, airlinePNR: 'dep001', carrier: 'XS', refundRequestList: [item(t, lastA, firstA)] });
    assert.equal(res.body.status, 0, String(res.body.msg));
  });

  test('spec 7.1: every check answers its code, in the documented order', async () => {
    const fam = await orderNoOf(t, 'FAM001');
    const cases: Array<[string, Record<string, unknown>, number]> = [
      ['810 no order reference', { refundRequestList: [item(t, lastA, firstA)] }, 810],
      ['810 unsupported reason (medical)', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA, '2')] }, 810],
      ['810 a departure date that does not exist', { orderNo: dep001, refundRequestList: [{ ...item(t, lastA, firstA), segments: [{ ...seg(t, 'out'), depDate: '20261340' }, seg(t, 'ret')] }] }, 810],
      ['810 mixed reasons', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA, '0'), item(t, lastB, firstB, '1')] }, 810],
      ['801 unknown order', { orderNo: '1234567890123456', refundRequestList: [item(t, lastA, firstA)] }, 801],
      ['824 ancillary order number', { orderNo: 'PT-DEP1', refundRequestList: [item(t, lastA, firstA)] }, 824],
      ['809 not ticketed', { orderNo: await orderNoOf(t, 'HOLD02'), refundRequestList: [item(t, 'WAIT', 'WALT', '1', ['out'])] }, 809],
      ['841 merchant payment', { orderNo: await orderNoOf(t, 'MER001'), refundRequestList: [item(t, 'MERCH', 'MO', '1', ['out'])] }, 841],
      ['807 passenger not on the order', { orderNo: dep001, refundRequestList: [item(t, 'NOBODY', firstA)] }, 807],
      ['812 inconsistent first name', { orderNo: dep001, refundRequestList: [item(t, lastA, 'SOMEONE')] }, 812],
      ['8041 segment not on the order', { orderNo: dep001, refundRequestList: [{ ...item(t, lastA, firstA), segments: [seg(t, 'out'), { ...seg(t, 'ret'), flightNo: 'XS999' }] }] }, 8041],
      ['811 a leg left out', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA, '1', ['out'])] }, 811],
      ['820 a coupon used', { orderNo: await orderNoOf(t, 'USED02'), refundRequestList: [item(t, 'FLOWN', 'FIA', '0', ['past', 'ret'])] }, 820],
      ['802 child left alone', { orderNo: fam, refundRequestList: [item(t, 'PARENT', 'PAT', '1', ['out'])] }, 802],
      ['823 partial void', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA, '4')] }, 823],
      ['822 void after the issue day', { orderNo: await orderNoOf(t, 'OLD001'), refundRequestList: [item(t, 'OLDIE', 'OZ', '4', ['out'])] }, 822],
      ['806 own B2B account', { orderNo: await orderNoOf(t, 'OWN001'), refundRequestList: [item(t, 'OWNER', 'OLA', '1', ['out'])] }, 806],
    ];
    for (const [name, body, status] of cases) {
      const res = await call(t.app, '/refundQuotation.do', body);
      assert.equal(res.http, 200, name);
      assert.equal(res.body.status, status, `${name}: got ${res.body.status} ${res.body.msg}`);
      assert.equal(typeof res.body.msg, 'string');
    }
  });

  test('another client’s order answers exactly like an unknown one (801)', async () => {
    const theirs = await call(t.app, '/refundQuotation.do', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA)] }, { client: TEST_CLIENTS.beta });
    const unknown = await call(t.app, '/refundQuotation.do', { orderNo: '1234567890123456', refundRequestList: [item(t, lastA, firstA)] }, { client: TEST_CLIENTS.beta });
    assert.equal(theirs.body.status, 801);
    assert.equal(theirs.raw, unknown.raw);
  });

  test('validation names the field (810)', async () => {
    const res = await call(t.app, '/refundQuotation.do', { orderNo: dep001, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [{ depDate: '2026-01-01', flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' }] }] });
    assert.equal(res.body.status, 810);
    assert.match(String(res.body.msg), /refundRequestList.0.segments.0.depDate/);
  });

  test('spec 5: authentication', async () => {
    await assertAuthenticationRequired(t.app, '/refundQuotation.do', { orderNo: dep001, refundRequestList: [item(t, lastA, firstA)] });
    await assertAuthenticationRequired(t.app, '/refund.do', { orderNo: dep001, refundOfferId: 'rfo_x' });
    await assertAuthenticationRequired(t.app, '/queryRefundOrders.do', { orderNo: dep001 });
  });
});

describe('refund.do and queryRefundOrders.do', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const item = (last: string, first: string, reason = '1', flights = ['out', 'ret']) => ({
    lastName: last,
    firstName: first,
    refundReason: reason,
    segments: flights.map((f) => seg(t, f)),
  });

  test('quote → submit by refundOfferId → query: status 0, every §2.9/§2.10 field', async () => {
    const orderNo = await orderNoOf(t, 'DEP001');
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item(lastA, firstA)] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const offerId = String(quote.body.refundOfferId);

    const submitted = await call(t.app, '/refund.do', { orderNo, refundOfferId: offerId, refundRequestList: null, displayCurrency: 'USD' });
    const s = submitted.body as any;
    assert.equal(s.status, 0, s.msg);
    assert.match(s.refundCode, /^\d{24}$/);
    assert.equal(s.refundStatus, 0);
    assert.equal(s.refundReason, '1');
    assert.equal(s.cancelReason, null);
    assert.equal(s.displayCurrency, 'USD');
    assert.equal(s.refundOfferId, offerId);
    // display amounts through the configured rate EUR/USD 1.08, half-up once
    assert.equal(s.refundFareAmount.estimatedRefundAmount, 490.4);
    assert.equal(s.refundFareAmount.displayEstimatedRefundAmount, 529.63);
    assert.deepEqual(s.serviceFee, { currency: 'EUR', transactionFee: 5, displayTransactionFee: 5.4 });

    // the offer is single use: 813
    const again = await call(t.app, '/refund.do', { orderNo, refundOfferId: offerId });
    assert.equal(again.body.status, 813);

    // the same passenger again → 803
    const dup = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item(lastA, firstA)] });
    assert.equal(dup.body.status, 803);

    const q = await call(t.app, '/queryRefundOrders.do', { orderNo, refundCode: s.refundCode });
    const r = (q.body as any).refundOrders;
    assert.equal(q.body.status, 0);
    assert.equal(r.length, 1);
    assert.equal(r[0].refundCode, s.refundCode);
    assert.equal(r[0].refundStatus, 0);
    assert.equal(r[0].orderNo, orderNo);
    assert.equal(r[0].refundOfferId, offerId);
    assert.equal(r[0].displayCurrency, 'USD');
    assert.equal(r[0].refundPostTicketingServiceAmounts, null);
    for (const k of ['expectedConfirmationDate', 'expectedRefundDate', 'refundQuoteType', 'refundTickets', 'serviceFee', 'refundRules', 'refundMethod', 'cancelReason', 'refundVouchers']) {
      assert.ok(k in r[0], k);
    }
    // by code alone, and by airlinePNR + carrier
    const byCode = await call(t.app, '/queryRefundOrders.do', { refundCode: s.refundCode });
    assert.equal((byCode.body as any).refundOrders.length, 1);
    const byPnr = await call(t.app, '/queryRefundOrders.do', { airlinePNR: 'DEP001', carrier: 'XS' });
    assert.equal((byPnr.body as any).refundOrders[0].refundCode, s.refundCode);
    // another client: exactly like unknown (801)
    const theirs = await call(t.app, '/queryRefundOrders.do', { orderNo }, { client: TEST_CLIENTS.beta });
    const unknown = await call(t.app, '/queryRefundOrders.do', { orderNo: '1111111111111111' }, { client: TEST_CLIENTS.beta });
    assert.equal(theirs.body.status, 801);
    assert.equal(theirs.raw, unknown.raw);
    assert.deepEqual((theirs.body as any).refundOrders, []);
  });

  test('spec 4.3 (the order "not shown"; decision 0010: newest first): several refunds of one order come newest first; refundCode narrows; post-ticketing as an array', async () => {
    const orderNo = await orderNoOf(t, 'DEP001');
    t.clock.advance(1000);
    const second = await call(t.app, '/refund.do', { orderNo, refundRequestList: [item(lastB, firstB, '0')] });
    assert.equal(second.body.status, 0, String(second.body.msg));
    const all = (await call(t.app, '/queryRefundOrders.do', { orderNo })).body as any;
    assert.equal(all.refundOrders.length, 2);
    assert.equal(all.refundOrders[0].refundCode, second.body.refundCode, 'newest first');
    assert.deepEqual(all.refundOrders[0].refundPostTicketingServiceAmounts, [
      { postTicketingOrderNo: 'PT-DEP1', currency: 'EUR', originalPostTicketingServiceAmount: 40, estimatedRefundAmount: 40, displayPostTicketingServiceAmount: null, displayEstimatedRefundAmount: null },
    ]);
    const one = (await call(t.app, '/queryRefundOrders.do', { orderNo, refundCode: all.refundOrders[1].refundCode, displayCurrency: 'USD' })).body as any;
    assert.equal(one.refundOrders.length, 1);
    assert.equal(one.refundOrders[0].displayCurrency, 'USD');
  });

  test('a newer quote supersedes the older offer (813); an expired offer answers 805', async () => {
    const orderNo = await orderNoOf(t, 'FAM001');
    const body = { orderNo, refundRequestList: [item('PARENT', 'PAT', '0', ['out']), item('PARENT', 'KIM', '0', ['out'])] };
    const first = await call(t.app, '/refundQuotation.do', body);
    const second = await call(t.app, '/refundQuotation.do', body);
    assert.equal(first.body.status, 0, String(first.body.msg));
    const superseded = await call(t.app, '/refund.do', { orderNo, refundOfferId: first.body.refundOfferId });
    assert.equal(superseded.body.status, 813);
    assert.match(String(superseded.body.msg), /newer quote/);
    t.clock.advance(31 * 60_000); // offers live 30 minutes by default (OFFER_TTL_MINUTES)
    const expired = await call(t.app, '/refund.do', { orderNo, refundOfferId: second.body.refundOfferId });
    assert.equal(expired.body.status, 805);
    const unknown = await call(t.app, '/refund.do', { orderNo, refundOfferId: 'rfo_doesnotexist' });
    assert.equal(unknown.body.status, 813);
  });

  test('refund.do by refundRequestList quotes and submits in one step; Idempotency-Key replays it', async () => {
    const orderNo = await orderNoOf(t, 'FAM001');
    const body = { orderNo, refundOfferId: null, refundRequestList: [item('PARENT', 'PAT', '0', ['out']), item('PARENT', 'KIM', '0', ['out'])] };
    const key = { 'idempotency-key': 'fam-refund-1' };
    const first = await call(t.app, '/refund.do', body, { headers: key });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const replay = await call(t.app, '/refund.do', body, { headers: key });
    assert.equal(replay.raw, first.raw);
    const rows = await t.store.db.selectFrom('refund_orders').selectAll().where('order_no', '=', orderNo).execute();
    assert.equal(rows.length, 1);
    const history = await t.store.db.selectFrom('refund_status_history').selectAll().where('refund_code', '=', String(first.body.refundCode)).execute();
    assert.deepEqual(history.map((h) => [h.from_status, h.to_status]), [[null, 0]]);
    const both = await call(t.app, '/refund.do', { ...body, refundOfferId: 'rfo_x' });
    assert.equal(both.body.status, 810);
  });

  test('spec 7.1 814: submissions of one offer while the first is being written answer 814; after it, 813 (found by a review: 813 at once)', async () => {
    const orderNo = await orderNoOf(t, 'VCH001');
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item('VOUCHERS', 'ANN', '1', ['xv'])] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const submit = () => call(t.app, '/refund.do', { orderNo, refundOfferId: quote.body.refundOfferId });
    const answers = (await Promise.all([submit(), submit(), submit()])).map((r) => r.body.status).sort();
    assert.deepEqual(answers, [0, 814, 814]);
    assert.equal((await submit()).body.status, 813);
  });

  test('refund.do: 826 (tax status not confirmed yet) is not replayed under its Idempotency-Key: the retry its msg asks for reaches the order (found by a review)', async () => {
    const orderNo = await orderNoOf(t, 'TAX002');
    const body = { orderNo, refundRequestList: [item('TAXY', 'ANN', '1', ['out'])] };
    const key = { 'idempotency-key': 'tax-refund-1' };
    assert.equal((await call(t.app, '/refund.do', body, { headers: key })).body.status, 826);
    // the airline confirms the tax status meanwhile
    await t.store.db.updateTable('tickets').set({ tax_status_confirmed: true }).where('order_no', '=', orderNo).execute();
    const retry = await call(t.app, '/refund.do', body, { headers: key });
    assert.equal(retry.body.status, 0, String(retry.body.msg));
    assert.equal((await call(t.app, '/refund.do', body, { headers: key })).raw, retry.raw, 'the success is replayed');
  });

  test('825: a voluntary refund after departure goes to the operator console; the quote still answers', async () => {
    const orderNo = await orderNoOf(t, 'PAST01');
    const body = { orderNo, refundRequestList: [item('LATE', 'LOU', '1', ['past'])] };
    const quote = await call(t.app, '/refundQuotation.do', body);
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    // rule with a negative window: tax back less the EUR 10 airline fee
    assert.equal((quote.body as any).refundFareAmount.estimatedRefundAmount, 40);
    const submit = await call(t.app, '/refund.do', { orderNo, refundOfferId: quote.body.refundOfferId });
    assert.equal(submit.body.status, 825);
  });
});

describe('spec 7.1: the remaining refund codes, each provoked', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const one = (last: string, first: string, flights: string[], reason = '1') => ({
    lastName: last,
    firstName: first,
    refundReason: reason,
    segments: flights.map((f) => seg(t, f)),
  });
  const quote = async (pnr: string, items: unknown[], client: { id: string; secret: string } = TEST_CLIENTS.alpha) =>
    call(t.app, '/refundQuotation.do', { orderNo: await orderNoOf(t, pnr), refundRequestList: items }, { client });
  const submit = async (pnr: string, items: unknown[]) => call(t.app, '/refund.do', { orderNo: await orderNoOf(t, pnr), refundRequestList: items });

  test('842 airline without refund service; 843 route not served; 843 void not covered', async () => {
    assert.equal((await quote('NSV001', [one('NOSERVICE', 'ANN', ['xq'])])).body.status, 842);
    assert.equal((await quote('RTE001', [one('ROUTE', 'ANN', ['xr'])])).body.status, 843);
    assert.equal((await quote('NRF001', [one('NONREF', 'ANN', ['xz'], '4')])).body.status, 843);
  });

  test('815 a passenger without a ticket (infant on the adult’s ticket); the adult alone is refunded and voided, the infant leaving with her (found by a review: 802)', async () => {
    assert.equal((await quote('INF001', [one('LAP', 'LIO', ['out'])])).body.status, 815);
    assert.equal((await quote('INF001', [one('LAP', 'LENA', ['out'])])).body.status, 0); // spec 7.1: not 802
    assert.equal((await quote('INF001', [one('LAP', 'LENA', ['out'], '4')])).body.status, 0, 'a void of the whole booking: not 823');
  });

  test('804 a passenger holding two tickets in one PNR must refund both', async () => {
    assert.equal((await quote('TWO001', [one('TWOTICKETS', 'TIM', ['out'])])).body.status, 804);
    assert.equal((await quote('TWO001', [one('TWOTICKETS', 'TIM', ['out', 'ret'])])).body.status, 0);
    // every segment sent, split over two entries of one passenger: 810 naming the second entry, not 804 (a review)
    const split = await quote('TWO001', [one('TWOTICKETS', 'TIM', ['out']), one('TWOTICKETS', 'TIM', ['ret'])]);
    assert.equal(split.body.status, 810, String(split.body.msg));
    assert.match(String(split.body.msg), /refundRequestList\[1\] names a passenger already listed; list all of a passenger's segments in one entry/);
  });

  test('817 the airline already shows the ticket refunded', async () => {
    assert.equal((await quote('RFD001', [one('ELSEWHERE', 'ED', ['out'])])).body.status, 817);
  });

  test('816 one refund per booking; 818 a void after a refund', async () => {
    assert.equal((await submit('ONE001', [one('ONCE', 'OTTO', ['xo'], '0')])).body.status, 0);
    assert.equal((await quote('ONE001', [one('ONCE', 'OLGA', ['xo'], '0')])).body.status, 816);
    assert.equal((await submit('VOID01', [one('VOIDER', 'VAL', ['out'], '1')])).body.status, 0);
    assert.equal((await quote('VOID01', [one('VOIDER', 'VIC', ['out'], '4')])).body.status, 818);
  });

  test('821 refund deadline passed', async () => {
    assert.equal((await quote('DDL001', [one('DEADLINE', 'ANN', ['xd'], '0')])).body.status, 821);
  });

  test('826 tax status unconfirmed', async () => {
    assert.equal((await quote('TAX002', [one('TAXY', 'ANN', ['out'])])).body.status, 826);
  });

  test('840 the client’s own cancellation criteria', async () => {
    const res = await quote('CRIT01', [one('CRITERIA', 'ANN', ['out'])], GAMMA);
    assert.equal(res.body.status, 840);
    // an involuntary refund is not the client's cancellation
    assert.equal((await quote('CRIT01', [one('CRITERIA', 'ANN', ['out'], '0')], GAMMA)).body.status, 0);
  });

  test('808 submitting a non-refundable quote; the quote itself says isRefundable false', async () => {
    const q = await quote('NRF001', [one('NONREF', 'ANN', ['xz'])]);
    assert.equal(q.body.status, 0);
    assert.equal(q.body.isRefundable, false);
    const s = await call(t.app, '/refund.do', { orderNo: await orderNoOf(t, 'NRF001'), refundOfferId: q.body.refundOfferId });
    assert.equal(s.body.status, 808);
  });

  test('819 a refund claim for a booking paid outside any known method', async () => {
    const f = t.world.flights.get('out')!;
    const claim = await call(t.app, '/pnr/claim.do', {
      mmb: { airlinePnr: 'CLM001', email: PLANTED.emails[0] },
      passengers: [{ name: 'CLAIMED/ANN' }],
      fromSegments: [{ carrier: 'XS', flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.scheduled.dep.toFormat('yyyyMMddHHmm') }],
    });
    assert.equal(claim.body.status, 0, String(claim.body.msg));
    const res = await call(t.app, '/refundQuotation.do', { orderNo: claim.body.orderNo, refundRequestList: [one('CLAIMED', 'ANN', ['out'])] });
    assert.equal(res.body.status, 819);
  });
});

describe('a departure in an autumn overlap hour (found by a review)', () => {
  test('825 reads the departure as the engine prices it (the earlier 02:30 of the two in Paris), not the stored instant', async () => {
    const w = refundWorld();
    w.flights.push({ id: 'dst', carrier: 'XS', flightNumber: 'XS541', from: 'CDG', to: 'JFK', departure: '2026-10-25 02:30', arrival: '2026-10-25 06:00', aircraft: '320', fares: { currency: 'EUR', adult: { fare: 200, tax: 40 } } });
    w.bookings.push({
      ...BOOKED_BY_ALPHA,
      issuedAt: '-1d 08:00',
      pnr: 'DST001',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'OVERLAP', firstName: 'OLE' }],
      segments: [{ flight: 'dst' }],
      tickets: [{ ticketNo: '999-2000000941', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] }],
    });
    // 00:45Z is 02:45 summer time: 15 minutes after the first 02:30 (00:30Z), 45 minutes before the second (01:30Z)
    const t = await makeTestApp({ world: w, clock: new TestClock(() => Date.UTC(2026, 9, 25, 0, 45)) });
    try {
      const orderNo = await orderNoOfPnr(t.store.db, 'DST001');
      const req = { orderNo, refundRequestList: [{ lastName: 'OVERLAP', firstName: 'OLE', refundReason: '1', segments: [{ depDate: '20261025', flightNo: 'XS541', depAirport: 'CDG', arrAirport: 'JFK' }] }] };
      assert.equal((await call(t.app, '/refund.do', req)).body.status, 825); // spec 7.1: a voluntary refund after departure
    } finally {
      await t.close();
    }
  });
});

describe('the last minute before departure (found by a review)', () => {
  test('30 s before departure is priced by the after-departure rule (the minute floored, DESIGN) and refund.do answers 825, as after it; 61 s before is not', async () => {
    const w = refundWorld();
    w.flights.push({ id: 'soon', carrier: 'XS', flightNumber: 'XS543', from: 'CDG', to: 'JFK', departure: '2026-06-10 12:00', arrival: '2026-06-10 15:00', aircraft: '320', fares: { currency: 'EUR', adult: { fare: 200, tax: 40 } } });
    w.bookings.push({
      ...BOOKED_BY_ALPHA,
      issuedAt: '-1d 08:00',
      pnr: 'SOON01',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'SOON', firstName: 'SAM' }],
      segments: [{ flight: 'soon' }],
      tickets: [{ ticketNo: '999-2000000951', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] }],
    });
    // 12:00 in Paris (summer time) is 10:00Z
    const departs = Date.UTC(2026, 5, 10, 10, 0);
    let at = departs - 61_000;
    const t = await makeTestApp({ world: w, clock: new TestClock(() => at) });
    try {
      const orderNo = await orderNoOfPnr(t.store.db, 'SOON01');
      const req = { orderNo, refundRequestList: [{ lastName: 'SOON', firstName: 'SAM', refundReason: '1', segments: [{ depDate: '20260610', flightNo: 'XS543', depAirport: 'CDG', arrAirport: 'JFK' }] }] };
      const before = await call(t.app, '/refundQuotation.do', req);
      at = departs - 30_000;
      const last = await call(t.app, '/refundQuotation.do', req);
      assert.equal(before.body.status, 0, String(before.body.msg));
      assert.equal(last.body.status, 0, String(last.body.msg));
      const amount = (q: typeof before) => (q.body as Record<string, any>).refundFareAmount.estimatedRefundAmount as number;
      assert.notEqual(amount(last), amount(before), 'another rule: the after-departure one');
      // spec 7.1: 825, a voluntary refund after departure — as the quote priced it
      assert.equal((await call(t.app, '/refund.do', req)).body.status, 825);
      at = departs - 61_000;
      assert.equal((await call(t.app, '/refund.do', req)).body.status, 0, 'a minute and more before: submitted');
    } finally {
      await t.close();
    }
  });
});

describe('817 for a ticket the airline shows partly refunded', () => {
  // spec 1 rule 2: only a whole ticket is refunded, so one refunded coupon leaves nothing to refund (a review: a
  // ticket with its outbound coupon refunded was quoted, and paid, in full)
  test('one coupon of two at REFUND: 817 for the quote and the submission, voluntary or involuntary', async () => {
    const world = refundWorld();
    world.bookings.push({
      ...BOOKED_BY_ALPHA,
      pnr: 'HALF01',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'HALFWAY', firstName: 'HAL' }],
      segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
      tickets: [{ ticketNo: '999-2000000991', passenger: 'a', currency: 'EUR', fare: 400, tax: 100, coupons: ['REFUND', 'OPEN_FOR_USE'] }],
    });
    const t = await makeTestApp({ world });
    try {
      const orderNo = await orderNoOf(t, 'HALF01');
      for (const reason of ['1', '0']) {
        const list = [{ lastName: 'HALFWAY', firstName: 'HAL', refundReason: reason, segments: ['out', 'ret'].map((f) => seg(t, f)) }];
        assert.equal((await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: list })).body.status, 817, `quote, reason ${reason}`);
        assert.equal((await call(t.app, '/refund.do', { orderNo, refundRequestList: list })).body.status, 817, `submit, reason ${reason}`);
      }
    } finally {
      await t.close();
    }
  });
});

describe('rates after a world reload', () => {
  test("a world reload with new rates reaches the next quote's display amounts (found by a review: the start's rates until a restart)", async () => {
    const t = await makeTestApp({ world: refundWorld() });
    try {
      const orderNo = await orderNoOf(t, 'DEP001');
      const list = [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: ['out', 'ret'].map((f) => seg(t, f)) }];
      // what a reload does to this process's world (src/console/world.ts): replaced in place (the world's was 1.08)
      Object.assign(t.world, { rates: { ...t.world.rates, 'EUR/USD': '2.00' } });
      const submitted = (await call(t.app, '/refund.do', { orderNo, displayCurrency: 'USD', refundRequestList: list })).body as { status: number; msg: string; refundFareAmount: { estimatedRefundAmount: number; displayEstimatedRefundAmount: number } };
      assert.equal(submitted.status, 0, submitted.msg);
      assert.equal(submitted.refundFareAmount.displayEstimatedRefundAmount, Math.round(submitted.refundFareAmount.estimatedRefundAmount * 2 * 100) / 100);
    } finally {
      await t.close();
    }
  });
});

test("refund.do whose request failed after its refund was made: the retry under its Idempotency-Key answers that refund, not 813/803 (found by a review: the refusal was replayed for good; decision 0008)", async () => {
  const t = await makeTestApp({ world: refundWorld() });
  try {
    const scheduler = t.workers.lifecycle.scheduler;
    const submitted = scheduler.submitted.bind(scheduler);
    // the refund commits, then the request fails before it answers (as a crash between the two would)
    const failOnce = () => {
      scheduler.submitted = () => {
        scheduler.submitted = submitted;
        throw new Error('the process failed after the commit');
      };
    };
    const item = (last: string, first: string, flights: string[]) => ({ lastName: last, firstName: first, refundReason: '1', segments: flights.map((f) => seg(t, f)) });
    const dep001 = await orderNoOf(t, 'DEP001');
    const quote = await call(t.app, '/refundQuotation.do', { orderNo: dep001, refundRequestList: [item(lastA, firstA, ['out', 'ret'])] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const byOffer = { orderNo: dep001, refundOfferId: quote.body.refundOfferId };
    const byList = { orderNo: dep001, refundRequestList: [item(lastB, firstB, ['out', 'ret'])] };
    for (const [label, body] of [['by offer', byOffer], ['by list', byList]] as const) {
      const key = { 'idempotency-key': `resumed-${label.replace(' ', '-')}` };
      failOnce();
      const failed = await call(t.app, '/refund.do', body, { headers: key });
      assert.equal(failed.http, 500, label);
      const made = await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', dep001).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      const retry = await call(t.app, '/refund.do', body, { headers: key });
      assert.equal(retry.body.status, 0, `${label}: ${String(retry.body.msg)}`);
      assert.equal(retry.body.refundCode, made.refund_code, `${label}: the refund the failed request made`);
      const replay = await call(t.app, '/refund.do', body, { headers: key });
      assert.equal(replay.body.refundCode, made.refund_code, `${label}: replayed`);
      // without the key the same body is refused as before: nothing of another request is answered
      const other = await call(t.app, '/refund.do', body);
      assert.ok([813, 803].includes(Number(other.body.status)), `${label}: ${String(other.body.status)}`);
    }
    const rows = await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', dep001).execute();
    assert.equal(rows.length, 2, 'one refund each, none twice');
  } finally {
    await t.close();
  }
});

describe('passengers the airline refunded, post-ticketing orders, refund codes and vouchers (found by a review)', () => {
  let t: TestApp;
  before(async () => {
    const w = refundWorld();
    w.bookings.push(
      {
        ...BOOKED_BY_ALPHA,
        pnr: 'KID001',
        passengers: [
          { ref: 'a', type: 'ADT', lastName: 'KIDD', firstName: 'ALMA' },
          { ref: 'b', type: 'ADT', lastName: 'KIDD', firstName: 'BEN' },
          { ref: 'k', type: 'CHD', lastName: 'KIDD', firstName: 'KAI' },
        ],
        segments: [{ flight: 'out' }],
        tickets: [
          { ticketNo: '999-2000000904', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['REFUND'] },
          { ticketNo: '999-2000000905', passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
          { ticketNo: '999-2000000906', passenger: 'k', currency: 'EUR', fare: 100, tax: 40, coupons: ['OPEN_FOR_USE'] },
        ],
      },
      {
        ...BOOKED_BY_ALPHA,
        pnr: 'PTX001',
        passengers: [{ ref: 'a', type: 'ADT', lastName: 'BAGGY', firstName: 'BO' }],
        segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
        tickets: [{ ticketNo: '999-2000000901', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] }],
        // one post-ticketing order: a bag on each leg
        postTicketingServices: [
          { orderNo: 'PT-X', passenger: 'a', category: 'StandardCheckInBaggage', segment: 1, price: 30, currency: 'EUR', baggage: { piece: 1, weight: 23 } },
          { orderNo: 'PT-X', passenger: 'a', category: 'StandardCheckInBaggage', segment: 2, price: 30, currency: 'EUR', baggage: { piece: 1, weight: 23 } },
        ],
      },
    );
    t = await makeTestApp({ world: w });
  });
  after(() => t.close());
  const one = (last: string, first: string, flights: string[], reason = '1') => ({ lastName: last, firstName: first, refundReason: reason, segments: flights.map((f) => seg(t, f)) });
  const quote = async (pnr: string, items: unknown[]) => call(t.app, '/refundQuotation.do', { orderNo: await orderNoOf(t, pnr), refundRequestList: items });

  test('spec 7.1 802: a child is not left with an adult whose ticket the airline shows refunded; 818 for a void after such a refund, not 823', async () => {
    assert.equal((await quote('KID001', [one('KIDD', 'BEN', ['out'])])).body.status, 802);
    assert.equal((await quote('KID001', [one('KIDD', 'BEN', ['out']), one('KIDD', 'KAI', ['out'])])).body.status, 0);
    // RFD001: ED's ticket is refunded at the airline, EVA's open; a void of EVA (all who are left) is no longer possible
    assert.equal((await quote('RFD001', [one('ELSEWHERE', 'EVA', ['out'], '4')])).body.status, 818);
    assert.equal((await quote('RFD001', [one('ELSEWHERE', 'EVA', ['out'], '1')])).body.status, 0);
  });

  test('spec 2.5: one object per post-ticketing order — an order of two services is one, summed, in the quote, the submission and the query', async () => {
    const orderNo = await orderNoOf(t, 'PTX001');
    const q = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [one('BAGGY', 'BO', ['out', 'ret'], '0')] });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const object = { postTicketingOrderNo: 'PT-X', currency: 'EUR', originalPostTicketingServiceAmount: 60, estimatedRefundAmount: 60, displayPostTicketingServiceAmount: null, displayEstimatedRefundAmount: null };
    assert.deepEqual(q.body.refundPostTicketingServiceAmounts, object);
    const s = await call(t.app, '/refund.do', { orderNo, refundOfferId: q.body.refundOfferId });
    assert.equal(s.body.status, 0, String(s.body.msg));
    assert.deepEqual(s.body.refundPostTicketingServiceAmounts, object);
    const r = (await call(t.app, '/queryRefundOrders.do', { orderNo })).body as any;
    assert.deepEqual(r.refundOrders[0].refundPostTicketingServiceAmounts, [object]);

    // spec 7.1 801: a refundCode that is not this order's answers 801 beside the orderNo as it does alone
    for (const body of [{ refundCode: '999999999' }, { orderNo, refundCode: '999999999' }, { orderNo: await orderNoOf(t, 'DEP001'), refundCode: s.body.refundCode }]) {
      assert.equal((await call(t.app, '/queryRefundOrders.do', body)).body.status, 801, JSON.stringify(body));
    }
    assert.equal(((await call(t.app, '/queryRefundOrders.do', { orderNo, refundCode: s.body.refundCode })).body as any).refundOrders.length, 1);
  });

  test('spec 2.6 voucherId: refund.do answers the id queryRefundOrders.do shows', async () => {
    const orderNo = await orderNoOf(t, 'VCH001');
    const s = await call(t.app, '/refund.do', { orderNo, refundRequestList: [one('VOUCHERS', 'ANN', ['xv'])] });
    assert.equal(s.body.status, 0, String(s.body.msg));
    const submitted = (s.body as any).refundVouchers.map((v: any) => v.voucherId);
    assert.ok(submitted.every((id: unknown) => typeof id === 'string'), JSON.stringify(submitted));
    const queried = ((await call(t.app, '/queryRefundOrders.do', { orderNo })).body as any).refundOrders[0].refundVouchers.map((v: any) => v.voucherId);
    assert.deepEqual(submitted, queried);
  });
});
