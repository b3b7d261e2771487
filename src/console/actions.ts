// The console's actions, each allowed only in the states the lifecycle permits (./rules.ts) and each written to
// the audit log in the transaction of its change: decide a console case (approve → a refund entering the
// normal lifecycle; reject with a spec 2.11 cancelReason), withdraw a refund claim (status 6), retry a refund
// stuck before the airline, redeliver a webhook event (the CLI's retry, src/webhooks/admin.ts).
import { sql, type Kysely, type Transaction } from 'kysely';
import { ApiError } from '../errors.js';
import type { Database } from '../store/schema.js';
import type { RefundDeps, RefundJobState } from '../refunds/deps.js';
import { CANCEL_REASON, REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';
import { submitApprovedCase, type ConsoleCaseRequest } from '../refunds/submit.js';
import { retryEvents } from '../webhooks/admin.js';
import { audit } from './audit.js';
import type { Operator } from './operators.js';
import { allowedRefundActions } from './rules.js';

/** A refusal of a console action: HTTP status and a message the operator can act on. */
export class ActionRefused extends Error {
  constructor(
    readonly httpStatus: 404 | 409,
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
      `approved in the console by ${operator.login} (case ${caseId})`,
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

export async function rejectCase(deps: ActionDeps, operator: Operator, caseId: string, cancelReason: string): Promise<void> {
  if (!CANCEL_REASONS.includes(cancelReason)) throw new ActionRefused(409, 'cancelReason must be one of the texts of spec 2.11');
  await deps.db.transaction().execute(async (trx) => {
    await lockCase(trx, caseId);
    await trx.updateTable('console_cases').set({ status: 'rejected', cancel_reason: cancelReason, decided_by: operator.login, decided_at: new Date() }).where('case_id', '=', caseId).execute();
    await audit(trx, operator, 'case.reject', `case:${caseId}`, { status: 'pending' }, { status: 'rejected', cancelReason });
  });
}

async function lockRefund(trx: Transaction<Database>, refundCode: string) {
  const r = await trx.selectFrom('refund_orders').select(['refund_code', 'status', 'path', 'cancel_reason']).where('refund_code', '=', refundCode).forUpdate().executeTakeFirst();
  if (!r) throw new ActionRefused(404, `no refund ${refundCode}`);
  return r;
}

/** 0 → 6 for a refund claim or pass-through virtual card refund the airline does not hold yet. */
export async function withdrawRefund(deps: ActionDeps, operator: Operator, refundCode: string): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const r = await lockRefund(trx, refundCode);
    const allowed = allowedRefundActions(r).withdraw;
    if (!allowed.allowed) throw new ActionRefused(409, `cannot withdraw: ${allowed.why}`);
    const now = deps.refunds.clock.now();
    await trx
      .updateTable('refund_orders')
      .set({ status: RS.WITHDRAWN, cancel_reason: CANCEL_REASON.USER_CANCELLED, updated_at: now })
      .where('refund_code', '=', refundCode)
      .where('status', '=', RS.PROCESSING)
      .execute();
    await trx
      .insertInto('refund_status_history')
      .values({ refund_code: refundCode, from_status: r.status, to_status: RS.WITHDRAWN, at: now, cause: `withdrawn in the console by ${operator.login}` })
      .execute();
    // As a rejected or withdrawn refund does in the lifecycle: its tickets are free for a new request.
    await trx.updateTable('refund_tickets').set({ live: false }).where('refund_code', '=', refundCode).execute();
    await audit(trx, operator, 'refund.withdraw', `refund:${refundCode}`, { status: r.status, cancelReason: r.cancel_reason }, { status: RS.WITHDRAWN, cancelReason: CANCEL_REASON.USER_CANCELLED });
  });
}

/** The refund's newest status poll job (src/refunds/lifecycle.ts), read on `db` (a transaction or not). */
export async function pollJobOf(db: Kysely<Database> | Transaction<Database>, refunds: RefundDeps, refundCode: string): Promise<RefundJobState | null> {
  const { rows } = await sql<RefundJobState>`${refunds.scheduler.pollJobStateSql(refundCode)}`.execute(db);
  return rows[0] ?? null;
}

/**
 * Retry a refund stuck on airline errors. At 0 (its submission failing, or its job gone after the retries): one
 * more submission now. At 1 or 3 whose status poll gave up (./rules.ts): a poll job due now, the lifecycle's own
 * (RefundScheduler.pollJobSql), which moves the refund on as the airline answers.
 */
export async function retryRefund(deps: ActionDeps, operator: Operator, refundCode: string): Promise<{ queued: boolean; step: 'submission' | 'poll' }> {
  const done = await deps.db.transaction().execute(async (trx) => {
    const r = await lockRefund(trx, refundCode);
    const atAirline = r.status === RS.AIRLINE_PROCESSING || r.status === RS.AIRLINE_REFUNDING;
    const pollJob = atAirline ? await pollJobOf(trx, deps.refunds, refundCode) : null;
    const allowed = allowedRefundActions({ ...r, pollJob }).retry;
    if (!allowed.allowed) throw new ActionRefused(409, `cannot retry: ${allowed.why}`);
    const step = atAirline ? ('poll' as const) : ('submission' as const);
    const job = atAirline ? deps.refunds.scheduler.pollJobSql(refundCode) : deps.refunds.scheduler.submissionJobSql(refundCode);
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
    const n = await retryEvents(trx, { ids: [String(eventId)] });
    if (n !== 1) throw new ActionRefused(409, 'the event could not be made due');
    await audit(trx, operator, 'webhook.redeliver', `${e.type === 'order.void' ? 'void' : 'refund'}:${e.subject}`, { eventId, state: e.state, attempts: e.attempts }, { eventId, state: 'pending', due: 'now' });
  });
}
