// Look-to-book counts a client's orders paid within the last day (src/ratelimit/look-to-book.ts), every 30 s per
// client over its request threshold: only orders_client (client_id, created_at) served it, so the count read every
// order of a busy client (a review: 37–41 ms at 3·10⁵ orders; on the embedded store that is the service's thread).
// Partial: booking orders once ticketed. Not on `status` (a diff review): a column in an index's predicate makes every
// update of it a non-HOT update, and pay.do and the expiry sweep update orders' status alone (448 of 1,000 were HOT
// without such an index, none with it); the query's `ticketed_at > …` implies `is not null`, in a generic plan too.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists orders_paid_by_client on orders (client_id, ticketed_at) where source = 'booking' and ticketed_at is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists orders_paid_by_client`.execute(db);
}
