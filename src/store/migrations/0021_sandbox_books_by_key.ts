// The sandbox airline's books read goes by key whatever the planner knows of the books (issue 7).
//
// The read (src/airline/sandbox/refunds.ts) looks up each refundCode of a batch, and each booking's accepted
// refunds, as lateral sub-plans. Still, a plan made when the books had been ANALYZEd while empty (reltuples 0)
// costs a sequential scan at nothing, and a prepared statement keeps that generic plan until the next ANALYZE
// of the table: after the bench's quote-scale measure (which analyzes the whole store) the 0 → 1 batches read
// 20,000 books twice per element, 90 ms a batch on PGlite, and the embedded backlog fell from 1,784 to 236
// refunds/s. As for the triggers of migration 0019: the read is a function whose own SET clause rules out
// sequential scans, hash and merge joins while it runs (its statement is planned once per connection, by key).
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function sandbox_refund_books(codes text[], booking_carrier text, pnrs text[])
      returns table (refund_code text, carrier text, pnr text, ticket_nos jsonb, decision text, withdrawn_at timestamptz)
      language plpgsql stable ${sql.raw(BY_KEY)}
    as $fn$
    #variable_conflict use_column
    begin
      return query
        select s.refund_code, s.carrier, s.pnr, s.ticket_nos, s.decision, s.withdrawn_at
        from unnest(codes) k(code)
        cross join lateral (select * from sandbox_refunds r where r.refund_code = k.code offset 0) s
        union all
        select s.refund_code, s.carrier, s.pnr, s.ticket_nos, s.decision, s.withdrawn_at
        from unnest(pnrs) b(booking)
        cross join lateral (
          select * from sandbox_refunds r
          where r.carrier = booking_carrier and r.pnr = b.booking and r.decision = 'accept' and r.withdrawn_at is null and r.refund_code <> all(codes)
          offset 0
        ) s;
    end
    $fn$;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function sandbox_refund_books(text[], text, text[]);`.execute(db);
}
