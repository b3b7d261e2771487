// From a checked selection to the quote a caller sees: the engine's itemised result shaped for the wire.
import { ApiError } from '../errors.js';
import { parseMoney, toAmount } from '../money/money.js';
import type { AirlineRefundTerms } from '../airline/connector.js';
import { deepFreeze } from '../deep-freeze.js';
import { quoteRequest, convertMinor, type NowRange, type Rates, type RefundMethod, type RefundReason, type RefundRule, type TicketForQuote } from './engine/index.js';
import type { OrderContext } from './context.js';
import { firstDeparture, type Selection } from './checks.js';
import { REFUND_STATUS as S } from './statuses.js';
import type { Static } from 'typebox';
import type { RefundRuleWire } from './wire.js';
import type { RefundVoucher } from './wire.js';

/** What an offer stores: enough to answer the quote again and to create the refund order. */
export interface PricedQuote {
  orderNo: string;
  reason: RefundReason;
  quoteType: 'AccurateQuote' | 'CannotQuote';
  refundMethod: RefundMethod;
  isRefundable: boolean;
  fastConfirmation: 0 | 1;
  expectedConfirmationDate: string;
  expectedRefundDate: string;
  currency: string;
  tickets: Array<{ ticketNo: string; paxIndex: number; lastName: string; firstName: string; paidMinor: number; refundMinor: number }>;
  fare: { originalMinor: number; refundMinor: number };
  post: Array<{ postTicketingOrderNo: string; currency: string; originalMinor: number; refundMinor: number }>;
  vouchers: Array<{ airline: string; currency: string; valueMinor: number; eligible: string[]; travelStart: string; travelEnd: string }> | null;
  serviceFee: { currency: string; minor: number };
  refundRules: RefundRuleWire[];
}

/**
 * The rates of a world as it is at each look: a reload replaces the world's `rates` in place, and quotes, display
 * amounts, ancillary prices and the workers' netting follow it (a review: a table taken at start kept the old
 * rates until a restart). A submitted offer keeps the amounts it was quoted with.
 */
export function worldRates(world: { readonly rates?: Record<string, string> } | null | undefined): Rates {
  return (from: string, to: string) => world?.rates?.[`${from}/${to}`] ?? null;
}

/**
 * The wire form of the airline's rules, kept per frozen rule (a connector's terms, AirlineConnector.refundTerms): every
 * quote lists the rules it applied from, the same few objects every time. A rule that is not frozen is copied anew.
 */
const wireOfRule = new WeakMap<RefundRule, RefundRuleWire>();

function ruleToWire(r: RefundRule): RefundRuleWire {
  if (!Object.isFrozen(r)) return wireRule(r);
  let wire = wireOfRule.get(r);
  if (!wire) wireOfRule.set(r, (wire = deepFreeze(wireRule(r))));
  return wire;
}

function wireRule(r: RefundRule): RefundRuleWire {
  const out: Record<string, unknown> = { airline: r.airline, ruleType: r.ruleType };
  for (const k of [
    'passengerType',
    'penaltyAmount',
    'penaltyPercent',
    'penaltyPercentBase',
    'airlineFee',
    'taxRefundable',
    'fareRefundable',
    'refundableAncillaries',
    'startMinute',
    'endMinute',
    'refundMethod',
  ] as const) {
    const v = r[k];
    if (v !== null && v !== undefined) out[k] = Array.isArray(v) ? [...(v as string[])] : v;
  }
  return out as RefundRuleWire;
}

/**
 * A ticket's share of its passenger's ancillaries and post-ticketing services: those on the segments its coupons
 * fly. A passenger may hold several tickets (an outbound and a return: 804), and each of them was refunded all of
 * the passenger's extras before (found by a review: a bag refunded twice). One on no segment (or on a segment no
 * ticket of the passenger flies) goes with the passenger's first ticket, so that it is counted once.
 */
export function extrasOfTicket(ctx: OrderContext, ticket: { ticketNo: string; paxIndex: number; coupons: ReadonlyArray<{ segmentIndex: number }> }) {
  const own = ctx.tickets.filter((t) => t.paxIndex === ticket.paxIndex);
  const first = own[0]?.ticketNo === ticket.ticketNo;
  const flies = (t: { coupons: ReadonlyArray<{ segmentIndex: number }> }, seg: number) => t.coupons.some((c) => c.segmentIndex === seg);
  const mine = ctx.ancillaries.filter(
    (a) => a.paxIndex === ticket.paxIndex && (a.segmentIndex !== null && own.some((t) => flies(t, a.segmentIndex!)) ? flies(ticket, a.segmentIndex) : first),
  );
  return {
    ancillaries: mine.filter((a) => a.kind === 'inflow').map((a) => ({ category: a.category, priceMinor: a.priceMinor, currency: a.currency })),
    postTicketingServices: mine
      .filter((a) => a.kind === 'post')
      .map((a) => ({ postTicketingOrderNo: a.postOrderNo ?? '', category: a.category, priceMinor: a.priceMinor, currency: a.currency })),
  };
}

export function priceSelection(args: {
  ctx: OrderContext;
  selection: Selection;
  terms: AirlineRefundTerms;
  now: Date;
  rates: Rates;
  serviceFeeText: string | undefined;
  /** Narrowed by the engine's readings of the clock (decision 0067). */
  nowRange?: NowRange;
}): PricedQuote {
  const { ctx, selection, terms, now, rates } = args;
  const items = selection.picks.flatMap((pick) =>
    pick.tickets.map((t) => {
      const dep = firstDeparture(ctx, t);
      const ticket: TicketForQuote = {
        ticketNo: t.ticketNo,
        carrier: ctx.order.carrier,
        passengerType: pick.pax.type,
        currency: t.currency,
        fareMinor: t.fareMinor,
        taxMinor: t.taxMinor,
        firstDeparture: { local: dep.depLocal, timeZone: dep.depTimeZone },
        ...extrasOfTicket(ctx, t),
      };
      return { ticket, reason: selection.reason, pax: pick.pax };
    }),
  );
  const currencies = new Set(items.map((i) => i.ticket.currency));
  if (currencies.size > 1) throw new ApiError(S.INVALID, 'tickets in different currencies cannot share one request; quote them separately');
  const currency = items[0]!.ticket.currency;
  const fee = args.serviceFeeText ? parseMoney(args.serviceFeeText) : { currency, minor: 0 };

  const result = quoteRequest({
    items: items.map(({ ticket, reason, pax }) => ({ ticket, reason, passenger: String(pax.paxIndex) })),
    rules: terms.rules,
    now,
    rates,
    airlineTerms: { confirmationDays: terms.confirmationDays, refundDays: terms.refundDays, fastConfirmation: terms.fastConfirmation },
    serviceFeePerPassenger: fee,
    // The wire answer and the stored offer carry amounts, not the engine's text explanation.
    explain: false,
    nowRange: args.nowRange,
  });
  if (!result.ok) throw new ApiError(S.INVALID, result.msg);
  const q = result.quote;
  const total = q.totals[0]!;
  const cannot = q.quoteType === 'CannotQuote';
  const tickets = items.map(({ ticket, pax }) => {
    const tq = q.tickets.find((t) => t.ticketNo === ticket.ticketNo)!;
    return {
      ticketNo: ticket.ticketNo,
      paxIndex: pax.paxIndex,
      lastName: pax.lastName,
      firstName: pax.firstName,
      paidMinor: tq.fareMinor + tq.taxMinor + (tq.ancillaryPaidMinor ?? 0),
      refundMinor: cannot ? 0 : tq.totalRefundMinor,
    };
  });
  const post = q.tickets.flatMap((t) =>
    t.postTicketingRefunds.map((p) => ({
      postTicketingOrderNo: p.postTicketingOrderNo,
      currency: p.currency,
      originalMinor: p.originalMinor,
      refundMinor: cannot ? 0 : p.refundMinor,
    })),
  );
  const segDates = ctx.segments.map((s) => s.depLocal.slice(0, 10).replace(/-/g, '')).sort();
  // each passenger once, however many of their tickets are refunded (a review: one per ticket)
  const names = [...new Map(items.map((i) => [i.pax.paxIndex, `${i.pax.lastName}/${i.pax.firstName}`])).values()];
  return {
    orderNo: ctx.order.order_no,
    reason: selection.reason,
    quoteType: q.quoteType,
    refundMethod: q.refundMethod,
    isRefundable: q.isRefundable,
    fastConfirmation: q.fastConfirmation,
    expectedConfirmationDate: q.expectedConfirmationDate,
    expectedRefundDate: q.expectedRefundDate,
    currency,
    tickets,
    fare: { originalMinor: total.fareMinor + total.taxMinor + (total.ancillaryPaidMinor ?? 0), refundMinor: total.refundMinor },
    post,
    vouchers:
      q.vouchers?.map((v) => ({
        airline: v.airline,
        currency: v.currency,
        valueMinor: v.valueMinor,
        eligible: names,
        travelStart: segDates[0] ?? '',
        travelEnd: segDates[segDates.length - 1] ?? '',
      })) ?? null,
    serviceFee: { currency: q.serviceFee.currency, minor: q.serviceFee.transactionFeeMinor },
    refundRules: q.refundRules.map(ruleToWire),
  };
}

/** The JSON of each frozen wire rule (ruleToWire's), made at its first quote: it cannot change. */
const jsonOfRule = new WeakMap<RefundRuleWire, string>();

function ruleJson(r: RefundRuleWire): string {
  if (!Object.isFrozen(r)) return JSON.stringify(r);
  let json = jsonOfRule.get(r);
  if (json === undefined) jsonOfRule.set(r, (json = JSON.stringify(r)));
  return json;
}

/** The document of each frozen priced quote (a quote priced once and answered again, decision 0067), made once. */
const jsonOfQuote = new WeakMap<PricedQuote, string>();

/**
 * A priced quote as stored (an offer's and a refund's quote document): JSON.stringify's text, with the airline's
 * rules written from their kept JSON — the same few frozen rules every time, ~60 % of a quote's document.
 */
export function pricedQuoteJson(q: PricedQuote): string {
  if (!Object.isFrozen(q)) return quoteJson(q);
  let json = jsonOfQuote.get(q);
  if (json === undefined) jsonOfQuote.set(q, (json = quoteJson(q)));
  return json;
}

function quoteJson(q: PricedQuote): string {
  const { refundRules, ...rest } = q;
  if (!Array.isArray(refundRules)) return JSON.stringify(q);
  const head = JSON.stringify(rest);
  let rules = '';
  for (let i = 0; i < refundRules.length; i++) rules += (i === 0 ? '' : ',') + ruleJson(refundRules[i]!);
  return `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}"refundRules":[${rules}]}`;
}

/** An amount in the display currency, or null when none was asked or no rate is configured. */
export function display(minor: number, from: string, displayCurrency: string | null, rates: Rates): number | null {
  if (!displayCurrency) return null;
  const c = convertMinor(minor, from, displayCurrency, rates);
  return c.ok ? toAmount(c.minor, displayCurrency) : null;
}

export interface WireQuoteParts {
  fastConfirmation: 0 | 1;
  expectedConfirmationDate: string;
  expectedRefundDate: string;
  refundQuoteType: 'AccurateQuote' | 'CannotQuote';
  refundMethod: 'CashBackToOriginalPayment' | 'Voucher';
  refundTickets: Array<{ lastName: string; firstName: string; ticketNo: string }>;
  refundFareAmount: {
    currency: string;
    originalFareAmount: number;
    estimatedRefundAmount: number;
    displayOriginalFareAmount: number | null;
    displayEstimatedRefundAmount: number | null;
  } | null;
  refundVouchers: Array<Static<typeof RefundVoucher>> | null;
  refundRules: RefundRuleWire[];
  orderNo: string;
  isRefundable: boolean;
}

/** The wire fields shared by the quote, submit and query answers. */
export function wireParts(
  p: PricedQuote,
  opts: {
    displayCurrency: string | null;
    rates: Rates;
    actualRefundMinor?: number | null;
    voucherState?: { id: string | null; code: string | null; startDate: string | null; endDate: string | null };
    /** How the airline paid, once it has (a refund order's outcome): it may differ from the quote's method. */
    paid?: { method: RefundMethod; airline: string };
  },
): WireQuoteParts {
  const refundMinor = opts.actualRefundMinor ?? p.fare.refundMinor;
  const method = opts.paid?.method ?? p.refundMethod;
  return {
    fastConfirmation: p.fastConfirmation,
    expectedConfirmationDate: p.expectedConfirmationDate,
    expectedRefundDate: p.expectedRefundDate,
    refundQuoteType: p.quoteType,
    refundMethod: method,
    refundTickets: p.tickets.map((t) => ({ lastName: t.lastName, firstName: t.firstName, ticketNo: t.ticketNo })),
    // spec 2.4: non-null for cash back; docs/architecture.md "Refund arithmetic" step 8: null for vouchers
    refundFareAmount:
      method === 'Voucher'
        ? null
        : {
            currency: p.currency,
            originalFareAmount: toAmount(p.fare.originalMinor, p.currency),
            estimatedRefundAmount: toAmount(refundMinor, p.currency),
            displayOriginalFareAmount: display(p.fare.originalMinor, p.currency, opts.displayCurrency, opts.rates),
            displayEstimatedRefundAmount: display(refundMinor, p.currency, opts.displayCurrency, opts.rates),
          },
    // a voucher the airline paid for a refund quoted as cash back has no quoted voucher: made from the refund (paidVoucher)
    refundVouchers:
      method !== 'Voucher'
        ? null
        : (p.vouchers ?? (opts.paid ? paidVoucher(p, opts.paid.airline, refundMinor) : null))?.map((v, i) => ({
        voucherId: opts.voucherState?.id ? `${opts.voucherState.id}-${i + 1}` : null,
        voucherCode: opts.voucherState?.code ?? null,
        eligiblePassengers: v.eligible.map((n) => ({ name: n })),
        airline: v.airline,
        estimatedRefundAmount: toAmount(opts.actualRefundMinor ?? v.valueMinor, v.currency),
        currency: v.currency,
        voucherStartDate: opts.voucherState?.startDate ?? null,
        voucherEndDate: opts.voucherState?.endDate ?? null,
        travelStartDate: v.travelStart || null,
        travelEndDate: v.travelEnd || null,
        note: `Usable for new ${v.airline} flights of the eligible passengers; valid 12 months from its start date.`,
      })) ?? null,
    refundRules: p.refundRules,
    orderNo: p.orderNo,
    isRefundable: p.isRefundable,
  };
}

/**
 * The voucher of a refund quoted as cash back that the airline paid in a voucher (its own rule at submission
 * differed from the quote's): the refund's amount for its passengers; the travel window is the airline's, unknown here.
 */
function paidVoucher(p: PricedQuote, airline: string, valueMinor: number): NonNullable<PricedQuote['vouchers']> {
  return [{ airline, currency: p.currency, valueMinor, eligible: p.tickets.map((t) => `${t.lastName}/${t.firstName}`), travelStart: '', travelEnd: '' }];
}

/**
 * The priced services per post-ticketing order and currency, summed: "one object stands for each post-ticketing
 * order" (spec 2.5), whereas an order may hold several services (a bag on each leg: a review saw it listed once
 * per service).
 */
function postOrders(post: PricedQuote['post']): PricedQuote['post'] {
  const orders = new Map<string, PricedQuote['post'][number]>();
  for (const x of post) {
    const key = `${x.postTicketingOrderNo}\u0000${x.currency}`;
    const seen = orders.get(key);
    if (seen) {
      orders.set(key, { postTicketingOrderNo: seen.postTicketingOrderNo, currency: seen.currency, originalMinor: seen.originalMinor + x.originalMinor, refundMinor: seen.refundMinor + x.refundMinor });
    }
    else orders.set(key, x);
  }
  return [...orders.values()];
}

/** The service-side id of a refund's vouchers (spec 2.6 voucherId; each voucher's is this and its ordinal). */
export const voucherIdOf = (refundCode: string) => `vch_${refundCode}`;

/** Quote/submit answer: the post-ticketing services as one object (spec 2.5), summed when several. */
export function postAsObject(p: PricedQuote, displayCurrency: string | null, rates: Rates) {
  if (p.post.length === 0) return null;
  const currency = p.post[0]!.currency;
  const same = postOrders(p.post).filter((x) => x.currency === currency);
  const original = same.reduce((a, x) => a + x.originalMinor, 0);
  const refund = same.reduce((a, x) => a + x.refundMinor, 0);
  return {
    postTicketingOrderNo: same.map((x) => x.postTicketingOrderNo).join(','),
    currency,
    originalPostTicketingServiceAmount: toAmount(original, currency),
    estimatedRefundAmount: toAmount(refund, currency),
    displayPostTicketingServiceAmount: display(original, currency, displayCurrency, rates),
    displayEstimatedRefundAmount: display(refund, currency, displayCurrency, rates),
  };
}

/** Query answer: one object per post-ticketing order (spec 2.5). */
export function postAsArray(p: PricedQuote, displayCurrency: string | null, rates: Rates) {
  if (p.post.length === 0) return null;
  return postOrders(p.post).map((x) => ({
    postTicketingOrderNo: x.postTicketingOrderNo,
    currency: x.currency,
    originalPostTicketingServiceAmount: toAmount(x.originalMinor, x.currency),
    estimatedRefundAmount: toAmount(x.refundMinor, x.currency),
    displayPostTicketingServiceAmount: display(x.originalMinor, x.currency, displayCurrency, rates),
    displayEstimatedRefundAmount: display(x.refundMinor, x.currency, displayCurrency, rates),
  }));
}

/**
 * A refund's priced quote (decision 0053): its used offer's, which a refund stored since keeps nowhere else; a refund
 * stored before holds the whole quote in its own `details` (its `tickets` say so), which is read then.
 */
export function refundQuote(details: unknown, offerQuote: unknown): PricedQuote {
  const own = details as Partial<PricedQuote> | null;
  if (own && Array.isArray(own.tickets)) return own as PricedQuote;
  if (offerQuote === null || offerQuote === undefined) throw new Error('the refund has no quote: neither its details nor its offer hold one');
  return offerQuote as PricedQuote;
}
