// A refund's priced quote is stored once, as its used offer's `quote` (decision 0053). A submission wrote it twice: as
// the used offer's document and again, parsed into jsonb, as the refund's `details`, which took the refund row over
// PostgreSQL's 2 KB threshold so that it was compressed too (issue 7 "speed": the largest part of refund.do's store
// work left). A refund stored from now on keeps in `details` only what it adds to its quote (the airline's outcome,
// written at completion); refunds stored before keep their whole quote there, and every reader takes the quote from
// `details` when it holds one (`tickets`), from the offer otherwise.
//
// Columns of the quote's that readers of many refunds at once need, so that they read no document: its two
// expected dates, which the console's queue reads for every refund it counts and flags, and the tickets with
// their paid total, which the 0 → 1 batch read sends to the airline (migration 0023 read them out of the refund's
// details). Null for refunds stored before, whose `details` still hold them: each reader falls back to those.
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

/** refund_load_batch with the refund's tickets and their paid total as `ticketNos` and `paidMinor` give them. */
function loadBatch(ticketNos: string, paidMinor: string): string {
  return `
    create or replace function refund_load_batch(codes text[])
      returns table (refund_code text, status int, reason text, currency text, quote_type text, estimated_refund_minor bigint,
                     carrier text, airline_pnr text, source text, ticket_nos text[], paid_minor bigint)
      language plpgsql stable ${BY_KEY}
    as $fn$
    #variable_conflict use_column
    begin
      return query
        select r.refund_code, r.status, r.reason, r.currency, r.quote_type, r.estimated_refund_minor, o.carrier, o.airline_pnr, o.source,
          ${ticketNos}, ${paidMinor}::bigint
        from unnest(codes) k(code)
        cross join lateral (select * from refund_orders x where x.refund_code = k.code offset 0) r
        cross join lateral (select * from orders y where y.order_no = r.order_no offset 0) o;
    end
    $fn$;`;
}

/** As migration 0023 read them: out of the refund's details, the whole quote of a refund stored before 0053. */
const FROM_DETAILS = [
  `array(select t->>'ticketNo' from jsonb_array_elements(r.details->'tickets') t)`,
  `(select coalesce(sum((t->>'paidMinor')::bigint), 0) from jsonb_array_elements(r.details->'tickets') t)`,
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_orders
      add column if not exists expected_confirmation_date text,
      add column if not exists expected_refund_date text,
      add column if not exists ticket_nos text[],
      add column if not exists paid_minor bigint;
  `.execute(db);
  await sql.raw(loadBatch(`coalesce(r.ticket_nos, ${FROM_DETAILS[0]})`, `coalesce(r.paid_minor, ${FROM_DETAILS[1]})`)).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(loadBatch(...FROM_DETAILS)).execute(db);
  await sql`
    alter table refund_orders
      drop column if exists expected_confirmation_date,
      drop column if exists expected_refund_date,
      drop column if exists ticket_nos,
      drop column if exists paid_minor;
  `.execute(db);
}
