// The void checks (docs/voids.md "Codes", in this order), after the request's shape (810) and the order
// (801/824). Pure: the loaded order, what the airline publishes, the clock and the request in; the tickets
// to void and the window out.
import type { DateTime } from 'luxon';
import type { AirlineConnector, AirlineRefundTerms } from '../airline/connector.js';
import { ApiError } from '../errors.js';
import { normalizeName } from '../pnr/records.js';
import type { OrderContext, TicketRow } from '../refunds/context.js';
import { voidDeadline } from '../refunds/checks.js';
import { VOID_STATUS as S } from './statuses.js';
import type { VoidQuotationRequest } from './wire.js';

export interface VoidSelection {
  tickets: TicketRow[];
  terms: AirlineRefundTerms;
  /** The end of the void window, in the airline's zone. */
  deadline: DateTime;
}

const fail = (status: number, msg: string): never => {
  throw new ApiError(status, msg);
};

export function checkVoid(ctx: OrderContext, connector: AirlineConnector | null, passengers: VoidQuotationRequest['passengers'], now: Date): VoidSelection {
  const { order } = ctx;
  // 809: only a ticketed order has tickets to void
  if (order.status !== '2') fail(S.NOT_TICKETED, 'order not yet ticketed; wait for order_status=2');
  // 843: the void path covers the airline (a connector that voids, the feature, a void window)
  const terms = connector?.refundTerms(order.carrier) ?? null;
  if (!connector || !terms || !connector.submitVoid || !connector.voidStatus || !connector.supports(order.carrier, 'voids') || terms.voidWindow === 'none') {
    return fail(S.ROUTE_NOT_SERVED, `void is not covered for airline ${order.carrier}; request a refund (refundQuotation.do) instead`);
  }
  // 818: a refund of this order was submitted (under way or done)
  const refund = [...ctx.liveRefunds.values()][0];
  if (refund) fail(S.ORDER_VOID_AFTER_REFUND, `a refund of this order was already submitted (refundCode ${refund.refundCode}); a void is no longer possible`);
  // 803: one void per order
  if (ctx.liveVoid) fail(S.ALREADY_SUBMITTED, `a void of this order was already submitted (voidCode ${ctx.liveVoid.voidCode}); follow it with queryVoidOrders.do`);

  // 807 / 823: a void is the whole order — every passenger, every ticket
  if (passengers && passengers.length > 0) {
    const named = new Set<number>();
    for (const [i, p] of passengers.entries()) {
      // each entry names a passenger not named yet: two of one name are named twice (a review: find() gave the
      // first both times, and the void of the whole order was refused as partial)
      const same = (x: (typeof ctx.passengers)[number]) => normalizeName(x.lastName) === normalizeName(p.lastName) && normalizeName(x.firstName) === normalizeName(p.firstName);
      const pax = ctx.passengers.find((x) => same(x) && !named.has(x.paxIndex)) ?? ctx.passengers.find(same);
      if (!pax) fail(S.PASSENGER_NOT_FOUND, `passengers[${i}]: passenger not found in this order`);
      named.add(pax!.paxIndex);
    }
    if (named.size < ctx.passengers.length) fail(S.ALL_PASSENGERS, 'a void must apply to all passengers of the order; partial void not allowed (request a refund for some passengers instead)');
  }
  const tickets = ctx.tickets;
  if (tickets.length === 0) fail(S.TICKET_NOT_FOUND, 'no ticket found in this order');
  // 820: a flown coupon cannot be voided
  const used = tickets.find((t) => t.coupons.some((c) => c.status === 'USED'));
  if (used) fail(S.TICKET_USED, `ticket ${used.ticketNo} is already used; a flown segment cannot be voided`);
  // 823: every ticket must still be open for use (one refunded at the airline makes the void partial)
  const closed = tickets.find((t) => t.coupons.some((c) => c.status !== 'OPEN_FOR_USE'));
  if (closed) fail(S.ALL_PASSENGERS, `ticket ${closed.ticketNo} is no longer open for use; a void must cover every ticket of the order, partial void not allowed`);

  // 822: the airline's same-day deadline, in its own zone
  const deadline = voidDeadline(ctx, tickets, terms.homeTimeZone);
  if (!deadline || now.getTime() > deadline.toMillis()) {
    fail(S.VOID_DEADLINE, `void deadline exceeded: voids end at 23:59:59 of the issue day (${terms.homeTimeZone}); request a refund (refundQuotation.do) instead`);
  }
  return { tickets, terms, deadline: deadline! };
}
