// quoteTicket: one ticket's refund quote, itemised, following docs/architecture.md "Refund arithmetic" steps 1–7.
import { MoneyError, exponentOf, formatMinor } from '../../money/money.js';
import { convertMinor, ruleAmountIn } from './convert.js';
import { divHalfUp, parseDecimal, pow10, toSafeNumber } from './decimal.js';
import { describeWindow, present, rankCandidates, ruleTypeFor, windowOf, type CandidateQuery } from './rules.js';
import { minutesBetween, type NowRange } from './now-range.js';
import { RefundEngineInputError, departureInstant, departureIso, instantOf, isoInstant } from './time.js';
import type {
  AncillaryRefund,
  AppliedRule,
  PostTicketingRefund,
  RefundMethod,
  RefundReason,
  RefundRule,
  TicketForQuote,
  TicketQuote,
  TicketQuoteInput,
} from './types.js';

const REASONS: readonly string[] = ['0', '1', '4'];
const PASSENGER_TYPES: readonly string[] = ['ADT', 'CHD', 'INF'];
const METHODS: readonly string[] = ['CashBackToOriginalPayment', 'Voucher'];

/** Absent booleans are false (edge cases). */
function flag(value: boolean | null | undefined): boolean {
  return value === true;
}

/** A frozen rule's categories as a set, made once (an airline's terms are frozen: every quote reads the same rules). */
const categoriesOfRule = new WeakMap<RefundRule, ReadonlySet<string>>();

function refundableCategories(rule: RefundRule): ReadonlySet<string> {
  let categories = categoriesOfRule.get(rule);
  if (categories === undefined) {
    categories = new Set(present(rule.refundableAncillaries) ? rule.refundableAncillaries : []);
    if (Object.isFrozen(rule) && (!present(rule.refundableAncillaries) || Object.isFrozen(rule.refundableAncillaries))) categoriesOfRule.set(rule, categories);
  }
  return categories;
}

function isMinor(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function checkCurrency(currency: string, what: string): void {
  try {
    exponentOf(currency);
  } catch (e) {
    if (e instanceof MoneyError) throw new RefundEngineInputError(`${what}: ${e.message}`);
    throw e;
  }
}

/** Ticket data comes from our own store: malformed input is a bug upstream, so it throws instead of quoting. */
function validateTicket(ticket: TicketForQuote, reason: RefundReason): void {
  if (!REASONS.includes(reason)) throw new RefundEngineInputError(`refund reason ${JSON.stringify(reason)} is not '0', '1' or '4'`);
  if (!PASSENGER_TYPES.includes(ticket.passengerType)) {
    throw new RefundEngineInputError(`ticket ${ticket.ticketNo}: passenger type ${JSON.stringify(ticket.passengerType)} unknown`);
  }
  checkCurrency(ticket.currency, `ticket ${ticket.ticketNo}`);
  if (!isMinor(ticket.fareMinor) || !isMinor(ticket.taxMinor)) {
    throw new RefundEngineInputError(`ticket ${ticket.ticketNo}: fare and tax must be whole minor units ≥ 0`);
  }
  for (const a of [...ticket.ancillaries, ...ticket.postTicketingServices]) {
    checkCurrency(a.currency, `ticket ${ticket.ticketNo} ancillary ${a.category}`);
    if (!isMinor(a.priceMinor)) throw new RefundEngineInputError(`ticket ${ticket.ticketNo}: ancillary price must be whole minor units ≥ 0`);
  }
}

type Step<T> = { ok: true; value: T } | { ok: false; why: string; noRate?: true };

/**
 * Where the explanation goes; null when the caller asked for none. `reasons?.push(text)` then skips building
 * the text too: an optional call evaluates no argument when its target is null.
 */
type Notes = string[] | null;

/** step 5: penalty = max(penaltyAmount, penaltyPercent % of base); base fare or fare+tax, rounded once half-up. */
function penaltyOf(rule: RefundRule, ticket: TicketForQuote, rates: TicketQuoteInput['rates'], reasons: Notes): Step<number> {
  const cur = ticket.currency;
  let amount = 0;
  if (present(rule.penaltyAmount) && rule.penaltyAmount.trim() !== '') {
    const converted = ruleAmountIn(rule.penaltyAmount, cur, rates);
    if (!converted.ok) return Object.assign({}, converted, { why: `penaltyAmount: ${converted.why}` });
    amount = converted.minor;
    reasons?.push(`5. penaltyAmount ${rule.penaltyAmount} → ${converted.note}`);
  }
  let percentPart = 0;
  if (present(rule.penaltyPercent)) {
    const percent = parseDecimal(rule.penaltyPercent);
    if (!percent || percent.units < 0n) return { ok: false, why: `penaltyPercent ${String(rule.penaltyPercent)} is not a percentage ≥ 0` };
    const baseName = present(rule.penaltyPercentBase) ? rule.penaltyPercentBase : 'fare';
    if (baseName !== 'fare' && baseName !== 'fare+tax') return { ok: false, why: `penaltyPercentBase ${JSON.stringify(baseName)} is neither 'fare' nor 'fare+tax'` };
    // The base is the full fare (or fare+tax) whatever is refundable (edge cases).
    const base = baseName === 'fare' ? ticket.fareMinor : ticket.fareMinor + ticket.taxMinor;
    percentPart = toSafeNumber(divHalfUp(BigInt(base) * percent.units, 100n * pow10(percent.scale)));
    reasons?.push(`5. ${String(rule.penaltyPercent)}% of ${baseName} ${formatMinor(base, cur)} = ${formatMinor(percentPart, cur)} (rounded half-up once)`);
  }
  const penalty = Math.max(amount, percentPart);
  reasons?.push(`5. penalty = max(${formatMinor(amount, cur)}, ${formatMinor(percentPart, cur)}) = ${cur} ${formatMinor(penalty, cur)}`);
  return { ok: true, value: penalty };
}

function feeOf(rule: RefundRule, ticket: TicketForQuote, rates: TicketQuoteInput['rates'], reasons: Notes): Step<number> {
  if (!present(rule.airlineFee) || rule.airlineFee.trim() === '') {
    reasons?.push('5. airline fee: none');
    return { ok: true, value: 0 };
  }
  const converted = ruleAmountIn(rule.airlineFee, ticket.currency, rates);
  if (!converted.ok) return Object.assign({}, converted, { why: `airlineFee: ${converted.why}` });
  reasons?.push(`5. airline fee ${rule.airlineFee} → ${converted.note}`);
  return { ok: true, value: converted.minor };
}

function methodOf(rule: RefundRule): Step<RefundMethod> {
  if (!present(rule.refundMethod)) return { ok: true, value: 'CashBackToOriginalPayment' };
  if (!METHODS.includes(rule.refundMethod)) return { ok: false, why: `refundMethod ${JSON.stringify(rule.refundMethod)} unknown` };
  return { ok: true, value: rule.refundMethod };
}

type QuoteBase = Pick<
  TicketQuote,
  'ticketNo' | 'carrier' | 'passengerType' | 'reason' | 'departureUtc' | 'minutesToDeparture' | 'currency' | 'fareMinor' | 'taxMinor' | 'ancillaryPaidMinor' | 'reasons'
>;

/** What the chosen rule decides whatever the amounts (step 7 and step 8). */
type RuleDecision = Pick<TicketQuote, 'isRefundable' | 'refundMethod'>;

/**
 * Step 4 + edge cases: a CannotQuote has all amounts 0; isRefundable true and method CashBackToOriginalPayment,
 * unless the chosen rule decided them (`decided`: a rule amount whose currency has no rate).
 */
function cannotQuoteOf(
  base: QuoteBase,
  notes: Notes,
  ticket: TicketForQuote,
  why: string,
  applied: AppliedRule | null,
  fallbackToTaxRule: boolean,
  decided: RuleDecision = { isRefundable: true, refundMethod: 'CashBackToOriginalPayment' },
): TicketQuote {
  notes?.push(`4. CannotQuote: ${why}; estimated amounts 0, submission allowed, the airline's actual refund applies`);
  return ticketQuoteOf(base, {
    quoteType: 'CannotQuote',
    isRefundable: decided.isRefundable,
    refundMethod: decided.refundMethod,
    appliedRule: applied,
    window: applied ? windowOf(applied.rule) : null,
    fallbackToTaxRule,
    refundableMinor: 0,
    penaltyMinor: 0,
    airlineFeeMinor: 0,
    ticketRefundMinor: 0,
    ancillaryRefunds: ticket.ancillaries.map((a) => ({ category: a.category, priceMinor: a.priceMinor, currency: a.currency, refundMinor: 0 })),
    postTicketingRefunds: ticket.postTicketingServices.map((s) => ({
      postTicketingOrderNo: s.postTicketingOrderNo,
      category: s.category,
      currency: s.currency,
      originalMinor: s.priceMinor,
      refundMinor: 0,
    })),
    totalRefundMinor: 0,
  });
}

/** Steps 2–3: the candidates, the chosen rule, and the tax-refund fallback (reason '1' only, on the chosen rule's flags). */
function chooseRule(
  rules: readonly RefundRule[],
  query: CandidateQuery,
  reason: RefundReason,
  reasons: Notes,
): { applied: AppliedRule; fallbackToTaxRule: boolean } | null {
  const ranked = rankCandidates(rules, query);
  const label = (a: AppliedRule): string =>
    `#${a.index} (${present(a.rule.passengerType) ? a.rule.passengerType : 'any passenger'}, window ${describeWindow(windowOf(a.rule))})`;
  reasons?.push(
    `2. candidates for ${query.carrier} ruleType ${query.ruleType} ${query.passengerType} at m = ${query.minutesToDeparture}: ` +
      (ranked.length ? ranked.map(label).join(', ') : 'none'),
  );
  const chosen = ranked[0];
  if (!chosen) return null;
  reasons?.push(`3. chose rule ${label(chosen)}: passenger-type-specific first, then narrowest window, then list order`);
  if (reason === '1' && !flag(chosen.rule.fareRefundable) && !flag(chosen.rule.taxRefundable)) {
    const taxRule = rankCandidates(rules, Object.assign({}, query, { ruleType: '2' as const }))[0];
    if (taxRule) {
      reasons?.push(`3. voluntary rule refunds neither fare nor tax: tax-refund rule ${label(taxRule)} decides instead`);
      return { applied: taxRule, fallbackToTaxRule: true };
    }
    reasons?.push('3. voluntary rule refunds neither fare nor tax; no ruleType 2 rule matches, so it stands');
  }
  return { applied: chosen, fallbackToTaxRule: false };
}

/**
 * Step 6: in-flow ancillaries refund their price (in the quote currency) when the rule lists their category;
 * post-ticketing services are listed apart under the same test, in their own currency.
 */
function ancillaryRefundsOf(
  ticket: TicketForQuote,
  categories: ReadonlySet<string>,
  paidInQuoteCurrency: readonly (number | null)[],
  reasons: Notes,
): Step<{ ancillaryRefunds: AncillaryRefund[]; postTicketingRefunds: PostTicketingRefund[] }> {
  const cur = ticket.currency;
  const ancillaryRefunds: AncillaryRefund[] = [];
  for (const [i, a] of ticket.ancillaries.entries()) {
    const refundable = categories.has(a.category);
    const inQuoteCurrency = paidInQuoteCurrency[i] ?? null;
    if (refundable && inQuoteCurrency === null) return { ok: false, why: `ancillary ${a.category}: no usable rate ${a.currency}->${cur}` };
    const refundMinor = refundable ? (inQuoteCurrency ?? 0) : 0;
    ancillaryRefunds.push({ category: a.category, priceMinor: a.priceMinor, currency: a.currency, refundMinor });
    reasons?.push(`6. in-flow ${a.category} ${a.currency} ${formatMinor(a.priceMinor, a.currency)}: ${refundable ? `refundable → ${formatMinor(refundMinor, cur)}` : 'not refundable'}`);
  }
  const postTicketingRefunds: PostTicketingRefund[] = ticket.postTicketingServices.map((s) => {
    const refundable = categories.has(s.category);
    reasons?.push(`6. post-ticketing ${s.postTicketingOrderNo} ${s.category} ${s.currency} ${formatMinor(s.priceMinor, s.currency)}: ${refundable ? 'refundable' : 'not refundable'}`);
    return {
      postTicketingOrderNo: s.postTicketingOrderNo,
      category: s.category,
      currency: s.currency,
      originalMinor: s.priceMinor,
      refundMinor: refundable ? s.priceMinor : 0,
    };
  });
  return { ok: true, value: { ancillaryRefunds, postTicketingRefunds } };
}

/**
 * `range` as given, refused when it is the range of another instant than `nowMs` (a caller's mistake: the readings
 * made through it would bound another instant's answer). The one check of it, for the engine and the refund checks.
 */
export function rangeOf(range: NowRange | undefined, nowMs: number): NowRange | undefined {
  if (range && range.now !== nowMs) throw new RefundEngineInputError('nowRange is the range of another instant than now');
  return range;
}

/**
 * Quote one ticket. Pure: the clock is `now`, rates are passed in, nothing is read or written.
 * Throws RefundEngineInputError only for malformed ticket/clock input; rule problems (unreadable amount,
 * missing rate) give a CannotQuote with the cause in `reasons`.
 */
export function quoteTicket(input: TicketQuoteInput): TicketQuote {
  const { ticket, rules, reason, rates } = input;
  validateTicket(ticket, reason);
  const cur = ticket.currency;
  const nowMs = instantOf(input.now);
  const departureMs = departureInstant(ticket.firstDeparture);
  const departureUtc = departureIso(departureMs);
  const range = rangeOf(input.nowRange, nowMs);
  const m = range ? range.minutesUntil(departureMs) : minutesBetween(nowMs, departureMs);
  // The explanation names `now` to the millisecond: an answer with it holds at `now` alone.
  if (input.explain !== false) range?.within(nowMs, nowMs);
  const reasons: Notes =
    input.explain === false
      ? null
      : [`1. departure ${ticket.firstDeparture.local} ${ticket.firstDeparture.timeZone} = ${departureUtc}; ` + `now ${isoInstant(nowMs)}; m = ${m} minutes (floor)`];

  // Originals in the quote currency (in-flow ancillaries converted when bought in another currency).
  const paidInQuoteCurrency: (number | null)[] = ticket.ancillaries.map((a) => {
    const c = convertMinor(a.priceMinor, a.currency, cur, rates);
    return c.ok ? c.minor : null;
  });
  const ancillaryPaidMinor = paidInQuoteCurrency.some((v) => v === null)
    ? null
    : paidInQuoteCurrency.reduce<number>((sum, v) => sum + (v ?? 0), 0);

  const base: QuoteBase = {
    ticketNo: ticket.ticketNo,
    carrier: ticket.carrier,
    passengerType: ticket.passengerType,
    reason,
    departureUtc,
    minutesToDeparture: m,
    currency: cur,
    fareMinor: ticket.fareMinor,
    taxMinor: ticket.taxMinor,
    ancillaryPaidMinor,
    reasons: reasons ?? [],
  };

  const cannotQuote = (why: string, applied: AppliedRule | null, fallbackToTaxRule: boolean, decided?: RuleDecision): TicketQuote =>
    cannotQuoteOf(base, reasons, ticket, why, applied, fallbackToTaxRule, decided);

  // steps 2–3: candidates and choice.
  const choice = chooseRule(rules, { carrier: ticket.carrier, passengerType: ticket.passengerType, ruleType: ruleTypeFor(reason), minutesToDeparture: m }, reason, reasons);
  if (!choice) return cannotQuote('no rule matches', null, false);
  const { applied, fallbackToTaxRule } = choice;
  const rule = applied.rule;

  const method = methodOf(rule);
  if (!method.ok) return cannotQuote(method.why, applied, fallbackToTaxRule);
  // step 7 + edge case: decided by flags, not amounts; any of the ticket's ancillaries (in-flow or post-ticketing) counts.
  const fareRefundable = flag(rule.fareRefundable);
  const taxRefundable = flag(rule.taxRefundable);
  const categories = refundableCategories(rule);
  const anyAncillary = [...ticket.ancillaries, ...ticket.postTicketingServices].some((a) => categories.has(a.category));
  const isRefundable = fareRefundable || taxRefundable || anyAncillary;
  // Edge case: a rule amount whose currency has no rate leaves the amounts unknown, not the rule's decision.
  const ruleDecided = { isRefundable, refundMethod: method.value };
  const penalty = penaltyOf(rule, ticket, rates, reasons);
  if (!penalty.ok) return cannotQuote(penalty.why, applied, fallbackToTaxRule, penalty.noRate ? ruleDecided : undefined);
  const fee = feeOf(rule, ticket, rates, reasons);
  if (!fee.ok) return cannotQuote(fee.why, applied, fallbackToTaxRule, fee.noRate ? ruleDecided : undefined);

  // step 5: refundable parts and the clamped ticket part.
  const refundableMinor = (fareRefundable ? ticket.fareMinor : 0) + (taxRefundable ? ticket.taxMinor : 0);
  reasons?.push(
    `5. refundable = fare ${fareRefundable ? formatMinor(ticket.fareMinor, cur) : '0 (not refundable)'} + ` +
      `tax ${taxRefundable ? formatMinor(ticket.taxMinor, cur) : '0 (not refundable)'} = ${formatMinor(refundableMinor, cur)}`,
  );
  const ticketRefundMinor = Math.max(0, refundableMinor - penalty.value - fee.value);
  reasons?.push(
    `5. ticket refund = max(0, ${formatMinor(refundableMinor, cur)} − ${formatMinor(penalty.value, cur)} − ` +
      `${formatMinor(fee.value, cur)}) = ${formatMinor(ticketRefundMinor, cur)}`,
  );

  // step 6: in-flow ancillaries added after the clamp; post-ticketing listed separately with the same test.
  const ancillaries = ancillaryRefundsOf(ticket, categories, paidInQuoteCurrency, reasons);
  if (!ancillaries.ok) return cannotQuote(ancillaries.why, applied, fallbackToTaxRule);
  const { ancillaryRefunds, postTicketingRefunds } = ancillaries.value;
  const totalRefundMinor = ancillaryRefunds.reduce((sum, a) => sum + a.refundMinor, ticketRefundMinor);
  reasons?.push(`6. total (ticket part + in-flow ancillaries) = ${cur} ${formatMinor(totalRefundMinor, cur)}`);

  // step 7: isRefundable was decided above, from the rule's flags.
  reasons?.push(isRefundable ? '7. refundable under this rule' : '7. rule refunds nothing (fare, tax and ancillaries non-refundable): isRefundable false, submitting → 808');
  reasons?.push(`8. refund method ${method.value}`);

  return ticketQuoteOf(base, {
    quoteType: 'AccurateQuote',
    isRefundable,
    refundMethod: method.value,
    appliedRule: applied,
    window: windowOf(rule),
    fallbackToTaxRule,
    refundableMinor,
    penaltyMinor: penalty.value,
    airlineFeeMinor: fee.value,
    ticketRefundMinor,
    ancillaryRefunds,
    postTicketingRefunds,
    totalRefundMinor,
  });
}

/**
 * The ticket's quote as one object literal with every field named. Not `{ ...base, ... }`: V8 builds a spread
 * followed by more fields by adding them one at a time to a copy, and that was nearly all of quoteTicket's own
 * time (a CPU profile of the refund quote, 2026-11-25).
 */
function ticketQuoteOf(base: QuoteBase, rest: Omit<TicketQuote, keyof QuoteBase>): TicketQuote {
  return {
    ticketNo: base.ticketNo,
    carrier: base.carrier,
    passengerType: base.passengerType,
    reason: base.reason,
    departureUtc: base.departureUtc,
    minutesToDeparture: base.minutesToDeparture,
    currency: base.currency,
    fareMinor: base.fareMinor,
    taxMinor: base.taxMinor,
    ancillaryPaidMinor: base.ancillaryPaidMinor,
    reasons: base.reasons,
    quoteType: rest.quoteType,
    isRefundable: rest.isRefundable,
    refundMethod: rest.refundMethod,
    appliedRule: rest.appliedRule,
    window: rest.window,
    fallbackToTaxRule: rest.fallbackToTaxRule,
    refundableMinor: rest.refundableMinor,
    penaltyMinor: rest.penaltyMinor,
    airlineFeeMinor: rest.airlineFeeMinor,
    ticketRefundMinor: rest.ticketRefundMinor,
    ancillaryRefunds: rest.ancillaryRefunds,
    postTicketingRefunds: rest.postTicketingRefunds,
    totalRefundMinor: rest.totalRefundMinor,
  };
}
