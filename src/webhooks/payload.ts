// The body of a delivery, made from an outbox row (docs/webhooks.md "Events"). Made the same way on every
// attempt, so each retry of an event sends the same bytes. Carries no passenger data, but for the names in
// `order.ticketed` (the original's event carries them; decision 0022): never log a body or an event's data.
import type { Selectable } from 'kysely';
import { toAmount } from '../money/money.js';
import type { WebhookEventsTable } from '../store/schema.js';
import { OrderAncillary } from '../booking/wire-order.js';

/** The outbox row a body is made from (its columns as the store declares them, src/store/schema.ts). */
export type OutboxEvent = Pick<
  Selectable<WebhookEventsTable>,
  'id' | 'event_id' | 'client_id' | 'type' | 'subject' | 'order_no' | 'from_status' | 'to_status' | 'cancel_reason' | 'data' | 'occurred_at'
>;

const amount = (minor: unknown, currency: unknown): number | null =>
  minor === null || minor === undefined || typeof currency !== 'string' ? null : toAmount(Number(minor), currency);

/** `order.refund`: a refund order's status changed (previousRefundStatus null: the refund was submitted). */
function refundData(e: OutboxEvent): Record<string, unknown> {
  const d = e.data;
  return {
    orderNo: e.order_no,
    refundCode: e.subject,
    previousRefundStatus: e.from_status,
    refundStatus: e.to_status,
    cancelReason: e.cancel_reason,
    refundReason: d.reason ?? null,
    refundMethod: d.refundMethod ?? null,
    quoteType: d.quoteType ?? null,
    currency: d.currency ?? null,
    estimatedRefundAmount: amount(d.estimatedRefundMinor, d.currency),
    actualRefundAmount: amount(d.actualRefundMinor, d.currency),
    serviceFee: { currency: d.serviceFeeCurrency ?? null, amount: amount(d.serviceFeeMinor, d.serviceFeeCurrency) },
    ticketNos: d.ticketNos ?? [],
    completedOn: d.completedOn ?? null,
    message: d.cause ?? null,
  };
}

/** `order.void`: a void order's status changed (previousVoidStatus null: the void was submitted). */
function voidData(e: OutboxEvent): Record<string, unknown> {
  const d = e.data;
  return {
    orderNo: e.order_no,
    voidCode: e.subject,
    previousVoidStatus: e.from_status,
    voidStatus: e.to_status,
    cancelReason: e.cancel_reason,
    currency: d.currency ?? null,
    voidAmount: amount(d.voidAmountMinor, d.currency),
    actualRefundAmount: amount(d.actualRefundMinor, d.currency),
    ticketNos: d.ticketNos ?? [],
    completedOn: d.completedOn ?? null,
    message: d.cause ?? null,
  };
}

/** queryOrderDetails.do's order of an ancillary's fields (the stored snapshot is jsonb, which reorders keys). */
const ANCILLARY_KEYS = Object.keys(OrderAncillary.properties);
const inOrder = (a: unknown) => (a && typeof a === 'object' ? Object.fromEntries(ANCILLARY_KEYS.map((k) => [k, (a as Record<string, unknown>)[k] ?? null])) : a);

/** `order.ticketed`: an order of the booking chain was ticketed (pay.do, or the expiry sweep settling a payment). */
function ticketedData(e: OutboxEvent): Record<string, unknown> {
  const pax = Array.isArray(e.data.paxTicketInfos) ? (e.data.paxTicketInfos as Array<Record<string, unknown>>) : [];
  return {
    orderNo: e.order_no,
    orderStatus: e.to_status,
    paxTicketInfos: pax.map((p) => ({ name: p.name, passengerType: p.passengerType, ticketNos: p.ticketNos ?? [], airlinePNRs: p.airlinePNRs ?? [], ancillaries: Array.isArray(p.ancillaries) ? p.ancillaries.map(inOrder) : [] })),
  };
}

/** The JSON body of an event. An event type without its own shape (none today) sends the stored data as is. */
export function eventBody(e: OutboxEvent): string {
  const time = new Date(e.occurred_at).toISOString();
  const data =
    e.type === 'order.refund' ? refundData(e) : e.type === 'order.void' ? voidData(e) : e.type === 'order.ticketed' ? ticketedData(e) : { orderNo: e.order_no, ...e.data };
  // status: the original's envelope field, always -1 ("internal"): a receiver must not decide from it (decision 0022)
  return JSON.stringify({ eventId: e.event_id, type: e.type, cid: e.client_id, status: -1, time, sequence: Number(e.id), data });
}
