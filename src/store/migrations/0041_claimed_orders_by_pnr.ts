// queryOrderDetails.do finds a claimed order by the pnrCode it shows, the airline's locator, without its carrier
// (src/booking/order-query.ts; a review: 800 for it). orders_airline_record (carrier, airline_pnr) needs the carrier
// and orders_client (client_id, created_at) would read every order of the client: a partial index of claimed orders.
// `source` never changes once written, so the predicate costs no HOT update.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists orders_claimed_by_pnr on orders (client_id, airline_pnr) where source = 'claim'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_claimed_by_pnr`.execute(db);
}
