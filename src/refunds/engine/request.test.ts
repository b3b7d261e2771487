// quoteRequest: a request of several tickets, by docs/architecture.md "Refund arithmetic" steps 4–10.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quoteRequest } from './request.js';
import { RefundEngineInputError } from './time.js';
import { DEPARTURE_MS, rule, ticket } from './test-fixtures.js';
import type { AirlineTerms, RefundReason, RefundRule, RequestQuote, RequestQuoteInput, RequestQuoteResult, TicketForQuote } from './types.js';

const NOW = new Date(DEPARTURE_MS - 14_400 * 60_000); // 2025-06-01T10:00:00Z, ten days before
const TERMS: AirlineTerms = { confirmationDays: 2, refundDays: 5, fastConfirmation: false };
const FEE = { currency: 'EUR', minor: 500 };

const adult = ticket({ ticketNo: 'T-ADT' });
const child = ticket({ ticketNo: 'T-CHD', passengerType: 'CHD', fareMinor: 20_000, taxMinor: 4_000 });

function request(items: { ticket: TicketForQuote; reason?: RefundReason; passenger?: string }[], rules: RefundRule[], over: Partial<RequestQuoteInput> = {}): RequestQuoteResult {
  return quoteRequest({
    items: items.map((i) => ({ ticket: i.ticket, reason: i.reason ?? '1', ...(i.passenger !== undefined ? { passenger: i.passenger } : {}) })),
    rules,
    now: NOW,
    rates: {},
    airlineTerms: TERMS,
    serviceFeePerPassenger: FEE,
    ...over,
  });
}

function ok(result: RequestQuoteResult): RequestQuote {
  assert.ok(result.ok, `expected a quote, got ${result.ok ? '' : result.msg}`);
  return result.quote;
}

// step 5–6 over several tickets: totals per currency are the sums of the ticket lines.
void test('step 5–6: totals per currency sum the tickets', () => {
  const jpy = ticket({ ticketNo: 'T-JPY', currency: 'JPY', fareMinor: 12_000, taxMinor: 3_000 });
  const rules = [rule({ fareRefundable: true, taxRefundable: true, penaltyAmount: 'EUR 10.00' })];
  const q = ok(request([{ ticket: adult }, { ticket: child }, { ticket: jpy }], rules, { rates: { 'EUR->JPY': '160' } }));
  assert.equal(q.quoteType, 'AccurateQuote');
  assert.deepEqual(q.totals, [
    { currency: 'EUR', fareMinor: 50_000, taxMinor: 9_000, ancillaryPaidMinor: 0, refundMinor: 34_000 + 23_000 },
    { currency: 'JPY', fareMinor: 12_000, taxMinor: 3_000, ancillaryPaidMinor: 0, refundMinor: 15_000 - 1_600 },
  ]);
  assert.deepEqual(
    q.tickets.map((t) => t.totalRefundMinor),
    [34_000, 23_000, 13_400],
  );
});

void test('step 6: post-ticketing totals per their own currency', () => {
  const a = ticket({ ticketNo: 'A', postTicketingServices: [{ postTicketingOrderNo: 'P1', category: 'StandardCheckInBaggage', priceMinor: 3_000, currency: 'EUR' }] });
  const b = ticket({
    ticketNo: 'B',
    postTicketingServices: [
      { postTicketingOrderNo: 'P2', category: 'StandardCheckInBaggage', priceMinor: 2_000, currency: 'EUR' },
      { postTicketingOrderNo: 'P3', category: 'Seat', priceMinor: 1_000, currency: 'USD' },
    ],
  });
  const q = ok(request([{ ticket: a }, { ticket: b }], [rule({ fareRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'] })]));
  assert.deepEqual(q.postTicketingTotals, [
    { currency: 'EUR', originalMinor: 5_000, refundMinor: 5_000 },
    { currency: 'USD', originalMinor: 1_000, refundMinor: 0 },
  ]);
});

// step 8: one method per request.
void test('step 8: tickets resolving to different methods → 810, quote them separately', () => {
  const rules = [rule({ passengerType: 'ADT', fareRefundable: true, refundMethod: 'Voucher' }), rule({ passengerType: 'CHD', fareRefundable: true })];
  const result = request([{ ticket: adult }, { ticket: child }], rules);
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.status, 810);
  assert.match(result.msg, /quote them separately/);
  assert.deepEqual(result.methods, [
    { ticketNo: 'T-ADT', refundMethod: 'Voucher' },
    { ticketNo: 'T-CHD', refundMethod: 'CashBackToOriginalPayment' },
  ]);
});

void test('step 8 + 4: a Voucher ticket beside a CannotQuote ticket (cash back) also conflicts', () => {
  const rules = [rule({ passengerType: 'ADT', fareRefundable: true, refundMethod: 'Voucher' })];
  const result = request([{ ticket: adult }, { ticket: child }], rules);
  assert.equal(result.ok, false);
});

void test('step 8: Voucher → one voucher per airline, value = the refund', () => {
  const rules = [rule({ fareRefundable: true, refundMethod: 'Voucher' }), rule({ airline: 'OS', fareRefundable: true, taxRefundable: true, refundMethod: 'Voucher' })];
  const os = ticket({ ticketNo: 'T-OS', carrier: 'OS', fareMinor: 10_000, taxMinor: 1_000 });
  const q = ok(request([{ ticket: adult }, { ticket: child }, { ticket: os }], rules));
  assert.equal(q.refundMethod, 'Voucher');
  assert.deepEqual(q.vouchers, [
    { airline: 'LH', currency: 'EUR', valueMinor: 30_000 + 20_000 },
    { airline: 'OS', currency: 'EUR', valueMinor: 11_000 },
  ]);
});

void test('step 8: cash back → no vouchers', () => {
  const q = ok(request([{ ticket: adult }], [rule({ fareRefundable: true })]));
  assert.equal(q.refundMethod, 'CashBackToOriginalPayment');
  assert.equal(q.vouchers, null);
});

// step 4 + edge case at request level (our reading): any CannotQuote ticket makes the request CannotQuote, amounts 0.
void test('step 4/edge: one CannotQuote ticket → request CannotQuote, estimated amounts 0, refundable', () => {
  const rules = [rule({ passengerType: 'ADT', fareRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'] })];
  const a = ticket({ ticketNo: 'A', postTicketingServices: [{ postTicketingOrderNo: 'P1', category: 'StandardCheckInBaggage', priceMinor: 3_000, currency: 'EUR' }] });
  const q = ok(request([{ ticket: a }, { ticket: child }], rules));
  assert.equal(q.quoteType, 'CannotQuote');
  assert.equal(q.isRefundable, true);
  assert.equal(q.refundMethod, 'CashBackToOriginalPayment');
  assert.deepEqual(
    q.totals.map((t) => t.refundMinor),
    [0],
  );
  assert.deepEqual(q.postTicketingTotals, [{ currency: 'EUR', originalMinor: 3_000, refundMinor: 0 }]);
  // the per-ticket detail is still there
  assert.equal(q.tickets[0]?.quoteType, 'AccurateQuote');
  assert.equal(q.tickets[0]?.totalRefundMinor, 30_000);
  assert.equal(q.tickets[1]?.quoteType, 'CannotQuote');
});

// step 7: a ticket whose rule refunds nothing → not refundable (808 on submit).
void test('step 7: any non-refundable ticket makes the request non-refundable', () => {
  const rules = [rule({ passengerType: 'ADT', fareRefundable: true }), rule({ passengerType: 'CHD' })];
  const q = ok(request([{ ticket: adult }, { ticket: child }], rules));
  assert.equal(q.isRefundable, false);
  assert.deepEqual(q.nonRefundableTickets, ['T-CHD']);
  const q2 = ok(request([{ ticket: adult }], rules));
  assert.equal(q2.isRefundable, true);
  assert.deepEqual(q2.nonRefundableTickets, []);
});

void test('each ticket carries its own reason', () => {
  const rules = [rule({ ruleType: '0', fareRefundable: true, taxRefundable: true }), rule({ ruleType: '1', fareRefundable: true })];
  const q = ok(request([{ ticket: adult, reason: '0' }, { ticket: child, reason: '1' }], rules));
  assert.deepEqual(
    q.tickets.map((t) => [t.reason, t.appliedRule?.index, t.totalRefundMinor]),
    [
      ['0', 0, 35_000],
      ['1', 1, 20_000],
    ],
  );
});

// step 9: the client's fee per refunded passenger.
void test('step 9: serviceFee = client fee × refunded passengers', () => {
  const rules = [rule({ fareRefundable: true })];
  assert.deepEqual(ok(request([{ ticket: adult }], rules)).serviceFee, { currency: 'EUR', transactionFeeMinor: 500, passengers: 1 });
  assert.deepEqual(ok(request([{ ticket: adult }, { ticket: child }], rules, { serviceFeePerPassenger: { currency: 'USD', minor: 750 } })).serviceFee, {
    currency: 'USD',
    transactionFeeMinor: 1_500,
    passengers: 2,
  });
  // one passenger's two tickets (an outbound and a return, 804) pay the fee once (found by a review: charged per ticket)
  const outbound = { ...adult, ticketNo: '999-0000000001' };
  const inbound = { ...adult, ticketNo: '999-0000000002' };
  assert.deepEqual(ok(request([{ ticket: outbound, passenger: 'p1' }, { ticket: inbound, passenger: 'p1' }], rules)).serviceFee, { currency: 'EUR', transactionFeeMinor: 500, passengers: 1 });
  assert.deepEqual(ok(request([{ ticket: outbound, passenger: 'p1' }, { ticket: inbound, passenger: 'p2' }], rules)).serviceFee.passengers, 2);
});

// step 10: expected dates from today (UTC calendar day of `now`).
void test('step 10: confirmation = today + confirmation days; refund = that + refund days', () => {
  const rules = [rule({ fareRefundable: true })];
  const table: { now: string; terms: AirlineTerms; zone?: string; confirmation: string; refund: string; fast: 0 | 1 }[] = [
    { now: '2025-06-01T10:00:00Z', terms: TERMS, confirmation: '20250603', refund: '20250608', fast: 0 },
    { now: '2025-06-01T10:00:00Z', terms: { ...TERMS, fastConfirmation: true }, confirmation: '20250601', refund: '20250606', fast: 1 },
    { now: '2025-06-01T23:59:00Z', terms: { confirmationDays: 0, refundDays: 0, fastConfirmation: false }, confirmation: '20250601', refund: '20250601', fast: 0 },
    { now: '2025-12-30T12:00:00Z', terms: { confirmationDays: 1, refundDays: 30, fastConfirmation: false }, confirmation: '20251231', refund: '20260130', fast: 0 },
    // today is the UTC day whatever the departure airport; a calendar zone can be chosen explicitly
    { now: '2025-06-01T23:30:00Z', terms: TERMS, confirmation: '20250603', refund: '20250608', fast: 0 },
    { now: '2025-06-01T23:30:00Z', terms: TERMS, zone: 'Asia/Tokyo', confirmation: '20250604', refund: '20250609', fast: 0 },
  ];
  for (const row of table) {
    const q = ok(request([{ ticket: adult }], rules, { now: new Date(row.now), airlineTerms: row.terms, calendarZone: row.zone }));
    assert.deepEqual([q.expectedConfirmationDate, q.expectedRefundDate, q.fastConfirmation], [row.confirmation, row.refund, row.fast], JSON.stringify(row));
  }
});

void test('refundRules lists the carrier’s rules for the passenger types in the request, in list order', () => {
  const rules = [
    rule({ passengerType: 'ADT' }),
    rule({ passengerType: 'CHD' }),
    rule({ passengerType: 'INF' }),
    rule({ ruleType: '3' }),
    rule({ airline: 'AF' }),
    rule({ ruleType: '2', passengerType: null }),
  ];
  const onlyAdult = ok(request([{ ticket: adult }], rules));
  assert.deepEqual(onlyAdult.refundRules, [rules[0], rules[3], rules[5]]);
  const both = ok(request([{ ticket: adult }, { ticket: child }], rules));
  assert.deepEqual(both.refundRules, [rules[0], rules[1], rules[3], rules[5]]);
});

void test('malformed request input throws RefundEngineInputError', () => {
  const rules = [rule({ fareRefundable: true })];
  assert.throws(() => request([], rules), RefundEngineInputError);
  assert.throws(() => request([{ ticket: adult }, { ticket: adult }], rules), RefundEngineInputError);
  assert.throws(() => request([{ ticket: adult }], rules, { airlineTerms: { ...TERMS, refundDays: -1 } }), RefundEngineInputError);
  assert.throws(() => request([{ ticket: adult }], rules, { serviceFeePerPassenger: { currency: 'EURO', minor: 1 } }), RefundEngineInputError);
  assert.throws(() => request([{ ticket: adult }], rules, { serviceFeePerPassenger: { currency: 'EUR', minor: 0.5 } }), RefundEngineInputError);
  assert.throws(() => request([{ ticket: adult }], rules, { calendarZone: 'Not/AZone' }), RefundEngineInputError);
});
