// One status change of a refund order (docs/architecture.md "Refund lifecycle"), wherever it is decided: by the
// lifecycle's workers (./lifecycle.ts) or by an agent in the console (src/console/actions.ts). The refund moves
// only from the status the caller read, its history row is written in the same transaction, and a refund that
// ends rejected or withdrawn frees its tickets for a new request — unless the airline refunded them (a refund
// rejected because the airline's amount fell below the service fee: `ticketsRefunded`).
import { sql, type Transaction } from 'kysely';
import { storableDeep, storableText } from '../store/text.js';
import type { Database } from '../store/schema.js';
import { unindexed } from '../store/unindexed.js';
import { REFUND_ORDER_STATUS as RS } from './statuses.js';

/**
 * A refund moved: the order whose tickets it freed, if it freed any (that order's kept contexts and offers are
 * stale once the move commits: forgetKeptOrder, ./kept-offers.ts).
 */
export interface RefundMove {
  freedOrderNo: string | null;
}

/** Columns a status change may set besides the status itself. */
export type TransitionPatch = Partial<{ cancel_reason: string; airline_refund_id: string; actual_refund_minor: number; completed_on: string; details: string }>;

/**
 * Moves the refund from `from` to `to` inside `trx` if it is still at `from`, with its history row (`cause`, at
 * `now`); answers the move, or null when it did not move. A step run twice (a retried job, two workers, an agent
 * and a worker) moves a refund at most once and records it once.
 *
 * The status guard is `unindexed` (src/store/unindexed.ts): the refund is found by its refundCode, never by a
 * walk of a status index.
 */
export async function moveRefund(
  trx: Transaction<Database>,
  now: Date,
  refundCode: string,
  from: number,
  to: number,
  cause: string,
  patch: TransitionPatch = {},
  opts: { ticketsRefunded?: boolean } = {},
): Promise<RefundMove | null> {
  // The airline refunded the tickets (its amount below the fee): they stay with this refund, never refunded again
  // (a review: freed, they were quoted and submitted a second time).
  const freesTickets = (to === RS.REJECTED || to === RS.WITHDRAWN) && !opts.ticketsRefunded;
  // Freeing the tickets moves the order's context version, which holds the order's row. Held first, as the
  // submission statements hold it before their triggers hold the console's status counts (decision 0039): held
  // after this update's counts, it could wait in a circle with a submission of the same order.
  const held = freesTickets
    ? (await sql<{ order_no: string }>`select order_no from orders where order_no = (select r.order_no from refund_orders r where r.refund_code = ${refundCode}) for no key update`.execute(trx)).rows[0]
    : undefined;
  const res = await trx
    .updateTable('refund_orders')
    .set({ status: to, updated_at: now, ...storableDeep(patch) })
    .where('refund_code', '=', refundCode)
    .where(unindexed('status'), '=', from)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) return null;
  await trx.insertInto('refund_status_history').values({ refund_code: refundCode, from_status: from, to_status: to, at: now, cause: storableText(cause) }).execute();
  if (freesTickets) await trx.updateTable('refund_tickets').set({ live: false }).where('refund_code', '=', refundCode).execute();
  return { freedOrderNo: held?.order_no ?? null };
}
