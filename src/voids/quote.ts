// voidQuotation.do (docs/voids.md): checks the order, prices the void and stores its offer. Only the newest
// offer of an order can be submitted (void_offers.seq), so a new quotation replaces the older ones without
// rewriting them (as refund offers, decision 0019).
import { DateTime } from 'luxon';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import type { OrderContext } from '../refunds/context.js';
import { loadCallerOrder, type OrderRef } from '../refunds/prepare.js';
import { newTimeRandomId } from '../ids.js';
import { pathOf } from '../refunds/submit.js';
import { checkVoid, type VoidSelection } from './checks.js';
import type { VoidCaller, VoidDeps } from './deps.js';
import { VOID_STATUS as S } from './statuses.js';
import type { VoidQuotationRequest, VoidQuotationResponse } from './wire.js';

/** What a quotation decided, stored with its offer and, once submitted, with the void order. */
export interface VoidQuote {
  orderNo: string;
  path: 'deposit' | 'card';
  currency: string;
  voidAmountMinor: number;
  ticketNos: string[];
  expectedConfirmationDate: string;
  expectedRefundDate: string;
  /** 'yyyy-MM-dd HH:mm:ss' in `timeZone`. */
  deadlineLocal: string;
  timeZone: string;
}

/**
 * The void's price: everything paid for the tickets — fare, tax, and the bags and seats bought with them
 * (in-flow ancillaries). Post-ticketing services are separate orders and not part of the void.
 */
export function priceVoid(ctx: OrderContext, selection: VoidSelection, now: Date): VoidQuote {
  const currency = selection.tickets[0]!.currency;
  if (selection.tickets.some((t) => t.currency !== currency)) throw new ApiError(S.INVALID, 'the tickets of this order are in several currencies; the void needs customer service');
  const paxes = new Set(selection.tickets.map((t) => t.paxIndex));
  const tickets = selection.tickets.reduce((a, t) => a + t.fareMinor + t.taxMinor, 0);
  const extras = ctx.ancillaries.filter((a) => a.kind === 'inflow' && paxes.has(a.paxIndex) && a.currency === currency).reduce((a, x) => a + x.priceMinor, 0);
  const zone = selection.terms.homeTimeZone;
  const today = DateTime.fromJSDate(now, { zone });
  return {
    orderNo: ctx.order.order_no,
    path: pathOf(ctx.order),
    currency,
    voidAmountMinor: tickets + extras,
    ticketNos: selection.tickets.map((t) => t.ticketNo),
    // The airline answers a void within minutes: confirmed the same day, the money after its refund days.
    expectedConfirmationDate: today.toFormat('yyyyMMdd'),
    expectedRefundDate: today.plus({ days: selection.terms.refundDays }).toFormat('yyyyMMdd'),
    deadlineLocal: selection.deadline.toFormat('yyyy-MM-dd HH:mm:ss'),
    timeZone: zone,
  };
}

/** The fields every void answer shares, from a quote. */
export function quoteWire(q: VoidQuote) {
  return {
    orderNo: q.orderNo,
    voidMethod: 'CashBackToOriginalPayment' as const,
    currency: q.currency,
    voidAmount: toAmount(q.voidAmountMinor, q.currency),
    ticketNos: q.ticketNos,
    expectedConfirmationDate: q.expectedConfirmationDate,
    expectedRefundDate: q.expectedRefundDate,
    voidWindow: { sameDayDeadlineTime: q.deadlineLocal, sameDayTimezone: q.timeZone },
  };
}

/** The caller's order, checked for a void (801/824/810, then checks.ts) and priced. */
export async function prepareVoid(deps: VoidDeps, caller: VoidCaller, ref: OrderRef, passengers: VoidQuotationRequest['passengers']): Promise<{ ctx: OrderContext; quote: VoidQuote }> {
  const ctx = await loadCallerOrder(deps, caller, ref);
  const now = deps.clock.now();
  const selection = checkVoid(ctx, deps.airlines.forCarrier(ctx.order.carrier), passengers, now);
  return { ctx, quote: priceVoid(ctx, selection, now) };
}

export function newVoidOfferId(): string {
  return `vdo_${newTimeRandomId()}`;
}

export async function quoteVoid(deps: VoidDeps, caller: VoidCaller, req: VoidQuotationRequest): Promise<VoidQuotationResponse> {
  const { quote } = await prepareVoid(deps, caller, req, req.passengers);
  const now = deps.clock.now();
  const offerId = newVoidOfferId();
  const expiresAt = new Date(now.getTime() + deps.offerTtlMs);
  await deps.db
    .insertInto('void_offers')
    .values({ offer_id: offerId, client_id: caller.clientId, order_no: quote.orderNo, quote: JSON.stringify(quote), expires_at: expiresAt, created_at: now })
    .execute();
  return {
    status: S.OK,
    msg: 'success: the order can be voided; submit this voidOfferId with void.do before the deadline',
    isVoidable: true,
    voidOfferId: offerId,
    voidOfferExpireTime: expiresAt.toISOString(),
    ...quoteWire(quote),
  };
}
