// One refund (or void) as the console shows it: the order, its passengers, segments and tickets, the quote
// stored with the refund, the status timeline, what the airline answered, the webhook deliveries, the audit
// entries and the actions its state allows. Passenger documents, contact details and card data are not read.
import { sql, type Kysely } from 'kysely';
import type { RefundPollState, RefundScheduler } from '../refunds/deps.js';
import { REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';
import { VOID_ORDER_STATUS as VS } from '../voids/statuses.js';
import type { Database } from '../store/schema.js';
import { loadContextForCaller, type OrderContext } from '../refunds/context.js';
import { refundQuote, type PricedQuote } from '../refunds/pricing.js';
import { auditOf, type AuditEntry } from './audit.js';
import { allowedRefundActions, submissionDue, type AllowedActions } from './rules.js';
import { explainQuote, type TicketExplanation } from './explain.js';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Rates } from '../refunds/engine/index.js';

export interface OrderView {
  orderNo: string;
  clientId: string;
  source: string;
  status: string;
  carrier: string;
  airlinePnr: string | null;
  paymentMethod: string | null;
  currency: string;
  totalMinor: number;
  passengers: Array<{ paxIndex: number; type: string; lastName: string; firstName: string }>;
  segments: Array<{ index: number; flight: string; from: string; to: string; depLocal: string; depAt: string }>;
  tickets: Array<{ ticketNo: string; paxIndex: number; currency: string; fareMinor: number; taxMinor: number; coupons: Array<{ segmentIndex: number; status: string }> }>;
}

export interface WebhookDelivery {
  id: number;
  eventId: string;
  transition: string;
  state: string;
  attempts: number;
  occurredAt: string;
  deliveredAt: string | null;
  lastError: string | null;
  tries: Array<{ attempt: number; at: string; httpStatus: number | null; error: string | null; durationMs: number }>;
}

/**
 * The post-ticketing refunds of a quote summed per currency, in the quote's order. The refund row's
 * `post_refund_minor` adds the minor units of every currency into one number (found in a review: the refund page
 * showed it in the refund's currency), so the page reads the quote's entries instead.
 */
export function postRefundsByCurrency(post: ReadonlyArray<{ currency: string; refundMinor: number }>): Array<{ currency: string; minor: number }> {
  const sums = new Map<string, number>();
  for (const p of post) sums.set(p.currency, (sums.get(p.currency) ?? 0) + p.refundMinor);
  return [...sums].map(([currency, minor]) => ({ currency, minor }));
}

export interface RefundDetail {
  kind: 'refund';
  refundCode: string;
  clientId: string;
  status: number;
  reason: string;
  path: string;
  refundMethod: string;
  quoteType: string;
  currency: string;
  estimatedRefundMinor: number;
  actualRefundMinor: number | null;
  /** The post-ticketing services' refunds, one entry per currency (each service is refunded in its own). */
  postRefunds: Array<{ currency: string; minor: number }>;
  serviceFee: { currency: string; minor: number };
  cancelReason: string | null;
  airlineRefundId: string | null;
  completedOn: string | null;
  createdAt: string;
  updatedAt: string;
  quote: PricedQuote;
  /** When the quote was made (the offer's time) and, per ticket, the rule, window and arithmetic (./explain.ts). */
  quotedAt: string;
  explanation: TicketExplanation[] | { unavailable: string };
  ticketNos: string[];
  order: OrderView | null;
  timeline: Array<{ from: number | null; to: number; at: string; cause: string }>;
  /** The history rows that record the airline's part: submission and its answers. */
  airline: Array<{ at: string; to: number; cause: string }>;
  webhooks: WebhookDelivery[];
  audit: AuditEntry[];
  consoleCase: { caseId: string; decidedBy: string | null; decidedAt: string | null } | null;
  /** At 1 or 3: the status poll told as a job (failedAttempts of 1 + retryLimit; lastError: its last failure), or null. */
  pollJob: { state: string; failedAttempts: number; retryLimit: number; due: string; lastError: string | null } | null;
  actions: AllowedActions;
}

/** The message of a job's last failure as pg-boss keeps it (`{ message }`), or null. */
function lastErrorOf(job: RefundPollState): string | null {
  const out = job.output as { message?: unknown } | null;
  return out && typeof out.message === 'string' ? out.message.slice(0, 300) : null;
}

export function orderView(ctx: OrderContext): OrderView {
  const o = ctx.order;
  return {
    orderNo: o.order_no,
    clientId: o.client_id,
    source: o.source,
    status: o.status,
    carrier: o.carrier,
    airlinePnr: o.airline_pnr,
    paymentMethod: o.payment_method,
    currency: o.currency,
    totalMinor: Number(o.total_minor),
    passengers: ctx.passengers.map((p) => ({ paxIndex: p.paxIndex, type: p.type, lastName: p.lastName, firstName: p.firstName })),
    segments: ctx.segments.map((s) => ({ index: s.index, flight: s.flightNumber.startsWith(s.carrier) ? s.flightNumber : `${s.carrier}${s.flightNumber}`, from: s.depAirport, to: s.arrAirport, depLocal: s.depLocal, depAt: s.depAt.toISOString() })),
    tickets: ctx.tickets.map((t) => ({ ticketNo: t.ticketNo, paxIndex: t.paxIndex, currency: t.currency, fareMinor: t.fareMinor, taxMinor: t.taxMinor, coupons: t.coupons })),
  };
}

export async function webhookDeliveries(db: Kysely<Database>, subject: string): Promise<WebhookDelivery[]> {
  const events = await db
    .selectFrom('webhook_events')
    .select(['id', 'event_id', 'from_status', 'to_status', 'state', 'attempts', 'occurred_at', 'delivered_at', 'last_error'])
    .where('subject', '=', subject)
    .orderBy('id')
    .execute();
  if (events.length === 0) return [];
  const tries = await db
    .selectFrom('webhook_attempts')
    .select(['event_id', 'attempt', 'started_at', 'http_status', 'error', 'duration_ms'])
    .where('event_id', 'in', events.map((e) => e.id))
    .orderBy('id')
    .execute();
  return events.map((e) => ({
    id: Number(e.id),
    eventId: e.event_id,
    transition: `${e.from_status ?? '-'}→${e.to_status}`,
    state: e.state,
    attempts: e.attempts,
    occurredAt: new Date(e.occurred_at).toISOString(),
    deliveredAt: e.delivered_at ? new Date(e.delivered_at).toISOString() : null,
    lastError: e.last_error,
    tries: tries
      .filter((t) => t.event_id === e.id)
      .map((t) => ({ attempt: t.attempt, at: new Date(t.started_at).toISOString(), httpStatus: t.http_status, error: t.error, durationMs: t.duration_ms })),
  }));
}

export async function refundDetail(
  db: Kysely<Database>,
  refundCode: string,
  deps: { airlines: AirlineDirectory; rates: Rates; scheduler: RefundScheduler; clock: Clock },
): Promise<RefundDetail | null> {
  const pricing = { airlines: deps.airlines, rates: deps.rates };
  const r = await db.selectFrom('refund_orders').selectAll().where('refund_code', '=', refundCode).executeTakeFirst();
  if (!r) return null;
  const atAirline = r.status === RS.AIRLINE_PROCESSING || r.status === RS.AIRLINE_REFUNDING;
  const [history, tickets, found, webhooks, audit, consoleCase, offer, pollJob] = await Promise.all([
    db.selectFrom('refund_status_history').select(['from_status', 'to_status', 'at', 'cause']).where('refund_code', '=', refundCode).orderBy('id').execute(),
    db.selectFrom('refund_tickets').select('ticket_no').where('refund_code', '=', refundCode).orderBy('ticket_no').execute(),
    loadContextForCaller(db, r.client_id, { orderNo: r.order_no }),
    webhookDeliveries(db, refundCode),
    auditOf(db, { target: `refund:${refundCode}`, limit: 100 }),
    db.selectFrom('console_cases').select(['case_id', 'decided_by', 'decided_at']).where('refund_code', '=', refundCode).executeTakeFirst(),
    db.selectFrom('refund_offers').select(['created_at', 'quote']).where('offer_id', '=', r.offer_id).executeTakeFirst(),
    atAirline ? sql<RefundPollState>`${deps.scheduler.pollStateSql(refundCode)}`.execute(db).then((x) => x.rows[0] ?? null) : null,
  ]);
  const quotedAt = new Date(offer?.created_at ?? r.created_at);
  const quote = refundQuote(r.details, offer?.quote);
  const timeline = history.map((h) => ({ from: h.from_status, to: h.to_status, at: new Date(h.at).toISOString(), cause: h.cause }));
  return {
    kind: 'refund',
    refundCode,
    clientId: r.client_id,
    status: r.status,
    reason: r.reason,
    path: r.path,
    refundMethod: r.refund_method,
    quoteType: r.quote_type,
    currency: r.currency,
    estimatedRefundMinor: Number(r.estimated_refund_minor),
    actualRefundMinor: r.actual_refund_minor === null ? null : Number(r.actual_refund_minor),
    postRefunds: postRefundsByCurrency(quote.post ?? []),
    serviceFee: { currency: r.service_fee_currency, minor: Number(r.service_fee_minor) },
    cancelReason: r.cancel_reason,
    airlineRefundId: r.airline_refund_id,
    completedOn: r.completed_on,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    quote,
    quotedAt: quotedAt.toISOString(),
    explanation: found.kind === 'order' ? explainQuote({ ctx: found.ctx, quote, quotedAt, ...pricing }) : { unavailable: 'the order is not found' },
    ticketNos: tickets.map((t) => t.ticket_no),
    order: found.kind === 'order' ? orderView(found.ctx) : null,
    timeline,
    airline: timeline.filter((h) => /airline/.test(h.cause)).map((h) => ({ at: h.at, to: h.to, cause: h.cause })),
    webhooks,
    audit,
    consoleCase: consoleCase
      ? { caseId: consoleCase.case_id, decidedBy: consoleCase.decided_by, decidedAt: consoleCase.decided_at ? new Date(consoleCase.decided_at).toISOString() : null }
      : null,
    pollJob: pollJob ? { state: pollJob.state, failedAttempts: pollJob.retry_count, retryLimit: pollJob.retry_limit, due: new Date(pollJob.start_after).toISOString(), lastError: lastErrorOf(pollJob) } : null,
    actions: allowedRefundActions({
      status: r.status,
      path: r.path,
      pollJob,
      airlineCanWithdraw: found.kind === 'order' && typeof deps.airlines.forCarrier(found.ctx.order.carrier)?.withdrawRefund === 'function',
      submissionDue: r.status === RS.PROCESSING && submissionDue(r.next_poll_at, deps.clock.now()),
    }),
  };
}

export interface VoidDetail {
  kind: 'void';
  voidCode: string;
  clientId: string;
  status: number;
  path: string;
  currency: string;
  voidAmountMinor: number;
  actualRefundMinor: number | null;
  ticketNos: string[];
  cancelReason: string | null;
  airlineVoidId: string | null;
  completedOn: string | null;
  createdAt: string;
  updatedAt: string;
  /**
   * The void's next airline call (decision 0045): at 0 its submission, at 1 or 3 a look; when it is due, the failed
   * calls in a row before it and the last one's message. null once the void is final.
   */
  nextCall: { due: string; failedAttempts: number; lastError: string | null } | null;
  order: OrderView | null;
  timeline: Array<{ from: number | null; to: number; at: string; cause: string }>;
  webhooks: WebhookDelivery[];
}

export async function voidDetail(db: Kysely<Database>, voidCode: string): Promise<VoidDetail | null> {
  const v = await db.selectFrom('void_orders').selectAll().where('void_code', '=', voidCode).executeTakeFirst();
  if (!v) return null;
  const [history, found, webhooks] = await Promise.all([
    db.selectFrom('void_status_history').select(['from_status', 'to_status', 'at', 'cause']).where('void_code', '=', voidCode).orderBy('id').execute(),
    loadContextForCaller(db, v.client_id, { orderNo: v.order_no }),
    webhookDeliveries(db, voidCode),
  ]);
  return {
    kind: 'void',
    voidCode,
    clientId: v.client_id,
    status: v.status,
    path: v.path,
    currency: v.currency,
    voidAmountMinor: Number(v.void_amount_minor),
    actualRefundMinor: v.actual_refund_minor === null ? null : Number(v.actual_refund_minor),
    ticketNos: v.ticket_nos,
    cancelReason: v.cancel_reason,
    airlineVoidId: v.airline_void_id,
    completedOn: v.completed_on,
    createdAt: new Date(v.created_at).toISOString(),
    updatedAt: new Date(v.updated_at).toISOString(),
    // Final: nothing due (a void an older build moved during a rollout may still carry a time). '-infinity' (a void
    // an older build wrote: due at once) reads as the number -Infinity from both drivers: shown as its creation.
    nextCall:
      v.next_step_at === null || ![VS.PROCESSING, VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING].includes(v.status as 0 | 1 | 3)
        ? null
        : { due: new Date(Number.isFinite(new Date(v.next_step_at).getTime()) ? v.next_step_at : v.created_at).toISOString(), failedAttempts: v.step_failures, lastError: v.step_error },
    order: found.kind === 'order' ? orderView(found.ctx) : null,
    timeline: history.map((h) => ({ from: h.from_status, to: h.to_status, at: new Date(h.at).toISOString(), cause: h.cause })),
    webhooks,
  };
}
