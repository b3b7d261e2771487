// Look-to-book counts a client's orders paid within the last day (src/ratelimit/look-to-book.ts), every 30 s per
// client over its request threshold: only orders_client (client_id, created_at) served it, so the count read every
// order of a busy client (a review: 37–41 ms at 3·10⁵ orders; on the embedded store that is the service's thread).
// Partial: paid booking orders only, so the orders still unpaid or refunded are not in it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists orders_paid_by_client on orders (client_id, ticketed_at) where source = 'booking' and status = '2'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_paid_by_client`.execute(db);
}
