// A refund's rows are checked by the statements that write them, not by foreign keys (decision 0064), as an offer's
// are since decision 0051. PostgreSQL checks a foreign key on each new row with a `SELECT … FOR KEY SHARE` of its
// parent, run through its own executor: five of them per refund.do submission (the refund's order, client and offer,
// its tickets' and its first history row's refund) and one per status move (the history's). Dropped by hand on a bench
// database, three alternating pairs at 40 callers (2026-12-07): PostgreSQL's CPU per submission 181–216 µs against
// 249–295, refund.do 2,270–2,861 submissions a second against 1,894–2,220 (docs/plans/refund-writes.md).
//
// What they guaranteed is kept by construction (decision 0064): every statement that writes a refund writes it only
// for an order it holds (`held`, for no key update) and an offer it writes or holds in the same statement, for the
// caller's client; every statement that writes a refund's tickets or a history row writes them from the refund rows it
// inserts or updates in the same statement or transaction. Orders, clients, offers and refunds are never deleted by
// postbook; the two `on delete cascade`s are kept by a statement-level trigger, so that a refund deleted by hand (or by
// a test) still takes its tickets and history with it.
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  // by key whatever the plan's estimate of the transition table (BY_KEY, migration 0019), as every trigger reads
  await sql`
    alter table refund_orders
      drop constraint if exists refund_orders_client_id_fkey,
      drop constraint if exists refund_orders_order_no_fkey,
      drop constraint if exists refund_orders_offer_id_fkey;
    alter table refund_tickets drop constraint if exists refund_tickets_refund_code_fkey;
    alter table refund_status_history drop constraint if exists refund_status_history_refund_code_fkey;
    create function refund_orders_children_delete() returns trigger language plpgsql ${sql.raw(BY_KEY)} as $fn$
    begin
      delete from refund_tickets where refund_code = any(array(select refund_code from gone));
      delete from refund_status_history where refund_code = any(array(select refund_code from gone));
      return null;
    end
    $fn$;
    create trigger refund_orders_children_delete after delete on refund_orders
      referencing old table as gone for each statement execute function refund_orders_children_delete();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger refund_orders_children_delete on refund_orders;
    drop function refund_orders_children_delete();
    alter table refund_orders
      add constraint refund_orders_client_id_fkey foreign key (client_id) references clients(client_id),
      add constraint refund_orders_order_no_fkey foreign key (order_no) references orders(order_no),
      add constraint refund_orders_offer_id_fkey foreign key (offer_id) references refund_offers(offer_id);
    alter table refund_tickets
      add constraint refund_tickets_refund_code_fkey foreign key (refund_code) references refund_orders(refund_code) on delete cascade;
    alter table refund_status_history
      add constraint refund_status_history_refund_code_fkey foreign key (refund_code) references refund_orders(refund_code) on delete cascade;
  `.execute(db);
}
