// quoteTicket by table: the cases cite the step or edge case of docs/architecture.md "Refund arithmetic" they hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quoteTicket } from './quote.js';
import { RefundEngineInputError } from './time.js';
import { before, rule, ticket } from './test-fixtures.js';
import type { Rates, RefundReason, RefundRule, TicketForQuote, TicketQuote } from './types.js';

interface Case {
  name: string;
  ticket?: Partial<TicketForQuote>;
  rules: RefundRule[];
  reason?: RefundReason;
  /** minutes before departure (default ten days); fractional parts are seconds/60 */
  minutes?: number;
  seconds?: number;
  rates?: Rates;
  expect: Partial<Omit<TicketQuote, 'appliedRule'>> & { appliedIndex?: number | null };
}

const TEN_DAYS = 14_400;
const bag = { category: 'StandardCheckInBaggage', priceMinor: 4_000, currency: 'EUR' };
const seat = { category: 'Seat', priceMinor: 1_500, currency: 'EUR' };
const postBag = { postTicketingOrderNo: 'PT-1', category: 'StandardCheckInBaggage', priceMinor: 6_000, currency: 'EUR' };

function run(c: Case): TicketQuote {
  return quoteTicket({
    ticket: ticket(c.ticket),
    rules: c.rules,
    reason: c.reason ?? '1',
    now: before(c.minutes ?? TEN_DAYS, c.seconds ?? 0),
    rates: c.rates ?? {},
  });
}

function check(c: Case): void {
  const q = run(c);
  const { appliedIndex, ...fields } = c.expect;
  if (appliedIndex !== undefined) assert.equal(q.appliedRule?.index ?? null, appliedIndex, 'applied rule index');
  for (const [key, value] of Object.entries(fields)) {
    assert.deepEqual(q[key as keyof TicketQuote], value, `${key}\n${q.reasons.join('\n')}`);
  }
}

const cases: Case[] = [
  // ---- step 1: m, floor of exact minutes -------------------------------------------------------
  { name: '1: m is whole minutes to departure', rules: [], minutes: 90, expect: { minutesToDeparture: 90 } },
  { name: '1/edge: 30 s after departure is m = −1', rules: [], minutes: 0, seconds: -30, expect: { minutesToDeparture: -1 } },
  { name: '1/edge: 59 s before departure is m = 0', rules: [], minutes: 0, seconds: 59, expect: { minutesToDeparture: 0 } },

  // ---- step 2: candidates ------------------------------------------------------------------------
  {
    name: '2: another carrier’s rule is not a candidate → CannotQuote',
    rules: [rule({ airline: 'AF', fareRefundable: true })],
    expect: { quoteType: 'CannotQuote', appliedIndex: null },
  },
  {
    name: '2: carrier codes compare case-insensitively',
    rules: [rule({ airline: 'lh', fareRefundable: true })],
    expect: { quoteType: 'AccurateQuote', appliedIndex: 0 },
  },
  {
    name: '2: reason 1 looks at ruleType 1 only',
    rules: [rule({ ruleType: '0', fareRefundable: true }), rule({ ruleType: '4', fareRefundable: true }), rule({ ruleType: '1', taxRefundable: true })],
    expect: { appliedIndex: 2 },
  },
  {
    name: '2: reason 0 (involuntary) → ruleType 0',
    reason: '0',
    rules: [rule({ ruleType: '1', fareRefundable: true }), rule({ ruleType: '0', fareRefundable: true, taxRefundable: true })],
    expect: { appliedIndex: 1, ticketRefundMinor: 35_000 },
  },
  {
    name: '2: reason 4 (void) → ruleType 4',
    reason: '4',
    rules: [rule({ ruleType: '0', fareRefundable: true }), rule({ ruleType: '4', fareRefundable: true })],
    expect: { appliedIndex: 1 },
  },
  {
    name: '2: a rule for another passenger type is not a candidate',
    rules: [rule({ passengerType: 'CHD', fareRefundable: true })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: '2: m outside (endMinute, startMinute] → not a candidate (m = endMinute)',
    minutes: 60,
    rules: [rule({ endMinute: 60, startMinute: 1440, fareRefundable: true })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: '2: m = startMinute is inside (upper bound closed)',
    minutes: 1440,
    rules: [rule({ endMinute: 60, startMinute: 1440, fareRefundable: true })],
    expect: { quoteType: 'AccurateQuote', window: { startMinute: 1440, endMinute: 60 } },
  },
  {
    name: '2: m = startMinute + 1 is outside',
    minutes: 1441,
    rules: [rule({ endMinute: 60, startMinute: 1440, fareRefundable: true })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: '2: absent startMinute is open above',
    minutes: 10_000_000,
    rules: [rule({ endMinute: 60, fareRefundable: true })],
    expect: { appliedIndex: 0, window: { startMinute: null, endMinute: 60 } },
  },
  {
    name: '2: absent endMinute is open below (after departure too)',
    minutes: -5000,
    rules: [rule({ startMinute: 60, fareRefundable: true })],
    expect: { appliedIndex: 0, minutesToDeparture: -5000 },
  },
  {
    name: '2: negative windows match after departure (825 case still quotes)',
    minutes: 0,
    seconds: -30,
    rules: [rule({ startMinute: 0, endMinute: -1440, fareRefundable: true }), rule({ endMinute: 0, fareRefundable: true, taxRefundable: true })],
    expect: { appliedIndex: 0, minutesToDeparture: -1 },
  },
  {
    name: 'edge: endMinute = startMinute matches nothing',
    minutes: 100,
    rules: [rule({ endMinute: 100, startMinute: 100, fareRefundable: true })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: 'edge: endMinute > startMinute matches nothing (even m between them)',
    minutes: 150,
    rules: [rule({ endMinute: 200, startMinute: 100, fareRefundable: true })],
    expect: { quoteType: 'CannotQuote' },
  },

  // ---- step 3: choice ----------------------------------------------------------------------------
  {
    name: '3/edge: passenger type beats width',
    rules: [rule({ endMinute: 0, startMinute: 20_000, fareRefundable: true }), rule({ passengerType: 'ADT', taxRefundable: true })],
    expect: { appliedIndex: 1 },
  },
  {
    name: '3: narrowest window among equally specific rules',
    rules: [
      rule({ endMinute: 0, startMinute: 100_000, fareRefundable: true }),
      rule({ endMinute: 1440, startMinute: 20_000, fareRefundable: true }),
      rule({ endMinute: 0, startMinute: 50_000, fareRefundable: true }),
    ],
    expect: { appliedIndex: 1 },
  },
  {
    name: '3: equal widths → list order',
    rules: [rule({ passengerType: 'ADT', endMinute: 0, startMinute: 20_000, fareRefundable: true }), rule({ passengerType: 'ADT', endMinute: 10_000, startMinute: 30_000, taxRefundable: true })],
    expect: { appliedIndex: 0 },
  },
  {
    name: 'edge: windows missing a bound tie (infinitely wide) → list order',
    rules: [rule({ endMinute: 60, fareRefundable: true }), rule({ startMinute: 1_000_000, taxRefundable: true }), rule({ fareRefundable: true })],
    expect: { appliedIndex: 0 },
  },
  {
    name: 'edge: any closed window is narrower than an open one',
    rules: [rule({ fareRefundable: true }), rule({ endMinute: -1_000_000, startMinute: 1_000_000, taxRefundable: true })],
    expect: { appliedIndex: 1 },
  },
  {
    name: '3: ruleType 3 (special) is never applied automatically',
    rules: [rule({ ruleType: '3', fareRefundable: true, taxRefundable: true })],
    expect: { quoteType: 'CannotQuote', appliedIndex: null },
  },
  {
    name: '3: ruleType 3 is ignored even beside a narrower voluntary rule',
    rules: [rule({ ruleType: '3', passengerType: 'ADT', endMinute: 0, startMinute: 20_000, fareRefundable: true }), rule({ taxRefundable: true })],
    expect: { appliedIndex: 1, ticketRefundMinor: 5_000 },
  },

  // ---- step 3 + edge: tax-refund fallback -------------------------------------------------------------------
  {
    name: 'edge: fallback to the ruleType 2 rule when the voluntary rule refunds neither fare nor tax',
    rules: [rule({ penaltyAmount: 'EUR 10.00' }), rule({ ruleType: '2', taxRefundable: true, airlineFee: 'EUR 5.00' })],
    expect: { appliedIndex: 1, fallbackToTaxRule: true, ticketRefundMinor: 4_500, penaltyMinor: 0, airlineFeeMinor: 500 },
  },
  {
    name: 'edge: fallback triggers on flags, even if the voluntary rule refunds an ancillary',
    ticket: { ancillaries: [bag] },
    rules: [rule({ refundableAncillaries: ['StandardCheckInBaggage'] }), rule({ ruleType: '2', taxRefundable: true })],
    expect: { appliedIndex: 1, fallbackToTaxRule: true, ancillaryRefunds: [{ ...bag, refundMinor: 0 }], totalRefundMinor: 5_000 },
  },
  {
    name: 'edge: the tax rule decides everything (penalty, fee, ancillaries, method)',
    ticket: { ancillaries: [bag] },
    rules: [
      rule({ refundMethod: 'CashBackToOriginalPayment', refundableAncillaries: ['StandardCheckInBaggage'] }),
      rule({ ruleType: '2', taxRefundable: true, penaltyAmount: 'EUR 1.00', airlineFee: 'EUR 2.00', refundableAncillaries: ['Seat'], refundMethod: 'Voucher' }),
    ],
    expect: { appliedIndex: 1, penaltyMinor: 100, airlineFeeMinor: 200, ticketRefundMinor: 4_700, totalRefundMinor: 4_700, refundMethod: 'Voucher', isRefundable: true },
  },
  {
    name: 'edge: no fallback when the voluntary rule refunds tax',
    rules: [rule({ taxRefundable: true, penaltyAmount: 'EUR 50.00' }), rule({ ruleType: '2', taxRefundable: true })],
    expect: { appliedIndex: 0, fallbackToTaxRule: false, ticketRefundMinor: 0, isRefundable: true },
  },
  {
    name: 'edge: no fallback for reason 0',
    reason: '0',
    rules: [rule({ ruleType: '0' }), rule({ ruleType: '2', taxRefundable: true })],
    expect: { appliedIndex: 0, fallbackToTaxRule: false, isRefundable: false },
  },
  {
    name: 'edge: no fallback for reason 4',
    reason: '4',
    rules: [rule({ ruleType: '4' }), rule({ ruleType: '2', taxRefundable: true })],
    expect: { appliedIndex: 0, fallbackToTaxRule: false, isRefundable: false },
  },
  {
    name: 'edge: the tax rule must pass the same candidate test (window)',
    minutes: 100,
    rules: [rule({}), rule({ ruleType: '2', taxRefundable: true, endMinute: 100, startMinute: 1000 })],
    expect: { appliedIndex: 0, fallbackToTaxRule: false, isRefundable: false },
  },
  {
    name: 'edge: the tax rule must pass the same candidate test (passenger type, carrier)',
    rules: [rule({}), rule({ ruleType: '2', taxRefundable: true, passengerType: 'INF' }), rule({ ruleType: '2', airline: 'AF', taxRefundable: true })],
    expect: { appliedIndex: 0, fallbackToTaxRule: false, isRefundable: false },
  },
  {
    name: 'edge: among tax rules the same ordering applies',
    rules: [rule({}), rule({ ruleType: '2', taxRefundable: true }), rule({ ruleType: '2', passengerType: 'ADT', taxRefundable: true, airlineFee: 'EUR 1.00' })],
    expect: { appliedIndex: 2, fallbackToTaxRule: true, ticketRefundMinor: 4_900 },
  },
  {
    name: 'edge: a ruleType 2 rule alone, with no voluntary rule, is CannotQuote',
    rules: [rule({ ruleType: '2', taxRefundable: true })],
    expect: { quoteType: 'CannotQuote', appliedIndex: null, fallbackToTaxRule: false },
  },

  // ---- step 4 + edge: CannotQuote ----------------------------------------------------------------
  {
    name: '4/edge: no rule → CannotQuote, isRefundable true, cash back, all amounts 0',
    ticket: { ancillaries: [bag], postTicketingServices: [postBag] },
    rules: [],
    expect: {
      quoteType: 'CannotQuote',
      isRefundable: true,
      refundMethod: 'CashBackToOriginalPayment',
      refundableMinor: 0,
      penaltyMinor: 0,
      airlineFeeMinor: 0,
      ticketRefundMinor: 0,
      totalRefundMinor: 0,
      ancillaryRefunds: [{ ...bag, refundMinor: 0 }],
      postTicketingRefunds: [{ postTicketingOrderNo: 'PT-1', category: 'StandardCheckInBaggage', currency: 'EUR', originalMinor: 6_000, refundMinor: 0 }],
      window: null,
      fareMinor: 30_000,
      taxMinor: 5_000,
    },
  },
  // A rule amount whose currency has no rate: all amounts 0, but the chosen rule still decides isRefundable and
  // refundMethod (docs/architecture.md "Refund arithmetic"; before issue 8 it answered true and cash back).
  {
    name: '4/edge: no rate for the penalty → CannotQuote, a voucher-only rule stays Voucher',
    rules: [rule({ fareRefundable: true, refundMethod: 'Voucher', penaltyAmount: 'USD 10.00' })],
    expect: { quoteType: 'CannotQuote', refundMethod: 'Voucher', isRefundable: true, totalRefundMinor: 0, penaltyMinor: 0, appliedIndex: 0 },
  },
  {
    name: '4/edge: no rate for the airline fee → CannotQuote, a rule that refunds nothing stays not refundable',
    rules: [rule({ fareRefundable: false, taxRefundable: false, airlineFee: 'CHF 5.00' })],
    expect: { quoteType: 'CannotQuote', refundMethod: 'CashBackToOriginalPayment', isRefundable: false, totalRefundMinor: 0, appliedIndex: 0 },
  },
  {
    name: '4/edge: no rate → CannotQuote, refundable through an ancillary of the ticket, Voucher',
    ticket: { ancillaries: [bag] },
    rules: [rule({ refundableAncillaries: ['StandardCheckInBaggage'], refundMethod: 'Voucher', penaltyAmount: 'USD 10.00' })],
    expect: { quoteType: 'CannotQuote', refundMethod: 'Voucher', isRefundable: true, totalRefundMinor: 0, ancillaryRefunds: [{ ...bag, refundMinor: 0 }] },
  },
  {
    name: '4/edge: no rate, tax-refund fallback: the ruleType 2 rule decides the method',
    reason: '1',
    rules: [rule({ refundMethod: 'CashBackToOriginalPayment' }), rule({ ruleType: '2', taxRefundable: true, refundMethod: 'Voucher', airlineFee: 'USD 2.00' })],
    expect: { quoteType: 'CannotQuote', refundMethod: 'Voucher', isRefundable: true, fallbackToTaxRule: true, appliedIndex: 1 },
  },
  {
    name: '4/edge: rule data that cannot be read (not a missing rate) → CannotQuote, isRefundable true, cash back',
    rules: [rule({ fareRefundable: false, refundMethod: 'Voucher', penaltyAmount: 'fifty euros' })],
    expect: { quoteType: 'CannotQuote', refundMethod: 'CashBackToOriginalPayment', isRefundable: true, totalRefundMinor: 0, appliedIndex: 0 },
  },
  { name: '4: a rule applies → AccurateQuote', rules: [rule({ fareRefundable: true })], expect: { quoteType: 'AccurateQuote' } },

  // ---- step 5: penalty, refundable, clamp ----------------------------------------------------------
  {
    name: '5: penalty amount only',
    rules: [rule({ fareRefundable: true, taxRefundable: true, penaltyAmount: 'EUR 50.00' })],
    expect: { penaltyMinor: 5_000, refundableMinor: 35_000, ticketRefundMinor: 30_000 },
  },
  {
    name: '5: penalty percent of the fare (base absent means fare)',
    rules: [rule({ fareRefundable: true, penaltyPercent: 10 })],
    expect: { penaltyMinor: 3_000, ticketRefundMinor: 27_000 },
  },
  {
    name: '5: penalty percent of fare+tax',
    rules: [rule({ fareRefundable: true, penaltyPercent: 10, penaltyPercentBase: 'fare+tax' })],
    expect: { penaltyMinor: 3_500, ticketRefundMinor: 26_500 },
  },
  {
    name: '5: penalty = max(amount, percent): amount larger',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'EUR 40.00', penaltyPercent: 10 })],
    expect: { penaltyMinor: 4_000 },
  },
  {
    name: '5: penalty = max(amount, percent): percent larger',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'EUR 20.00', penaltyPercent: 10 })],
    expect: { penaltyMinor: 3_000 },
  },
  {
    name: 'edge: the percent base is the full fare whatever is refundable',
    rules: [rule({ taxRefundable: true, penaltyPercent: 10 })],
    expect: { refundableMinor: 5_000, penaltyMinor: 3_000, ticketRefundMinor: 2_000 },
  },
  {
    name: 'edge: percent computed and rounded once, half-up (3.33 × 12.5 % = 0.41625 → 0.42)',
    ticket: { fareMinor: 333, taxMinor: 0 },
    rules: [rule({ fareRefundable: true, penaltyPercent: 12.5 })],
    expect: { penaltyMinor: 42, ticketRefundMinor: 291 },
  },
  {
    name: 'edge: percent rounding exactly half goes up (2.50 × 1 % = 0.025 → 0.03)',
    ticket: { fareMinor: 250, taxMinor: 0 },
    rules: [rule({ fareRefundable: true, penaltyPercent: 1 })],
    expect: { penaltyMinor: 3 },
  },
  {
    name: 'edge: percent not float-rounded (0.1 + 0.2 style: 1.15 × 10 % = 0.115 → 0.12)',
    ticket: { fareMinor: 115, taxMinor: 0 },
    rules: [rule({ fareRefundable: true, penaltyPercent: 10 })],
    expect: { penaltyMinor: 12 },
  },
  {
    name: '5: airline fee reduces the ticket part',
    rules: [rule({ fareRefundable: true, taxRefundable: true, penaltyAmount: 'EUR 50.00', airlineFee: 'EUR 15.00' })],
    expect: { penaltyMinor: 5_000, airlineFeeMinor: 1_500, ticketRefundMinor: 28_500 },
  },
  {
    name: '5: refundable = fare only when only the fare is refundable',
    rules: [rule({ fareRefundable: true })],
    expect: { refundableMinor: 30_000, ticketRefundMinor: 30_000 },
  },
  {
    name: '5: ticket part clamps at 0',
    rules: [rule({ taxRefundable: true, penaltyAmount: 'EUR 40.00', airlineFee: 'EUR 20.00' })],
    expect: { refundableMinor: 5_000, ticketRefundMinor: 0, totalRefundMinor: 0, isRefundable: true },
  },
  {
    name: 'edge: ancillary refunds are added after the ticket part is clamped',
    ticket: { ancillaries: [bag] },
    rules: [rule({ taxRefundable: true, penaltyAmount: 'EUR 100.00', refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: { ticketRefundMinor: 0, totalRefundMinor: 4_000 },
  },
  {
    name: 'edge: a rule amount with more decimals than the currency rounds half-up',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'EUR 10.005', airlineFee: 'EUR 0.004' })],
    expect: { penaltyMinor: 1_001, airlineFeeMinor: 0 },
  },
  {
    name: 'edge: absent amounts and percents count 0',
    rules: [rule({ fareRefundable: true, taxRefundable: true })],
    expect: { penaltyMinor: 0, airlineFeeMinor: 0, ticketRefundMinor: 35_000 },
  },
  {
    name: 'edge: null is the same as absent',
    rules: [
      rule({
        fareRefundable: true,
        taxRefundable: null,
        penaltyAmount: null,
        penaltyPercent: null,
        penaltyPercentBase: null,
        airlineFee: null,
        passengerType: null,
        startMinute: null,
        endMinute: null,
        refundMethod: null,
        refundableAncillaries: null,
      }),
    ],
    expect: { penaltyMinor: 0, airlineFeeMinor: 0, ticketRefundMinor: 30_000, refundMethod: 'CashBackToOriginalPayment', window: { startMinute: null, endMinute: null } },
  },

  // ---- currencies: ISO exponents, other-currency rule amounts, rates ------------------------------------------
  {
    name: 'exponent JPY 0: amounts in yen; percent rounds half-up to whole yen (1005 × 10 % = 100.5 → 101)',
    ticket: { currency: 'JPY', fareMinor: 1_005, taxMinor: 300 },
    rules: [rule({ fareRefundable: true, taxRefundable: true, penaltyPercent: 10, airlineFee: 'JPY 50' })],
    expect: { penaltyMinor: 101, airlineFeeMinor: 50, ticketRefundMinor: 1_154 },
  },
  {
    name: 'exponent KWD 3: "KWD 1.2345" → 1235 fils',
    ticket: { currency: 'KWD', fareMinor: 100_000, taxMinor: 2_500 },
    rules: [rule({ fareRefundable: true, penaltyAmount: 'KWD 1.2345' })],
    expect: { penaltyMinor: 1_235, ticketRefundMinor: 98_765 },
  },
  {
    name: 'edge: other-currency rule amount converts through the rate (USD 10.00 × 0.92 = EUR 9.20)',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'USD 10.00' })],
    rates: { 'USD->EUR': '0.92' },
    expect: { penaltyMinor: 920, quoteType: 'AccurateQuote' },
  },
  {
    name: 'edge: converts once, straight to the target unit (USD 10.005 × 0.92 = 9.2046 → 9.20, not 10.01 × 0.92 → 9.21)',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'USD 10.005' })],
    rates: { 'USD->EUR': '0.92' },
    expect: { penaltyMinor: 920 },
  },
  {
    name: 'edge: conversion rounds half-up (USD 1.25 × 0.5 = 0.625 → EUR 0.63)',
    rules: [rule({ fareRefundable: true, airlineFee: 'USD 1.25' })],
    rates: { 'USD->EUR': '0.5' },
    expect: { airlineFeeMinor: 63 },
  },
  {
    name: 'edge: EUR rule amount on a JPY ticket (EUR 50.00 × 161.235 = 8061.75 → JPY 8062)',
    ticket: { currency: 'JPY', fareMinor: 50_000, taxMinor: 5_000 },
    rules: [rule({ fareRefundable: true, penaltyAmount: 'EUR 50.00' })],
    rates: { 'EUR->JPY': '161.235' },
    expect: { penaltyMinor: 8_062, ticketRefundMinor: 41_938 },
  },
  {
    name: 'edge: USD rule amount on a KWD ticket (USD 10 × 0.30745 = 3.0745 → KWD 3.075)',
    ticket: { currency: 'KWD', fareMinor: 100_000, taxMinor: 0 },
    rules: [rule({ fareRefundable: true, airlineFee: 'USD 10' })],
    rates: { 'USD->KWD': '0.30745' },
    expect: { airlineFeeMinor: 3_075 },
  },
  {
    name: 'edge: rates may be a function',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'GBP 10.00' })],
    rates: (from, to) => (from === 'GBP' && to === 'EUR' ? 1.17 : undefined),
    expect: { penaltyMinor: 1_170 },
  },
  {
    name: 'edge: no rate → CannotQuote',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'USD 10.00' })],
    rates: { 'EUR->USD': '1.08' },
    expect: { quoteType: 'CannotQuote', totalRefundMinor: 0, appliedIndex: 0 },
  },
  {
    name: 'edge: no rate for the airline fee → CannotQuote',
    rules: [rule({ fareRefundable: true, airlineFee: 'CHF 5.00' })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: 'rule data: a zero or non-numeric rate is no rate → CannotQuote',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'USD 10.00' })],
    rates: { 'USD->EUR': 'abc' },
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: 'rule data: an unreadable amount → CannotQuote',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'fifty euros' })],
    expect: { quoteType: 'CannotQuote', isRefundable: true },
  },
  {
    name: 'rule data: an unknown currency → CannotQuote',
    rules: [rule({ fareRefundable: true, penaltyAmount: 'XYZ 5.00' })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: 'rule data: a negative amount → CannotQuote (it would refund more than was paid)',
    rules: [rule({ fareRefundable: true, airlineFee: 'EUR -5.00' })],
    expect: { quoteType: 'CannotQuote' },
  },
  {
    name: 'rule data: a negative percent → CannotQuote',
    rules: [rule({ fareRefundable: true, penaltyPercent: -10 })],
    expect: { quoteType: 'CannotQuote' },
  },

  // ---- step 6: ancillaries ---------------------------------------------------------------------
  {
    name: '6: in-flow ancillary in refundableAncillaries adds its price; others add 0',
    ticket: { ancillaries: [bag, seat] },
    rules: [rule({ fareRefundable: true, penaltyAmount: 'EUR 100.00', refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: {
      ticketRefundMinor: 20_000,
      ancillaryRefunds: [
        { ...bag, refundMinor: 4_000 },
        { ...seat, refundMinor: 0 },
      ],
      totalRefundMinor: 24_000,
      ancillaryPaidMinor: 5_500,
    },
  },
  {
    name: '6: post-ticketing services listed separately with the same test, not in the total',
    ticket: { postTicketingServices: [postBag, { postTicketingOrderNo: 'PT-2', category: 'CabinBaggage', priceMinor: 2_000, currency: 'USD' }] },
    rules: [rule({ fareRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: {
      totalRefundMinor: 30_000,
      postTicketingRefunds: [
        { postTicketingOrderNo: 'PT-1', category: 'StandardCheckInBaggage', currency: 'EUR', originalMinor: 6_000, refundMinor: 6_000 },
        { postTicketingOrderNo: 'PT-2', category: 'CabinBaggage', currency: 'USD', originalMinor: 2_000, refundMinor: 0 },
      ],
    },
  },
  {
    name: '6: an in-flow ancillary in another currency converts through the rates',
    ticket: { ancillaries: [{ category: 'CabinBaggage', priceMinor: 1_000, currency: 'USD' }] },
    rules: [rule({ fareRefundable: true, refundableAncillaries: ['CabinBaggage'] })],
    rates: { 'USD->EUR': '0.925' },
    expect: { ancillaryRefunds: [{ category: 'CabinBaggage', priceMinor: 1_000, currency: 'USD', refundMinor: 925 }], totalRefundMinor: 30_925, ancillaryPaidMinor: 925 },
  },
  {
    name: '6: a refundable in-flow ancillary in another currency without a rate → CannotQuote',
    ticket: { ancillaries: [{ category: 'CabinBaggage', priceMinor: 1_000, currency: 'USD' }] },
    rules: [rule({ fareRefundable: true, refundableAncillaries: ['CabinBaggage'] })],
    expect: { quoteType: 'CannotQuote', ancillaryPaidMinor: null },
  },

  // ---- step 7 + edge: isRefundable by flags ------------------------------------------------------
  {
    name: '7: fare, tax and ancillaries all non-refundable → isRefundable false',
    ticket: { ancillaries: [seat] },
    rules: [rule({ refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: { quoteType: 'AccurateQuote', isRefundable: false, totalRefundMinor: 0 },
  },
  {
    name: 'edge: a penalty that eats the whole fare still leaves isRefundable true',
    rules: [rule({ fareRefundable: true, penaltyPercent: 100 })],
    expect: { isRefundable: true, ticketRefundMinor: 0 },
  },
  {
    name: 'edge: only an in-flow ancillary refundable → isRefundable true',
    reason: '0',
    ticket: { ancillaries: [bag] },
    rules: [rule({ ruleType: '0', refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: { isRefundable: true, totalRefundMinor: 4_000 },
  },
  {
    name: 'edge: a listed ancillary the ticket does not have does not make it refundable',
    reason: '0',
    rules: [rule({ ruleType: '0', refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: { isRefundable: false },
  },
  {
    name: 'edge (our reading): a refundable post-ticketing service counts as one of the ticket’s ancillaries',
    reason: '0',
    ticket: { postTicketingServices: [postBag] },
    rules: [rule({ ruleType: '0', refundableAncillaries: ['StandardCheckInBaggage'] })],
    expect: { isRefundable: true, totalRefundMinor: 0 },
  },
  {
    name: 'edge: a ticket with zero fare and tax but refundable flags is refundable',
    ticket: { fareMinor: 0, taxMinor: 0 },
    rules: [rule({ fareRefundable: true })],
    expect: { isRefundable: true, totalRefundMinor: 0 },
  },

  // ---- step 8: method ------------------------------------------------------------------------------
  { name: '8: refundMethod comes from the rule', rules: [rule({ fareRefundable: true, refundMethod: 'Voucher' })], expect: { refundMethod: 'Voucher' } },
  { name: '8: absent refundMethod is cash back', rules: [rule({ fareRefundable: true })], expect: { refundMethod: 'CashBackToOriginalPayment' } },
];

for (const c of cases) {
  void test(`arithmetic ${c.name}`, () => check(c));
}

void test('appliedRule carries the rule object itself and reasons explain each step', () => {
  const rules = [rule({ airline: 'AF' }), rule({ fareRefundable: true, penaltyAmount: 'EUR 5.00', endMinute: 60, startMinute: 20_000 })];
  const q = quoteTicket({ ticket: ticket(), rules, reason: '1', now: before(TEN_DAYS), rates: {} });
  assert.equal(q.appliedRule?.rule, rules[1]);
  assert.equal(q.appliedRule?.index, 1);
  assert.equal(q.departureUtc, '2025-06-11T10:00:00.000Z');
  const text = q.reasons.join('\n');
  for (const needle of ['m = 14400', '#1', '(60, 20000]', 'penalty = max(5.00, 0.00) = EUR 5.00', 'ticket refund = max(0, 300.00 − 5.00 − 0.00) = 295.00']) {
    assert.ok(text.includes(needle), `reasons mention ${needle}:\n${text}`);
  }
});

void test('the engine does not mutate its inputs', () => {
  const t = ticket({ ancillaries: [bag], postTicketingServices: [postBag] });
  const rules = [rule({ fareRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'] }), rule({ ruleType: '2', taxRefundable: true })];
  const snapshot = structuredClone({ t, rules });
  quoteTicket({ ticket: t, rules, reason: '1', now: before(100), rates: {} });
  assert.deepEqual({ t, rules }, snapshot);
});

void test('malformed ticket input throws RefundEngineInputError (a bug upstream, not a quote)', () => {
  const bad: Partial<TicketForQuote>[] = [
    { currency: 'EURO' },
    { fareMinor: 12.5 },
    { taxMinor: -1 },
    { passengerType: 'XXX' as 'ADT' },
    { ancillaries: [{ category: 'Seat', priceMinor: -5, currency: 'EUR' }] },
    { postTicketingServices: [{ postTicketingOrderNo: 'x', category: 'Seat', priceMinor: 5, currency: 'ABC' }] },
    { firstDeparture: { local: '2025-06-11', timeZone: 'Europe/Berlin' } },
  ];
  for (const over of bad) {
    assert.throws(() => quoteTicket({ ticket: ticket(over), rules: [], reason: '1', now: before(10), rates: {} }), RefundEngineInputError, JSON.stringify(over));
  }
  assert.throws(() => quoteTicket({ ticket: ticket(), rules: [], reason: '2' as '1', now: before(10), rates: {} }), RefundEngineInputError);
  assert.throws(() => quoteTicket({ ticket: ticket(), rules: [], reason: '1', now: new Date(NaN), rates: {} }), RefundEngineInputError);
});
