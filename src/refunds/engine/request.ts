// quoteRequest: the quote for a whole refund request (several tickets), docs/architecture.md "Refund arithmetic" steps 8–10.
import { MoneyError, exponentOf } from '../../money/money.js';
import { quoteTicket } from './quote.js';
import { present, sameCode } from './rules.js';
import { RefundEngineInputError, calendarDate, instantOf } from './time.js';
import type {
  AirlineTerms,
  CurrencyTotal,
  PostTicketingTotal,
  RefundMethod,
  RefundRule,
  RequestQuoteInput,
  RequestQuoteResult,
  TicketQuote,
  VoucherEstimate,
} from './types.js';

function checkTerms(terms: AirlineTerms): void {
  for (const [name, days] of [['confirmationDays', terms.confirmationDays], ['refundDays', terms.refundDays]] as const) {
    if (!Number.isSafeInteger(days) || days < 0) throw new RefundEngineInputError(`airline ${name} must be a whole number ≥ 0`);
  }
}

/**
 * Quote several tickets as one request.
 *
 * Request-level choices (the arithmetic speaks per ticket; these are ours, see README):
 * - quoteType is CannotQuote when any ticket is, and then every request-level estimated amount is 0 (the
 *   settled "CannotQuote: … all amounts 0"); the per-ticket detail stays in `tickets`.
 * - isRefundable is false when any ticket is not refundable (its submission would answer 808).
 * - "today" for the expected dates is the calendar day of `now` in `calendarZone`, default UTC: the dates are
 *   the airline's processing days, not tied to any departure airport, and UTC keeps them the same on every
 *   instance whatever the host's zone.
 */
export function quoteRequest(input: RequestQuoteInput): RequestQuoteResult {
  const { items, rules, now, rates, airlineTerms } = input;
  if (items.length === 0) throw new RefundEngineInputError('a refund request needs at least one ticket');
  const seen = new Set<string>();
  for (const { ticket } of items) {
    if (seen.has(ticket.ticketNo)) throw new RefundEngineInputError(`ticket ${ticket.ticketNo} appears twice in one request`);
    seen.add(ticket.ticketNo);
  }
  checkTerms(airlineTerms);
  const fee = input.serviceFeePerPassenger;
  try {
    exponentOf(fee.currency);
  } catch (e) {
    if (e instanceof MoneyError) throw new RefundEngineInputError(`service fee: ${e.message}`);
    throw e;
  }
  if (!Number.isSafeInteger(fee.minor) || fee.minor < 0) throw new RefundEngineInputError('service fee must be whole minor units ≥ 0');
  const nowMs = instantOf(now);

  const nowRange = input.nowRange;
  const tickets: TicketQuote[] = items.map(({ ticket, reason }) => quoteTicket({ ticket, rules, reason, now, rates, nowRange, ...(input.explain === false ? { explain: false } : {}) }));

  // step 8: one method per request; different methods → 810, quote them separately.
  const methods = [...new Set(tickets.map((t) => t.refundMethod))];
  if (methods.length > 1) {
    return {
      ok: false,
      status: 810,
      msg: `tickets resolve to different refund methods (${tickets.map((t) => `${t.ticketNo}: ${t.refundMethod}`).join(', ')}); quote them separately`,
      methods: tickets.map((t) => ({ ticketNo: t.ticketNo, refundMethod: t.refundMethod })),
      tickets,
    };
  }
  const refundMethod: RefundMethod = methods[0] ?? 'CashBackToOriginalPayment';
  const cannotQuote = tickets.some((t) => t.quoteType === 'CannotQuote');

  const totals = new Map<string, CurrencyTotal>();
  const postTotals = new Map<string, PostTicketingTotal>();
  for (const t of tickets) {
    const total = totals.get(t.currency) ?? { currency: t.currency, fareMinor: 0, taxMinor: 0, ancillaryPaidMinor: 0, refundMinor: 0 };
    total.fareMinor += t.fareMinor;
    total.taxMinor += t.taxMinor;
    total.ancillaryPaidMinor = total.ancillaryPaidMinor === null || t.ancillaryPaidMinor === null ? null : total.ancillaryPaidMinor + t.ancillaryPaidMinor;
    total.refundMinor += cannotQuote ? 0 : t.totalRefundMinor;
    totals.set(t.currency, total);
    for (const p of t.postTicketingRefunds) {
      const pt = postTotals.get(p.currency) ?? { currency: p.currency, originalMinor: 0, refundMinor: 0 };
      pt.originalMinor += p.originalMinor;
      pt.refundMinor += cannotQuote ? 0 : p.refundMinor;
      postTotals.set(p.currency, pt);
    }
  }

  // step 8: Voucher → one voucher per airline (and currency), value = the refund; post-ticketing stays separate.
  let vouchers: VoucherEstimate[] | null = null;
  if (refundMethod === 'Voucher') {
    const byAirline = new Map<string, VoucherEstimate>();
    for (const t of tickets) {
      const key = `${t.carrier}|${t.currency}`;
      const v = byAirline.get(key) ?? { airline: t.carrier, currency: t.currency, valueMinor: 0 };
      v.valueMinor += cannotQuote ? 0 : t.totalRefundMinor;
      byAirline.set(key, v);
    }
    vouchers = [...byAirline.values()];
  }

  // step 9: the client's fee per refunded passenger: a passenger holding several tickets (804) pays it once.
  const passengers = new Set(items.map((i, n) => i.passenger ?? `ticket ${n}`)).size;

  // step 10: confirmation = today + confirmation days (0 with fastConfirmation); refund = that + refund days.
  const zone = input.calendarZone ?? 'UTC';
  const confirmationDays = airlineTerms.fastConfirmation ? 0 : airlineTerms.confirmationDays;

  // Rules to list: the carriers' rules for the passenger types in the request (generic rules apply to all).
  const carriers = tickets.map((t) => t.carrier);
  const passengerTypes = tickets.map((t) => t.passengerType);
  const refundRules: RefundRule[] = rules.filter(
    (r) =>
      carriers.some((c) => sameCode(r.airline, c)) &&
      (!present(r.passengerType) || passengerTypes.some((p) => sameCode(r.passengerType, p))),
  );

  const nonRefundableTickets = tickets.filter((t) => !t.isRefundable).map((t) => t.ticketNo);
  return {
    ok: true,
    quote: {
      quoteType: cannotQuote ? 'CannotQuote' : 'AccurateQuote',
      isRefundable: nonRefundableTickets.length === 0,
      nonRefundableTickets,
      refundMethod,
      tickets,
      totals: [...totals.values()],
      postTicketingTotals: [...postTotals.values()],
      vouchers,
      serviceFee: { currency: fee.currency, transactionFeeMinor: fee.minor * passengers, passengers },
      fastConfirmation: airlineTerms.fastConfirmation ? 1 : 0,
      expectedConfirmationDate: calendarDate(nowMs, confirmationDays, zone, nowRange),
      expectedRefundDate: calendarDate(nowMs, confirmationDays + airlineTerms.refundDays, zone, nowRange),
      refundRules,
    },
  };
}
