// The console's actions, each allowed only in the states the lifecycle permits (./rules.ts) and each written to
// the audit log in the transaction of its change: decide a console case (approve → a refund entering the
// normal lifecycle; reject with a spec 2.11 cancelReason), withdraw a refund claim (status 6), retry a refund
// stuck before the airline, redeliver a webhook event (the CLI's retry, src/webhooks/admin.ts).
import { sql, type Kysely, type Transaction } from 'kysely';
import { ConnectorError } from '../airline/connector.js';
import { AIRLINE_TIMEOUT_MS } from '../airline/deadline.js';
import { ApiError } from '../errors.js';
import type { Database } from '../store/schema.js';
import type { RefundDeps, RefundPollState } from '../refunds/deps.js';
import { CANCEL_REASON, REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';
import { forgetKeptOrder } from '../refunds/kept-offers.js';
import { priceApprovedCase, submitApprovedCase, type ConsoleCaseRequest } from '../refunds/submit.js';
import { moveRefund } from '../refunds/transition.js';
import { retryEvents } from '../webhooks/admin.js';
import { audit } from './audit.js';
import type { Operator } from './operators.js';
import { allowedRefundActions, submissionDue } from './rules.js';

/** A refusal of a console action: HTTP status and a message the operator can act on. */
export class ActionRefused extends Error {
  constructor(
    /** 400 a request the console's own pages would not send, 403 the operator may not (any more), 404 not found, 409 refused by the state (or by the airline), 502 the airline did not answer. */
    readonly httpStatus: 400 | 403 | 404 | 409 | 502,
    message: string,
  ) {
    super(message);
  }
}

export const CANCEL_REASONS: readonly string[] = Object.values(CANCEL_REASON);

export interface ActionDeps {
  db: Kysely<Database>;
  refunds: RefundDeps;
}

async function lockCase(trx: Transaction<Database>, caseId: string) {
  const c = await trx.selectFrom('console_cases').selectAll().where('case_id', '=', caseId).forUpdate().executeTakeFirst();
  if (!c) throw new ActionRefused(404, `no console case ${caseId}`);
  if (c.status !== 'pending') throw new ActionRefused(409, `the case was already decided (${c.status}${c.decided_by ? ` by ${c.decided_by}` : ''})`);
  return c;
}

/** Approve: the request becomes a refund at status 0 with its first job (src/refunds/submit.ts submitApprovedCase). */
export async function approveCase(deps: ActionDeps, operator: Operator, caseId: string): Promise<{ refundCode: string }> {
  const c = await deps.db.selectFrom('console_cases').selectAll().where('case_id', '=', caseId).executeTakeFirst();
  if (!c) throw new ActionRefused(404, `no console case ${caseId}`);
  if (c.status !== 'pending') throw new ActionRefused(409, `the case was already decided (${c.status}${c.decided_by ? ` by ${c.decided_by}` : ''})`);
  const client = await deps.db.selectFrom('clients').select(['client_id', 'settings']).where('client_id', '=', c.client_id).executeTakeFirstOrThrow();
  try {
    return await submitApprovedCase(
      deps.refunds,
      { clientId: client.client_id, settings: client.settings },
      c.request as ConsoleCaseRequest,
      // the status history's cause reaches the client (webhook data.message): who decided is in the audit log and the case
      `approved in the console (case ${caseId})`,
      async (trx, refundCode) => {
        await lockCase(trx, caseId); // decided meanwhile by another agent: the whole approval rolls back
        const now = new Date();
        await trx.updateTable('console_cases').set({ status: 'approved', refund_code: refundCode, decided_by: operator.login, decided_at: now }).where('case_id', '=', caseId).execute();
        await audit(trx, operator, 'case.approve', `case:${caseId}`, { status: 'pending' }, { status: 'approved', refundCode });
        await audit(trx, operator, 'refund.create', `refund:${refundCode}`, null, { status: RS.PROCESSING, caseId });
      },
    );
  } catch (err) {
    // The refund checks still apply (another refund of the tickets, past the airline's deadline, …).
    if (err instanceof ApiError) throw new ActionRefused(409, `the refund cannot be created: ${err.message} (code ${err.status})`);
    throw err;
  }
}

/** What approving a pending case would refund, as the case page shows it before the decision; or why it cannot be priced. */
export type CaseEstimate =
  | {
      /** the refund's currency; refundMinor in its minor units (0 with CannotQuote: the airline decides the amount) */
      currency: string;
      refundMinor: number;
      quoteType: 'AccurateQuote' | 'CannotQuote';
      refundMethod: string;
      postRefunds: Array<{ currency: string; minor: number }>;
      serviceFee: { currency: string; minor: number };
      /** deposit: the refund cannot be withdrawn once created (its path has no 6) */
      path: 'deposit' | 'card';
      /** the service clock's time it was priced at: the approval prices again */
      pricedAt: string;
    }
  | { unavailable: string };

/**
 * A pending case's request priced now, as its approval would price it (priceApprovedCase: the same checks and quote),
 * writing nothing. Refused by the checks (another live refund of the tickets, a coupon flown, nothing refundable):
 * why, as the approval would answer it.
 */
export async function estimateCase(deps: ActionDeps, c: { client_id: string; request: unknown }): Promise<CaseEstimate> {
  const client = await deps.db.selectFrom('clients').select(['client_id', 'settings']).where('client_id', '=', c.client_id).executeTakeFirst();
  if (!client) return { unavailable: `the client ${c.client_id} is not found` };
  const request = c.request as ConsoleCaseRequest;
  if (!Array.isArray(request?.refundRequestList) || request.refundRequestList.length === 0) return { unavailable: 'the request lists no passenger' };
  try {
    const { priced, path } = await priceApprovedCase(deps.refunds, { clientId: client.client_id, settings: client.settings }, request);
    const post = new Map<string, number>();
    for (const p of priced.post) post.set(p.currency, (post.get(p.currency) ?? 0) + p.refundMinor);
    return {
      currency: priced.currency,
      refundMinor: priced.fare.refundMinor,
      quoteType: priced.quoteType,
      refundMethod: priced.refundMethod,
      postRefunds: [...post].map(([currency, minor]) => ({ currency, minor })),
      serviceFee: { currency: priced.serviceFee.currency, minor: priced.serviceFee.minor },
      path,
      pricedAt: deps.refunds.clock.now().toISOString(),
    };
  } catch (err) {
    if (err instanceof ApiError) return { unavailable: `the refund cannot be created: ${err.message} (code ${err.status})` };
    throw err;
  }
}

export async function rejectCase(deps: ActionDeps, operator: Operator, caseId: string, cancelReason: string): Promise<void> {
  if (!CANCEL_REASONS.includes(cancelReason)) throw new ActionRefused(409, 'cancelReason must be one of the texts of spec 2.11');
  await deps.db.transaction().execute(async (trx) => {
    await lockCase(trx, caseId);
    await trx.updateTable('console_cases').set({ status: 'rejected', cancel_reason: cancelReason, decided_by: operator.login, decided_at: new Date() }).where('case_id', '=', caseId).execute();
    await audit(trx, operator, 'case.reject', `case:${caseId}`, { status: 'pending' }, { status: 'rejected', cancelReason });
  });
}

async function lockRefund(trx: Transaction<Database>, refundCode: string) {
  const r = await trx.selectFrom('refund_orders').select(['refund_code', 'status', 'path', 'cancel_reason', 'next_poll_at']).where('refund_code', '=', refundCode).forUpdate().executeTakeFirst();
  if (!r) throw new ActionRefused(404, `no refund ${refundCode}`);
  return r;
}

/** Whether the refund's airline connection can withdraw a refund the airline holds. */
export function airlineCanWithdraw(refunds: RefundDeps, carrier: string): boolean {
  return typeof refunds.airlines.forCarrier(carrier)?.withdrawRefund === 'function';
}

/**
 * → 6 for a refund claim or pass-through virtual card refund. At 0 the airline does not hold it: withdrawn here.
 * At 1 the airline is asked first (outside any transaction; idempotent on the refundCode) and the refund moves
 * 1 → 6 only once it agreed; a refusal (it decided already) or no answer changes nothing. Should this process
 * stop between the airline's yes and the move, the refund's poll finds it withdrawn at the airline and moves it.
 */
export async function withdrawRefund(deps: ActionDeps, operator: Operator, refundCode: string): Promise<{ atAirline: boolean }> {
  const found = await deps.db
    .selectFrom('refund_orders')
    .innerJoin('orders', 'orders.order_no', 'refund_orders.order_no')
    .select(['refund_orders.status', 'refund_orders.path', 'refund_orders.next_poll_at', 'refund_orders.poll_failures', 'orders.carrier'])
    .where('refund_orders.refund_code', '=', refundCode)
    .executeTakeFirst();
  if (!found) throw new ActionRefused(404, `no refund ${refundCode}`);
  const canWithdraw = airlineCanWithdraw(deps.refunds, found.carrier);
  const first = allowedRefundActions({ ...found, airlineCanWithdraw: canWithdraw, submissionDue: submissionDue(found.next_poll_at, deps.refunds.clock.now()) }).withdraw;
  if (!first.allowed) throw new ActionRefused(409, `cannot withdraw: ${first.why}`);
  let cancelReason: string = CANCEL_REASON.USER_CANCELLED;
  // At 0 after a failed submission the airline may hold it all the same (an attempt that timed out reached it, its
  // answer lost; a review: withdrawn here, its tickets freed, while the airline paid its copy): asked first.
  const atAirline = found.status === RS.AIRLINE_PROCESSING || (found.status === RS.PROCESSING && found.poll_failures > 0 && (await airlineHolds(deps, found.carrier, refundCode)));
  if (atAirline) {
    const connector = deps.refunds.airlines.forCarrier(found.carrier)!;
    try {
      const answer = await connector.withdrawRefund!(found.carrier, refundCode, { signal: AbortSignal.timeout(AIRLINE_TIMEOUT_MS) });
      cancelReason = answer.cancelReason;
    } catch (err) {
      if (err instanceof ConnectorError && !err.retryable) throw new ActionRefused(409, `the airline refused the withdrawal, nothing changed: ${err.message}`);
      if (err instanceof ConnectorError) throw new ActionRefused(502, `the airline did not answer the withdrawal (${err.message}); nothing changed, try again`);
      throw err;
    }
  }
  const move = await deps.db.transaction().execute(async (trx) => {
    const r = await lockRefund(trx, refundCode);
    const before = { status: r.status, cancelReason: r.cancel_reason };
    if (atAirline && r.status === RS.WITHDRAWN) {
      // Another operator's withdrawal came first (its audit row is committed: this transaction waited on the row's
      // lock): this one did nothing more than ask the airline again, which is idempotent. Refused, nothing recorded.
      const earlier = await trx
        .selectFrom('audit_log')
        .select(['operator_login', 'at'])
        .where('target', '=', `refund:${refundCode}`)
        .where('action', '=', 'refund.withdraw')
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (earlier) throw new ActionRefused(409, `cannot withdraw: withdrawn already by ${earlier.operator_login} at ${new Date(earlier.at).toISOString()}`);
      // The poll saw the airline's withdrawal first and moved the refund: only the operator's request is left to record.
      await audit(trx, operator, 'refund.withdraw', `refund:${refundCode}`, { status: RS.AIRLINE_PROCESSING, cancelReason: null }, { status: RS.WITHDRAWN, cancelReason: r.cancel_reason, atAirline: true });
      return null;
    }
    if (r.status !== found.status) throw new ActionRefused(409, `cannot withdraw: the refund moved to status ${r.status} meanwhile${atAirline ? ' (the airline agreed to withdraw it; its poll will settle it)' : ''}`);
    // At 0, checked again under the row's lock: a retry made its submission due since the first read.
    if (!atAirline) {
      const now = allowedRefundActions({ ...r, submissionDue: submissionDue(r.next_poll_at, deps.refunds.clock.now()) }).withdraw;
      if (!now.allowed) throw new ActionRefused(409, `cannot withdraw: ${now.why}`);
    }
    // The lifecycle's own status change (src/refunds/transition.ts): the history row, and the tickets freed for a new request.
    // the cause reaches the client (webhook data.message): the operator is named in the audit row only
    const cause = `withdrawn in the console${atAirline ? '; withdrawn at the airline' : ''}`;
    const moved = await moveRefund(trx, deps.refunds.clock.now(), refundCode, r.status, RS.WITHDRAWN, cause, { cancel_reason: cancelReason });
    await audit(trx, operator, 'refund.withdraw', `refund:${refundCode}`, before, { status: RS.WITHDRAWN, cancelReason, ...(atAirline ? { atAirline: true } : {}) });
    return moved;
  });
  // Its tickets freed: the order's kept contexts and offers in this process are stale (src/refunds/kept-offers.ts).
  if (move?.freedOrderNo) forgetKeptOrder(deps.db, move.freedOrderNo);
  return { atAirline };
}

/**
 * Whether the airline holds a refund still at 0 (an earlier submission reached it): false when it does not know the
 * refundCode, or when this process has no connection to the carrier at all (a carrier a world reload dropped: there is
 * no one to ask, and the refund could never move on — withdrawn here, as before); refused (nothing changed) when it
 * holds it decided already, or cannot say.
 */
async function airlineHolds(deps: ActionDeps, carrier: string, refundCode: string): Promise<boolean> {
  const connector = deps.refunds.airlines.forCarrier(carrier);
  if (!connector) return false;
  let state;
  try {
    state = await connector.refundStatus(carrier, refundCode, { signal: AbortSignal.timeout(AIRLINE_TIMEOUT_MS) });
  } catch (err) {
    // an unknown refundCode is the connection's refusal for good (AirlineConnector.refundStatus)
    if (err instanceof ConnectorError && !err.retryable) return false;
    if (err instanceof ConnectorError) throw new ActionRefused(502, `the airline could not say whether it holds the refund (an earlier submission failed: it may have reached it); nothing changed, try again`);
    throw err;
  }
  if (state.state !== 'processing') throw new ActionRefused(409, `cannot withdraw: the airline holds this refund already (${state.state}; an earlier submission reached it): it moves on with its next submission`);
  if (!airlineCanWithdraw(deps.refunds, carrier)) throw new ActionRefused(409, 'cannot withdraw: the airline holds this refund (an earlier submission reached it) and its connection offers no withdrawal');
  return true;
}

/** The refund's status poll, told as a job (its due time and failures: src/refunds/lifecycle.ts, decision 0034), read on `db` (a transaction or not). */
export async function pollJobOf(db: Kysely<Database> | Transaction<Database>, refunds: RefundDeps, refundCode: string): Promise<RefundPollState | null> {
  const { rows } = await sql<RefundPollState>`${refunds.scheduler.pollStateSql(refundCode)}`.execute(db);
  return rows[0] ?? null;
}

/**
 * Retry a refund stuck on airline errors. At 0 (its submission failing, or given up after its retries): its
 * submission due now, its failures forgotten (RefundScheduler.submitNowSql). At 1 or 3 whose status poll gave up
 * (./rules.ts): its next look due now, its failures forgotten (RefundScheduler.pollNowSql). The lifecycle's sweep
 * then sends it, or moves it on as the airline answers.
 */
export async function retryRefund(deps: ActionDeps, operator: Operator, refundCode: string): Promise<{ queued: boolean; step: 'submission' | 'poll' }> {
  const done = await deps.db.transaction().execute(async (trx) => {
    const r = await lockRefund(trx, refundCode);
    const atAirline = r.status === RS.AIRLINE_PROCESSING || r.status === RS.AIRLINE_REFUNDING;
    const pollJob = atAirline ? await pollJobOf(trx, deps.refunds, refundCode) : null;
    const allowed = allowedRefundActions({ ...r, pollJob }).retry;
    if (!allowed.allowed) throw new ActionRefused(409, `cannot retry: ${allowed.why}`);
    const step = atAirline ? ('poll' as const) : ('submission' as const);
    const job = atAirline ? deps.refunds.scheduler.pollNowSql(refundCode) : deps.refunds.scheduler.submitNowSql(refundCode);
    const { rows } = await sql<{ n: number | string }>`with job as (${job}) select count(*) as n from job`.execute(trx);
    const queued = Number(rows[0]?.n ?? 0) > 0;
    const before = atAirline ? { status: r.status, pollJob: pollJob ? { state: pollJob.state, failedAttempts: pollJob.retry_count } : null } : { status: r.status };
    await audit(trx, operator, 'refund.retry', `refund:${refundCode}`, before, atAirline ? { status: r.status, pollQueued: queued } : { status: r.status, submissionQueued: queued });
    return { queued, step };
  });
  if (done.step === 'poll') deps.refunds.scheduler.polled();
  else deps.refunds.scheduler.submitted();
  return done;
}

/** A webhook event sent again now (failed or pending ones; a delivered event is not). */
export async function redeliverWebhook(deps: ActionDeps, operator: Operator, eventId: number): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const e = await trx.selectFrom('webhook_events').select(['id', 'type', 'subject', 'state', 'attempts']).where('id', '=', eventId).forUpdate().executeTakeFirst();
    if (!e) throw new ActionRefused(404, `no webhook event ${eventId}`);
    if (e.state === 'delivered') throw new ActionRefused(409, 'the event was delivered already; nothing to redeliver');
    const n = await retryEvents(trx, { ids: [String(eventId)] }, deps.refunds.clock.now());
    if (n !== 1) throw new ActionRefused(409, 'the event is being sent at this moment; its attempt decides, look again in a few seconds');
    await audit(trx, operator, 'webhook.redeliver', `${e.type === 'order.void' ? 'void' : e.type === 'order.ticketed' ? 'order' : 'refund'}:${e.subject}`, { eventId, state: e.state, attempts: e.attempts }, { eventId, state: 'pending', due: 'now' });
  });
}
