// The quote's explanation per ticket for the refund detail: which rule applied and in which window, and the
// arithmetic (refundable part, penalty, airline fee, ancillaries). The stored quote keeps the amounts but not
// the reasoning, so the pure engine (src/refunds/engine) prices each ticket of the refund again, with the
// airline's current rules, at the instant the quote was made; a ticket whose result differs from the stored
// amount (the rules changed since) is flagged rather than hidden.
import type { AirlineDirectory } from '../airline/connector.js';
import { firstDeparture } from '../refunds/checks.js';
import type { OrderContext } from '../refunds/context.js';
import { quoteTicket, type Rates, type TicketForQuote } from '../refunds/engine/index.js';
import { extrasOfTicket, type PricedQuote } from '../refunds/pricing.js';

export interface TicketExplanation {
  ticketNo: string;
  passengerType: string;
  minutesToDeparture: number;
  rule: { index: number; ruleType: string; window: { startMinute: number | null; endMinute: number | null } | null } | null;
  fallbackToTaxRule: boolean;
  currency: string;
  fareMinor: number;
  taxMinor: number;
  refundableMinor: number;
  penaltyMinor: number;
  airlineFeeMinor: number;
  ticketRefundMinor: number;
  ancillaryRefundMinor: number;
  totalRefundMinor: number;
  reasons: string[];
  /** The stored quote's refund of this ticket, when it differs from the recomputed total. */
  storedRefundMinor: number | null;
}

export function explainQuote(args: { ctx: OrderContext; quote: PricedQuote; quotedAt: Date; airlines: AirlineDirectory; rates: Rates }): TicketExplanation[] | { unavailable: string } {
  const { ctx, quote } = args;
  const terms = args.airlines.forCarrier(ctx.order.carrier)?.refundTerms(ctx.order.carrier) ?? null;
  if (!terms) return { unavailable: `the airline ${ctx.order.carrier} is no longer served: its rules cannot be read` };
  const out: TicketExplanation[] = [];
  for (const stored of quote.tickets) {
    const t = ctx.tickets.find((x) => x.ticketNo === stored.ticketNo);
    const pax = ctx.passengers.find((p) => p.paxIndex === stored.paxIndex);
    if (!t || !pax) return { unavailable: `ticket ${stored.ticketNo} is no longer on the order` };
    const dep = firstDeparture(ctx, t);
    // As src/refunds/pricing.ts builds it for the quote.
    const ticket: TicketForQuote = {
      ticketNo: t.ticketNo,
      carrier: ctx.order.carrier,
      passengerType: pax.type,
      currency: t.currency,
      fareMinor: t.fareMinor,
      taxMinor: t.taxMinor,
      firstDeparture: { local: dep.depLocal, timeZone: dep.depTimeZone },
      ...extrasOfTicket(ctx, t),
    };
    try {
      const q = quoteTicket({ ticket, rules: terms.rules, reason: quote.reason, now: args.quotedAt, rates: args.rates });
      const cannot = quote.quoteType === 'CannotQuote';
      out.push({
        ticketNo: t.ticketNo,
        passengerType: pax.type,
        minutesToDeparture: q.minutesToDeparture,
        rule: q.appliedRule ? { index: q.appliedRule.index, ruleType: q.appliedRule.rule.ruleType, window: q.window } : null,
        fallbackToTaxRule: q.fallbackToTaxRule,
        currency: q.currency,
        fareMinor: q.fareMinor,
        taxMinor: q.taxMinor,
        refundableMinor: q.refundableMinor,
        penaltyMinor: q.penaltyMinor,
        airlineFeeMinor: q.airlineFeeMinor,
        ticketRefundMinor: q.ticketRefundMinor,
        ancillaryRefundMinor: q.ancillaryRefunds.reduce((a, r) => a + r.refundMinor, 0),
        totalRefundMinor: q.totalRefundMinor,
        reasons: q.reasons,
        storedRefundMinor: !cannot && q.totalRefundMinor !== stored.refundMinor ? stored.refundMinor : null,
      });
    } catch (err) {
      return { unavailable: `the engine cannot price ticket ${t.ticketNo} again: ${(err as Error).message}` };
    }
  }
  return out;
}
