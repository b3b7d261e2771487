// The refund context's batch read runs on its generic plan (decision 0036). Concurrent lookups of an order's
// refund context share one statement (decision 0031), its lookups an array parameter. PostgreSQL estimates an
// `unnest` of an array at its length in a custom plan and at 10 rows in the generic one, so whether a connection
// ever took the generic plan depended on the batches it ran first: after small ones (a deployment at light
// load) it planned the statement anew at every execution, for good — 0.70 ms of PostgreSQL's CPU a batch of ten
// and 0.46 a batch of two, against 0.43 and 0.20 here (one connection in a loop; the planning is 3-5 times
// dearer on PGlite). Here the two batch forms become functions whose own settings hold their statement to its
// generic plan (and, as in migrations 0019, 0021 and 0023, read by key whatever the planner knows). The context
// query itself is defined here, once, for the functions and for the one-row forms the service runs for a lone
// lookup (src/refunds/context.ts), which PostgreSQL settles on their generic plans by itself. A later change of
// the query is a migration that replaces these functions.
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

/**
 * Everything a refund decision reads about one order, in ONE statement (docs/architecture.md "Performance targets"): the
 * order scoped to the caller, then its passengers, segments, tickets with coupons, ancillaries and live
 * refunds as JSON arrays of positional tuples (smaller to build and parse than objects), and, only when no
 * order matched an orderNo, whether it is the number of a post-ticketing service order of one of the
 * caller's orders (824). The order comes through a LEFT JOIN so a miss still answers one row. Each sub-select
 * runs on an index of its table (src/store/hot-path-indexes.test.ts holds the plans). Every sub-select is
 * correlated (a parameter of its outer row), never a join the planner may turn into a hash join: a prepared
 * statement runs on a generic plan whose row estimates do not know the order, and a hash join of
 * refund_orders with refund_tickets there read refund_tickets whole on every quote (decision 0015).
 */
/**
 * The orders columns by name, not `o.*`: a prepared statement whose result shape changes (a column added by
 * a later migration) fails on every pooled connection that prepared it.
 */
export const ORDER_COLUMNS = 'o.order_no, o.client_id, o.source, o.status, o.carrier, o.airline_pnr, o.contact_email, o.contact_phone, o.payment_method, o.currency, o.total_minor, o.ticketed_at, o.created_at, o.updated_at, o.ctx_version';

/**
 * `orders`: how the order joins the lookups `from` (`b`), as `o` (here `orders o on <match>`; migration 0048 reads it
 * by its key alone).
 */
export function contextSql(from: string, orders: string, ancillaryCheck: string): string {
  return `select b.i,
  ${ORDER_COLUMNS},
  (select json_agg(json_build_array(p.pax_index, p.passenger_type, p.last_name, p.first_name) order by p.pax_index)
     from order_passengers p where p.order_no = o.order_no) as pax,
  (select json_agg(json_build_array(s.segment_index, s.direction, s.carrier, s.flight_number, s.dep_airport, s.arr_airport,
                                    s.dep_local, s.booked_dep_local, s.dep_time_zone, s.dep_at, s.arr_at) order by s.segment_index)
     from order_segments s where s.order_no = o.order_no) as segs,
  (select json_agg(json_build_array(t.ticket_no, t.pax_index, t.currency, t.fare_minor, t.tax_minor, t.issued_at, t.tax_status_confirmed,
                                    (select json_agg(json_build_array(c.segment_index, c.status) order by c.segment_index)
                                       from ticket_coupons c where c.ticket_no = t.ticket_no)) order by t.ticket_no)
     from tickets t where t.order_no = o.order_no) as tix,
  (select json_agg(json_build_array(a.pax_index, a.segment_index, a.kind, a.category, a.post_order_no, a.currency, a.price_minor) order by a.id)
     from order_ancillaries a where a.order_no = o.order_no) as anc,
  (select json_agg(json_build_array(r.refund_code, r.reason,
                                    (select json_agg(rt.ticket_no) from refund_tickets rt where rt.refund_code = r.refund_code and rt.live)))
     from refund_orders r where r.order_no = o.order_no) as refunds,
  (select json_build_array(v.void_code, v.status) from void_orders v where v.order_no = o.order_no and v.status not in (4, 6)) as live_void,
  ${ancillaryCheck} as ancillary
from ${from} left join ${orders}
order by b.i`;
}

/**
 * Several callers' lookups in one statement (decision 0031): parallel arrays, one element per lookup, read
 * as rows numbered by `with ordinality`; each lookup answers exactly one row (its order through the LEFT
 * JOIN, or none), in the arrays' order. Both lookups use a unique index of orders (the primary key; the
 * unique (carrier, airline_pnr)), so a lookup never matches two orders. The array forms run inside the
 * functions below, on their generic plans; a lone lookup runs the one-row form directly (no function call:
 * ~45 µs less of the server's CPU), which PostgreSQL settles on its generic plan by itself.
 */
const ORDER_NO_MATCH = 'o.order_no = b.order_no and o.client_id = b.client_id';
// A scalar sub-select with LIMIT, not EXISTS: the planner may run an EXISTS correlated to the outer row as a
// hashed sub-plan over both tables whole (the generic plan without statistics did).
const ANCILLARY_CHECK = `case when o.order_no is null then (
     select true from order_ancillaries x join orders xo on xo.order_no = x.order_no
     where x.post_order_no = b.order_no and xo.client_id = b.client_id limit 1) end`;
const PNR_MATCH = 'o.carrier = b.carrier and o.airline_pnr = b.airline_pnr and o.client_id = b.client_id';

/** The lookups each form reads (`b`): $1 client, $2 orderNo; $1 client, $2 airline PNR, $3 carrier (both upper case); the arrays of either. */
export const LOOKUP_BY_ORDER_NO = '(select 1::bigint as i, $1::text as client_id, $2::text as order_no) as b';
export const LOOKUP_BY_PNR = '(select 1::bigint as i, $1::text as client_id, $2::text as airline_pnr, $3::text as carrier) as b';
export const LOOKUPS_BY_ORDER_NO = 'unnest($1::text[], $2::text[]) with ordinality as b(client_id, order_no, i)';
export const LOOKUPS_BY_PNR = 'unnest($1::text[], $2::text[], $3::text[]) with ordinality as b(client_id, airline_pnr, carrier, i)';

export const CONTEXT_BY_ORDER_NO_SQL = contextSql(LOOKUP_BY_ORDER_NO, `orders o on ${ORDER_NO_MATCH}`, ANCILLARY_CHECK);
export const CONTEXT_BY_PNR_SQL = contextSql(LOOKUP_BY_PNR, `orders o on ${PNR_MATCH}`, 'null::boolean');
export const CONTEXTS_BY_ORDER_NO_SQL = contextSql(LOOKUPS_BY_ORDER_NO, `orders o on ${ORDER_NO_MATCH}`, ANCILLARY_CHECK);
export const CONTEXTS_BY_PNR_SQL = contextSql(LOOKUPS_BY_PNR, `orders o on ${PNR_MATCH}`, 'null::boolean');

/** The context query's result columns: `i`, the order's columns (ORDER_COLUMNS), the JSON arrays, the 824 flag. */
const RESULT = `i bigint, order_no text, client_id text, source text, status text, carrier text, airline_pnr text, contact_email text,
  contact_phone text, payment_method text, currency text, total_minor bigint, ticketed_at timestamptz, created_at timestamptz,
  updated_at timestamptz, ctx_version bigint, pax json, segs json, tix json, anc json, refunds json, live_void json, ancillary boolean`;

/** A function answering `query` (whose $n are its arguments) on the statement's generic plan, read by key. */
export function onGenericPlan(name: string, args: string, query: string): string {
  return `
    create or replace function ${name}(${args}) returns table (${RESULT})
      language plpgsql stable set plan_cache_mode = force_generic_plan ${BY_KEY}
    as $fn$
    #variable_conflict use_column
    begin
      return query ${query};
    end
    $fn$;`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql.raw(onGenericPlan('refund_contexts_by_order_no', 'text[], text[]', CONTEXTS_BY_ORDER_NO_SQL)).execute(db);
  await sql.raw(onGenericPlan('refund_contexts_by_pnr', 'text[], text[], text[]', CONTEXTS_BY_PNR_SQL)).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function if exists refund_contexts_by_order_no(text[], text[])`.execute(db);
  await sql`drop function if exists refund_contexts_by_pnr(text[], text[], text[])`.execute(db);
}
