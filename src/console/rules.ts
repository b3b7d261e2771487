// Which console actions a refund's state allows (docs/console.md "Actions"; the lifecycle: docs/architecture.md
// "Refund lifecycle"). Each answer is either allowed or the reason it is not, shown in the console and sent
// as the refusal of the API call.
import type { RefundPollState } from '../refunds/deps.js';
import { REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';

export type Allowed = { allowed: true } | { allowed: false; why: string };
export interface AllowedActions {
  withdraw: Allowed;
  retry: Allowed;
}

/** What the rules read: the refund's status and path, and for a refund the airline holds its status poll. */
export interface RefundState {
  status: number;
  path: string;
  /** The refund's status poll told as a job (RefundScheduler.pollStateSql; null: none, the refund left 1 and 3 meanwhile). */
  pollJob?: Pick<RefundPollState, 'state' | 'retry_count' | 'retry_limit' | 'start_after'> | null;
  /** The airline's connector can withdraw a refund it holds (AirlineConnector.withdrawRefund). */
  airlineCanWithdraw?: boolean;
  /**
   * At 0: its submission is due now or within seconds (submissionDue), so the lifecycle's sweep may be sending it to
   * the airline at this moment.
   */
  submissionDue?: boolean;
}

/**
 * How far ahead a submission counts as due for the withdrawal's check: a sweep reads only submissions due when it
 * began, so one due later than this is not on its way; the margin covers the clocks of two processes.
 */
export const SUBMISSION_DUE_MARGIN_MS = 5_000;

/** Whether a refund at 0 whose submission is next due at `nextAt` (null: given up) may be on its way to the airline. */
export function submissionDue(nextAt: Date | null, now: Date): boolean {
  return nextAt !== null && nextAt.getTime() <= now.getTime() + SUBMISSION_DUE_MARGIN_MS;
}

const FINAL = new Set<number>([RS.REFUNDED, RS.REJECTED, RS.FULFILLED, RS.WITHDRAWN]);

/**
 * Retry at 1 or 3 makes the status poll due now, and only when no look is still to come: a due or retrying look
 * would do the same anyway. A poll that gave up after its retries (the airline kept erring), or a refund put at 1
 * or 3 without a due time (by hand in the store), leaves the refund without anyone looking: that is when an agent
 * retries.
 */
function pollRetry(job: RefundState['pollJob']): Allowed {
  if (job === undefined) return { allowed: false, why: 'the state of its status poll is not known' };
  if (job === null) return { allowed: true };
  const at = new Date(job.start_after).toISOString();
  switch (job.state) {
    case 'created':
      return { allowed: false, why: `its status poll is waiting (due ${at}); nothing to retry` };
    case 'retry':
      return { allowed: false, why: `its status poll failed ${job.retry_count} time(s) and tries again at ${at} (${job.retry_limit} retries in all); retry once it gives up` };
    case 'active':
      return { allowed: false, why: 'its status poll is running now; nothing to retry' };
    default:
      return { allowed: true };
  }
}

export function allowedRefundActions(r: RefundState): AllowedActions {
  const final = FINAL.has(r.status) ? `the refund is final (status ${r.status})` : null;
  let withdraw: Allowed;
  if (final) withdraw = { allowed: false, why: final };
  else if (r.path !== 'card') withdraw = { allowed: false, why: 'only refund claims and pass-through virtual card refunds can be withdrawn (status 6, spec 3.1); this one is paid by deposit' };
  // At 0 only while no submission can be on its way: withdrawn here while the airline took it, the refund read 6 (its
  // tickets free for another request) and the airline paid it (found by a review).
  else if (r.status === RS.PROCESSING && r.submissionDue) {
    withdraw = {
      allowed: false,
      why: 'the refund is being sent to the airline now (its submission is due): look again in a few seconds — at 1 withdraw it through the airline, still at 0 after a failed attempt withdraw it then',
    };
  } else if (r.status === RS.PROCESSING) withdraw = { allowed: true };
  // 1 → 6 (docs/architecture.md): asked of the airline first; it refuses once it decided (rejected, accepted, refunded).
  else if (r.status === RS.AIRLINE_PROCESSING && r.airlineCanWithdraw) withdraw = { allowed: true };
  else if (r.status === RS.AIRLINE_PROCESSING) withdraw = { allowed: false, why: 'the airline holds this refund (status 1) and its connection offers no withdrawal' };
  else withdraw = { allowed: false, why: `status ${r.status} cannot be withdrawn` };
  let retry: Allowed;
  if (final) retry = { allowed: false, why: final };
  else if (r.status === RS.PROCESSING) retry = { allowed: true };
  else if (r.status === RS.AIRLINE_PROCESSING || r.status === RS.AIRLINE_REFUNDING) retry = pollRetry(r.pollJob);
  else retry = { allowed: false, why: `status ${r.status} has nothing to retry` };
  return { withdraw, retry };
}
