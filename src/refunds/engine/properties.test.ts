// Property tests (fast-check): invariants that must hold for any ticket, rule set, clock and rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { exponentOf, formatMinor } from '../../money/money.js';
import { convertMinor } from './convert.js';
import { quoteTicket } from './quote.js';
import { quoteRequest } from './request.js';
import { windowContains } from './rules.js';
import { departureInstant } from './time.js';
import { before, rule, ticket } from './test-fixtures.js';
import type { Rates, RefundReason, RefundRule, TicketForQuote, TicketQuoteInput } from './types.js';

const CURRENCIES = ['EUR', 'JPY', 'KWD', 'USD'] as const;
const CATEGORIES = ['StandardCheckInBaggage', 'CabinBaggage', 'CabinBaggageUnderSeat', 'CabinBaggageOverheadLocker', 'Seat'] as const;
const RUNS = { numRuns: 300 };

/** "12.345"-style decimal text from integer units and a scale. */
function decimalText(units: number, scale: number): string {
  const digits = String(units).padStart(scale + 1, '0');
  return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

const arbCurrency = fc.constantFrom(...CURRENCIES);
const arbAmountText = fc
  .tuple(arbCurrency, fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 4 }))
  .map(([cur, units, scale]) => `${cur} ${decimalText(units, scale)}`);
const arbRateText = fc.tuple(fc.integer({ min: 1, max: 5_000_000 }), fc.integer({ min: 0, max: 6 })).map(([u, s]) => decimalText(u, s));
/** Rates for some currency pairs, so some conversions succeed and some are missing. */
const arbRates: fc.Arbitrary<Rates> = fc.dictionary(
  fc.tuple(arbCurrency, arbCurrency).filter(([a, b]) => a !== b).map(([a, b]) => `${a}->${b}`),
  arbRateText,
  { maxKeys: 12 },
);

const arbWindowBound = fc.option(fc.integer({ min: -5_000, max: 50_000 }), { nil: null });
const arbRule: fc.Arbitrary<RefundRule> = fc.record(
  {
    airline: fc.constantFrom('LH', 'AF'),
    ruleType: fc.constantFrom('0', '1', '2', '3', '4'),
    passengerType: fc.option(fc.constantFrom('ADT', 'CHD', 'INF'), { nil: null }),
    penaltyAmount: fc.option(arbAmountText, { nil: null }),
    penaltyPercent: fc.option(fc.double({ min: 0, max: 150, noNaN: true }), { nil: null }),
    penaltyPercentBase: fc.option(fc.constantFrom('fare', 'fare+tax'), { nil: null }),
    airlineFee: fc.option(arbAmountText, { nil: null }),
    taxRefundable: fc.option(fc.boolean(), { nil: null }),
    fareRefundable: fc.option(fc.boolean(), { nil: null }),
    refundableAncillaries: fc.option(fc.subarray([...CATEGORIES]), { nil: null }),
    startMinute: arbWindowBound,
    endMinute: arbWindowBound,
    refundMethod: fc.option(fc.constantFrom('CashBackToOriginalPayment', 'Voucher'), { nil: null }),
  },
  { requiredKeys: ['airline', 'ruleType'] },
);

/** A ticket whose in-flow ancillaries share its currency (so "what was paid" is one sum). */
const arbTicket: fc.Arbitrary<TicketForQuote> = arbCurrency.chain((currency) =>
  fc.record({
    ticketNo: fc.constant('T-1'),
    carrier: fc.constant('LH'),
    passengerType: fc.constantFrom('ADT', 'CHD', 'INF'),
    currency: fc.constant(currency),
    fareMinor: fc.integer({ min: 0, max: 5_000_000 }),
    taxMinor: fc.integer({ min: 0, max: 1_000_000 }),
    firstDeparture: fc.constant({ local: '2025-06-11 12:00', timeZone: 'Europe/Berlin' }),
    ancillaries: fc.array(fc.record({ category: fc.constantFrom(...CATEGORIES), priceMinor: fc.integer({ min: 0, max: 200_000 }), currency: fc.constant(currency) }), {
      maxLength: 4,
    }),
    postTicketingServices: fc.array(
      fc.record({
        postTicketingOrderNo: fc.string({ minLength: 1, maxLength: 6 }),
        category: fc.constantFrom(...CATEGORIES),
        priceMinor: fc.integer({ min: 0, max: 200_000 }),
        currency: arbCurrency,
      }),
      { maxLength: 3 },
    ),
  }),
);

const arbReason = fc.constantFrom<RefundReason>('0', '1', '4');
const arbInput: fc.Arbitrary<TicketQuoteInput> = fc
  .record({
    ticket: arbTicket,
    rules: fc.array(arbRule, { maxLength: 8 }),
    reason: arbReason,
    minutes: fc.integer({ min: -3_000, max: 60_000 }),
    seconds: fc.integer({ min: 0, max: 59 }),
    rates: arbRates,
  })
  .map(({ minutes, seconds, ...rest }) => ({ ...rest, now: before(minutes, seconds) }));

void test('property: a refund never exceeds what was paid and never drops below zero', () => {
  fc.assert(
    fc.property(arbInput, (input) => {
      const q = quoteTicket(input);
      const t = input.ticket;
      const paid = t.fareMinor + t.taxMinor + t.ancillaries.reduce((s, a) => s + a.priceMinor, 0);
      assert.ok(q.ticketRefundMinor >= 0 && q.ticketRefundMinor <= q.refundableMinor);
      assert.ok(q.refundableMinor <= t.fareMinor + t.taxMinor);
      assert.ok(q.totalRefundMinor >= 0 && q.totalRefundMinor <= paid, `total ${q.totalRefundMinor} > paid ${paid}`);
      assert.ok(q.penaltyMinor >= 0 && q.airlineFeeMinor >= 0);
      q.ancillaryRefunds.forEach((a, i) => assert.ok(a.refundMinor === 0 || a.refundMinor === t.ancillaries[i]!.priceMinor));
      q.postTicketingRefunds.forEach((p) => assert.ok(p.refundMinor >= 0 && p.refundMinor <= p.originalMinor));
      if (q.quoteType === 'CannotQuote') assert.equal(q.totalRefundMinor, 0);
      if (q.quoteType === 'CannotQuote' && q.appliedRule === null) {
        assert.equal(q.isRefundable, true);
        assert.equal(q.refundMethod, 'CashBackToOriginalPayment');
      }
    }),
    RUNS,
  );
});

void test('property: a rule amount without a rate zeroes the amounts but leaves isRefundable and refundMethod to the rule', () => {
  // One rule that is always chosen, with a penalty or fee in another currency than the ticket's.
  const arbCase = fc.record({
    ticket: arbTicket,
    reason: arbReason,
    flags: fc.record({
      fareRefundable: fc.option(fc.boolean(), { nil: null }),
      taxRefundable: fc.option(fc.boolean(), { nil: null }),
      refundableAncillaries: fc.option(fc.subarray([...CATEGORIES]), { nil: null }),
      refundMethod: fc.option(fc.constantFrom('CashBackToOriginalPayment' as const, 'Voucher' as const), { nil: null }),
    }),
    amount: fc.tuple(fc.integer({ min: 0, max: 2_000_000 }), fc.integer({ min: 0, max: 2 })).map(([u, s]) => decimalText(u, s)),
    onFee: fc.boolean(),
  });
  fc.assert(
    fc.property(arbCase, ({ ticket: t, reason, flags, amount, onFee }) => {
      const other = CURRENCIES.find((c) => c !== t.currency)!;
      const r: RefundRule = { airline: 'LH', ruleType: reason, ...flags, ...(onFee ? { airlineFee: `${other} ${amount}` } : { penaltyAmount: `${other} ${amount}` }) };
      const now = before(14_400);
      const without = quoteTicket({ ticket: t, rules: [r], reason, now, rates: {} });
      const everyRate: Rates = Object.fromEntries(CURRENCIES.flatMap((a) => CURRENCIES.filter((b) => b !== a).map((b) => [`${a}->${b}`, '1.25'])));
      const withRates = quoteTicket({ ticket: t, rules: [r], reason, now, rates: everyRate });
      assert.equal(without.quoteType, 'CannotQuote');
      assert.equal(without.totalRefundMinor, 0);
      assert.equal(without.appliedRule?.index, 0);
      assert.equal(withRates.quoteType, 'AccurateQuote');
      assert.equal(without.isRefundable, withRates.isRefundable);
      assert.equal(without.refundMethod, withRates.refundMethod);
      const categories = new Set<string>(flags.refundableAncillaries ?? []);
      const byFlags = flags.fareRefundable === true || flags.taxRefundable === true || [...t.ancillaries, ...t.postTicketingServices].some((a) => categories.has(a.category));
      assert.equal(without.isRefundable, byFlags);
      assert.equal(without.refundMethod, flags.refundMethod ?? 'CashBackToOriginalPayment');
    }),
    RUNS,
  );
});

void test('property: the same inputs give the same quote (determinism, whatever the host time zone)', () => {
  const savedTz = process.env.TZ;
  try {
    fc.assert(
      fc.property(arbInput, fc.constantFrom('UTC', 'America/Los_Angeles', 'Asia/Kolkata', 'Pacific/Chatham'), (input, hostTz) => {
        const first = quoteTicket(input);
        process.env.TZ = hostTz;
        const again = quoteTicket(structuredClone(input));
        process.env.TZ = savedTz;
        // appliedRule.rule is the caller's (maybe null-prototype) object in one and a clone in the other:
        // compare by value.
        assert.deepEqual(structuredClone(again), structuredClone(first));
      }),
      RUNS,
    );
  } finally {
    if (savedTz === undefined) delete process.env.TZ;
    else process.env.TZ = savedTz;
  }
});

void test('property: a boundary minute falls in exactly one of two adjacent windows', () => {
  const arbBound = fc.option(fc.integer({ min: -100_000, max: 100_000 }), { nil: null });
  fc.assert(
    fc.property(arbBound, fc.integer({ min: -100_000, max: 100_000 }), arbBound, fc.integer({ min: -200_000, max: 200_000 }), (a, b, c, mOffset) => {
      fc.pre((a === null || a < b) && (c === null || c > b));
      const lower = { endMinute: a, startMinute: b };
      const upper = { endMinute: b, startMinute: c };
      for (const m of [b, b + 1, b - 1, mOffset]) {
        const inLower = windowContains(lower, m);
        const inUpper = windowContains(upper, m);
        const inUnion = windowContains({ endMinute: a, startMinute: c }, m);
        assert.equal(inLower && inUpper, false, `m = ${m} in both`);
        assert.equal(inLower || inUpper, inUnion, `m = ${m}`);
      }
      assert.equal(windowContains(lower, b), true);
      assert.equal(windowContains(upper, b), false);
    }),
    { numRuns: 1000 },
  );
});

void test('property: the engine picks the window that holds m among two adjacent rules', () => {
  fc.assert(
    fc.property(fc.integer({ min: -2_000, max: 40_000 }), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 1, max: 5_000 }), (b, lowW, highW) => {
      // upper window (b, b + highW] listed first, lower window (b − lowW, b] second
      const rules = [rule({ endMinute: b, startMinute: b + highW, fareRefundable: true }), rule({ endMinute: b - lowW, startMinute: b, taxRefundable: true })];
      const expected: [m: number, index: number | null][] = [
        [b, 1],
        [b - lowW + 1, 1],
        [b + 1, 0],
        [b + highW, 0],
        [b - lowW, null],
        [b + highW + 1, null],
      ];
      for (const [m, index] of expected) {
        const q = quoteTicket({ ticket: ticket(), rules, reason: '1', now: before(m), rates: {} });
        assert.equal(q.appliedRule?.index ?? null, index, `m = ${m}`);
      }
    }),
    RUNS,
  );
});

/** Sum of decimal strings done in decimal digits, to check that minor-unit sums match what a reader adds up. */
/**
 * The lines as a reader of the wire adds them: decimal texts read as numbers (the answer's amounts are JSON
 * numbers), summed, and shown at the currency's exponent. Found by a review: this summed the texts' digits as
 * integers again, the same sum as the minor units' one line above, so it could not fail.
 */
function wireSum(texts: string[], currency: string): string {
  return texts.reduce((s, t) => s + Number(t), 0).toFixed(exponentOf(currency));
}

void test('property: rounding never creates or loses a minor unit when summing lines', () => {
  fc.assert(
    fc.property(fc.array(arbInput, { minLength: 1, maxLength: 4 }), arbRates, (inputs, rates) => {
      const items = inputs.map((input, i) => ({ ticket: { ...input.ticket, ticketNo: `T-${i}` }, reason: input.reason }));
      const rules = inputs.flatMap((i) => i.rules).map((r) => ({ ...r, refundMethod: null }));
      const result = quoteRequest({
        items,
        rules,
        now: inputs[0]!.now,
        rates,
        airlineTerms: { confirmationDays: 1, refundDays: 1, fastConfirmation: false },
        serviceFeePerPassenger: { currency: 'EUR', minor: 100 },
      });
      assert.ok(result.ok);
      const q = result.quote;
      for (const t of q.tickets) {
        // a ticket's total is exactly its lines
        assert.equal(t.totalRefundMinor, t.ticketRefundMinor + t.ancillaryRefunds.reduce((s, a) => s + a.refundMinor, 0));
        const lines = [t.ticketRefundMinor, ...t.ancillaryRefunds.map((a) => a.refundMinor)].map((m) => formatMinor(m, t.currency));
        assert.equal(formatMinor(t.totalRefundMinor, t.currency), wireSum(lines, t.currency));
      }
      for (const total of q.totals) {
        const mine = q.tickets.filter((t) => t.currency === total.currency);
        const expected = q.quoteType === 'CannotQuote' ? 0 : mine.reduce((s, t) => s + t.totalRefundMinor, 0);
        assert.equal(total.refundMinor, expected);
        assert.equal(total.fareMinor, mine.reduce((s, t) => s + t.fareMinor, 0));
        assert.equal(total.taxMinor, mine.reduce((s, t) => s + t.taxMinor, 0));
      }
      assert.equal(
        q.totals.reduce((s, t) => s + t.fareMinor, 0),
        items.reduce((s, i) => s + i.ticket.fareMinor, 0),
      );
      assert.equal(q.serviceFee.transactionFeeMinor, 100 * items.length);
    }),
    { numRuns: 150 },
  );
});

void test('property: a converted amount is within half a minor unit of the exact value, ties rounding up', () => {
  fc.assert(
    fc.property(arbCurrency, arbCurrency, fc.integer({ min: 0, max: 1_000_000_000 }), arbRateText, (from, to, minor, rateText) => {
      fc.pre(from !== to);
      const c = convertMinor(minor, from, to, { [`${from}->${to}`]: rateText });
      // exact = minor / 10^ef × rate × 10^et; compare 2·(result − exact) ∈ (−1, 1] in scaled integers
      const [ri = '0', rf = ''] = rateText.split('.');
      const rateUnits = BigInt(ri + rf);
      const den = 10n ** BigInt(exponentOf(from) + rf.length);
      const exactNum = BigInt(minor) * rateUnits * 10n ** BigInt(exponentOf(to));
      if (!c.ok) {
        // only refused when the result cannot be held exactly as a JS number
        assert.ok(exactNum / den > BigInt(Number.MAX_SAFE_INTEGER) - 1n, c.why);
        return;
      }
      const diff2 = 2n * (BigInt(c.minor) * den - exactNum);
      assert.ok(diff2 > -den && diff2 <= den, `${minor} ${from} × ${rateText} → ${c.minor} ${to}`);
    }),
    { numRuns: 1000 },
  );
});

void test('property: the percent penalty is within half a minor unit of the exact percentage, ties rounding up', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 100_000_000 }), fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 3 }), (fare, pUnits, pScale) => {
      const percentText = decimalText(pUnits, pScale);
      const q = quoteTicket({
        ticket: ticket({ fareMinor: fare }),
        rules: [rule({ fareRefundable: true, penaltyPercent: Number(percentText) })],
        reason: '1',
        now: before(100),
        rates: {},
      });
      // exact penalty = fare × pUnits / (100 × 10^pScale)
      const den = 100n * 10n ** BigInt(pScale);
      const diff2 = 2n * (BigInt(q.penaltyMinor) * den - BigInt(fare) * BigInt(pUnits));
      assert.ok(diff2 > -den && diff2 <= den, `${fare} × ${percentText}% → ${q.penaltyMinor}`);
    }),
    { numRuns: 1000 },
  );
});

void test('property: a local departure reads back as the earliest instant with that wall time', () => {
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Sydney', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Tokyo', 'Africa/Casablanca'];
  const start = Date.UTC(2020, 0, 1);
  fc.assert(
    fc.property(fc.constantFrom(...zones), fc.integer({ min: 0, max: 10 * 366 * 24 * 4 }), (zone, quarterHours) => {
      const t = start + quarterHours * 15 * 60_000;
      const wall = (ms: number): string => DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm');
      const local = wall(t);
      const got = departureInstant({ local, timeZone: zone });
      assert.equal(wall(got), local, `${local} ${zone}`);
      assert.ok(got <= t);
      for (const back of [30, 60, 90, 120]) assert.notEqual(wall(got - back * 60_000), local, `an earlier reading of ${local} ${zone} exists`);
    }),
    { numRuns: 2000 },
  );
});

void test('property: explain: false (the service’s hot path) gives the same quote without the text explanation', () => {
  fc.assert(
    fc.property(arbInput, (input) => {
      const explained = quoteTicket(input);
      const silent = quoteTicket({ ...input, explain: false });
      assert.ok(explained.reasons.length > 0);
      assert.deepEqual(silent.reasons, []);
      assert.deepEqual({ ...silent, reasons: explained.reasons }, explained);
    }),
  );
});

void test('property: a frozen rule list (an airline\'s kept terms, ranked once per list) quotes as its copy does, at every clock', () => {
  const deepFrozen = (rules: readonly RefundRule[]): readonly RefundRule[] =>
    Object.freeze(rules.map((r) => Object.freeze({ ...r, ...(r.refundableAncillaries ? { refundableAncillaries: Object.freeze([...r.refundableAncillaries]) } : {}) })));
  fc.assert(
    fc.property(arbInput, fc.array(fc.integer({ min: -3_000, max: 60_000 }), { minLength: 1, maxLength: 4 }), (input, laterMinutes) => {
      const frozen = deepFrozen(input.rules);
      // the same frozen list again and again (what the ranking keeps), the clock moving through the rules' windows
      for (const now of [input.now, ...laterMinutes.map((m) => before(m))]) {
        const plain = quoteTicket({ ...input, now, rules: structuredClone(input.rules) });
        const kept = quoteTicket({ ...input, now, rules: frozen });
        assert.deepEqual(structuredClone(kept), structuredClone(plain));
      }
    }),
    RUNS,
  );
});
