// The 0 → 1 batch read of the refund lifecycle goes by key whatever the planner knows of the store (issue 7).
//
// RefundLifecycle's batch read (a named prepared statement) joins each refund of the batch to its order. When
// `orders` and `refund_orders` were last analyzed small and have grown since (a bulk load, a burst of
// bookings, a store emptied and refilled — autovacuum's analyze comes only after 10 % of the rows changed and
// a nap), the planner prices a probe of `orders_pkey` at thousands (the index is large, its table's row count
// tiny), and the generic plan read `orders` whole for every batch: the PostgreSQL bench's backlog of 10⁵
// refunds ran at ~300 refunds/s instead of ~3,000, the server's PostgreSQL backends busy with sequential
// scans. As in migrations 0019 and 0021: a function whose own SET clause rules out sequential scans, hash and
// merge joins while it runs, each refundCode looked up in a lateral sub-plan.
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function refund_load_batch(codes text[])
      returns table (refund_code text, status int, reason text, currency text, quote_type text, estimated_refund_minor bigint,
                     carrier text, airline_pnr text, source text, ticket_nos text[], paid_minor bigint)
      language plpgsql stable ${sql.raw(BY_KEY)}
    as $fn$
    #variable_conflict use_column
    begin
      return query
        select r.refund_code, r.status, r.reason, r.currency, r.quote_type, r.estimated_refund_minor, o.carrier, o.airline_pnr, o.source,
          array(select t->>'ticketNo' from jsonb_array_elements(r.details->'tickets') t),
          (select coalesce(sum((t->>'paidMinor')::bigint), 0) from jsonb_array_elements(r.details->'tickets') t)::bigint
        from unnest(codes) k(code)
        cross join lateral (select * from refund_orders x where x.refund_code = k.code offset 0) r
        cross join lateral (select * from orders y where y.order_no = r.order_no offset 0) o;
    end
    $fn$;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function refund_load_batch(text[]);`.execute(db);
}
