// An order is read by its key alone, its client checked on the row read (decision 0066). The refund context's
// lookups matched the order with `o.order_no = b.order_no and o.client_id = b.client_id` (or the PNR's two columns and
// the client): two indexes fit that, the key and orders_client (client_id, created_at), and on a store's first orders
// their costs tie. A generic plan made then — a prepared statement's after five executions, kept by its connection
// until its tables are analyzed — could read the order through orders_client, every order of the client a lookup;
// PostgreSQL did so on an empty store, and the concurrent lookups' form read orders whole. A store that then grows
// without an ANALYZE (autovacuum off or behind, decision 0015) keeps that plan: the offers' statement, which had the same
// shape, took 43 ms instead of 0.45 once its client had 200,000 orders. Here the order is read in a sub-select fenced by
// `offset 0` on its key (or on orders_airline_record's two columns), which no other index fits, and the client is
// compared on the row that sub-select answers; the 824 check reads each ancillary's order by its key the same way. The
// lookups answer as before: the LEFT JOIN still leaves a lookup its row, with nulls, when the order is another
// client's. The one-row forms the service runs for a lone lookup are defined here too (src/refunds/context.ts).
import { sql, type Kysely } from 'kysely';
import {
  contextSql,
  CONTEXTS_BY_ORDER_NO_SQL as CONTEXTS_BY_ORDER_NO_SQL_0029,
  CONTEXTS_BY_PNR_SQL as CONTEXTS_BY_PNR_SQL_0029,
  LOOKUP_BY_ORDER_NO,
  LOOKUP_BY_PNR,
  LOOKUPS_BY_ORDER_NO,
  LOOKUPS_BY_PNR,
  onGenericPlan,
  ORDER_COLUMNS,
} from './0029_refund_contexts_on_generic_plans.js';

/** The order of `b`'s lookup, read by the key `key` and kept only when it is `b`'s client's. */
function orderByKey(key: string): string {
  return `lateral (select ${ORDER_COLUMNS} from orders o where ${key} offset 0) o on o.client_id = b.client_id`;
}

const BY_ORDER_NO = orderByKey('o.order_no = b.order_no');
const BY_PNR = orderByKey('o.carrier = b.carrier and o.airline_pnr = b.airline_pnr');
// 824: an orderNo that is no order of the caller's, looked up among the post-ticketing service orders of the caller's
// orders; each ancillary's order read by its key in a scalar sub-select (a scalar sub-select with LIMIT, not EXISTS, as
// in migration 0029).
const ANCILLARY_CHECK = `case when o.order_no is null then (
     select true from order_ancillaries x
     where x.post_order_no = b.order_no and (select xo.client_id from orders xo where xo.order_no = x.order_no) = b.client_id limit 1) end`;

export const CONTEXT_BY_ORDER_NO_SQL = contextSql(LOOKUP_BY_ORDER_NO, BY_ORDER_NO, ANCILLARY_CHECK);
export const CONTEXT_BY_PNR_SQL = contextSql(LOOKUP_BY_PNR, BY_PNR, 'null::boolean');
export const CONTEXTS_BY_ORDER_NO_SQL = contextSql(LOOKUPS_BY_ORDER_NO, BY_ORDER_NO, ANCILLARY_CHECK);
export const CONTEXTS_BY_PNR_SQL = contextSql(LOOKUPS_BY_PNR, BY_PNR, 'null::boolean');

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(onGenericPlan('refund_contexts_by_order_no', 'text[], text[]', CONTEXTS_BY_ORDER_NO_SQL)).execute(db);
  await sql.raw(onGenericPlan('refund_contexts_by_pnr', 'text[], text[], text[]', CONTEXTS_BY_PNR_SQL)).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(onGenericPlan('refund_contexts_by_order_no', 'text[], text[]', CONTEXTS_BY_ORDER_NO_SQL_0029)).execute(db);
  await sql.raw(onGenericPlan('refund_contexts_by_pnr', 'text[], text[], text[]', CONTEXTS_BY_PNR_SQL_0029)).execute(db);
}
