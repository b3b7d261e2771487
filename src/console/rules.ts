// Which console actions a refund's state allows (docs/console.md "Actions"; the lifecycle: docs/architecture.md
// "Refund lifecycle"). Each answer is either allowed or the reason it is not, shown in the console and sent
// as the refusal of the API call.
import { REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';

export type Allowed = { allowed: true } | { allowed: false; why: string };
export interface AllowedActions {
  withdraw: Allowed;
  retry: Allowed;
}

const FINAL = new Set<number>([RS.REFUNDED, RS.REJECTED, RS.FULFILLED, RS.WITHDRAWN]);

export function allowedRefundActions(r: { status: number; path: string }): AllowedActions {
  const final = FINAL.has(r.status) ? `the refund is final (status ${r.status})` : null;
  let withdraw: Allowed;
  if (final) withdraw = { allowed: false, why: final };
  else if (r.path !== 'card') withdraw = { allowed: false, why: 'only refund claims and pass-through virtual card refunds can be withdrawn (status 6, spec 3.1); this one is paid by deposit' };
  else if (r.status !== RS.PROCESSING) withdraw = { allowed: false, why: `the airline already holds this refund (status ${r.status}); withdrawing it there is not possible from the console` };
  else withdraw = { allowed: true };
  let retry: Allowed;
  if (final) retry = { allowed: false, why: final };
  else if (r.status !== RS.PROCESSING) retry = { allowed: false, why: `the refund reached the airline (status ${r.status}); only a refund not yet submitted (status 0) can be retried` };
  else retry = { allowed: true };
  return { withdraw, retry };
}
