// A refund's priced quote is stored once, as its used offer's `quote` (decision 0053). A submission wrote it twice: as
// the used offer's document and again, parsed into jsonb, as the refund's `details`, which took the refund row over
// PostgreSQL's 2 KB threshold so that it was compressed too (issue 7 "speed": the largest part of refund.do's store
// work left). A refund stored from now on keeps in `details` only what it adds to its quote (the airline's outcome,
// written at completion); refunds stored before keep their whole quote there, and every reader takes the quote from
// `details` when it holds one (`tickets`), from the offer otherwise.
//
// Two columns of the quote's the console's queue reads for every refund it counts and flags (its SLA dates), so
// that the queue reads no document; null for refunds stored before, whose `details` still hold the dates.
//
// The 0 → 1 batch read (migration 0023) takes the tickets and their paid total from the refund's own quote, wherever
// it is: its offer read by key in a lateral sub-plan, as the function reads everything else.
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

/** refund_load_batch with the refund's tickets read from `tickets`, a json array of { ticketNo, paidMinor }. */
function loadBatch(tickets: string, offer: string): string {
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
          array(select t->>'ticketNo' from json_array_elements(${tickets}) t),
          (select coalesce(sum((t->>'paidMinor')::bigint), 0) from json_array_elements(${tickets}) t)::bigint
        from unnest(codes) k(code)
        cross join lateral (select * from refund_orders x where x.refund_code = k.code offset 0) r
        cross join lateral (select * from orders y where y.order_no = r.order_no offset 0) o
        ${offer};
    end
    $fn$;`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_orders
      add column if not exists expected_confirmation_date text,
      add column if not exists expected_refund_date text;
  `.execute(db);
  await sql
    .raw(
      loadBatch(
        `case when r.details ? 'tickets' then (r.details->'tickets')::json else f.quote->'tickets' end`,
        // left: a refund whose offer were gone still has its details to read (and is sent, not dropped from the batch)
        `left join lateral (select z.quote from refund_offers z where z.offer_id = r.offer_id and not r.details ? 'tickets' offset 0) f on true`,
      ),
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw(loadBatch(`(r.details->'tickets')::json`, '')).execute(db);
  await sql`
    alter table refund_orders
      drop column if exists expected_confirmation_date,
      drop column if exists expected_refund_date;
  `.execute(db);
}
