// An offer's order and client are checked by the statements that write offers, not by foreign keys (decision 0051).
// A foreign key checks each new row with a `SELECT … FOR KEY SHARE` of its parent: a row lock, written to the parent
// row and to the WAL, on the client row that every quote of the client shares and on the order row — for a row that
// a quote writes every time (issue 7 "speed": ~16 µs of PostgreSQL's time per offer, ~10 % of the quote's rate).
// The offers' statement (src/refunds/offers.ts) stores an offer only if its order is there and the client's, and
// refund.do's submissions by list write the used offer beside a refund of the same order and client, whose own
// foreign keys check them. Orders and clients are never deleted (nothing in postbook deletes either).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_offers
      drop constraint if exists refund_offers_client_id_fkey,
      drop constraint if exists refund_offers_order_no_fkey;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_offers
      add constraint refund_offers_client_id_fkey foreign key (client_id) references clients(client_id),
      add constraint refund_offers_order_no_fkey foreign key (order_no) references orders(order_no);
  `.execute(db);
}
