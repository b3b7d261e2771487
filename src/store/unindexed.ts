// A guard on a row already found by its key, written so that no index can serve it.
//
// Status columns change in bursts: a backlog of refunds at 0 while an airline is slow or down, voids waiting on
// the airline. Statistics taken before a burst put its status at nearly no row, so for `key = $1 and status = $2`
// the planner costs a walk of the status index (refund_orders_open, *_status_created) as cheap as the key's own
// index, and takes it: every refund at that status read to move one (src/refunds/lifecycle-plans.test.ts).
// `status + 0` is the same value as an expression no index is built on; the row is found by its key and the
// guard only checks it.
import { sql, type RawBuilder } from 'kysely';

/** `column + 0`: the column's integer value, for a guard no index may serve (`column` may be qualified: `r.status`). */
export function unindexed(column: string): RawBuilder<number> {
  return sql<number>`${sql.ref(column)} + 0`;
}
