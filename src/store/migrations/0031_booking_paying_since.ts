// When an order's payment began (pay_state 'paying'): pay.do writes it as it claims the payment and clears it once
// the payment is settled. A payment whose process died during the airline's ticketing (or whose last write failed)
// stayed 'paying' for good: the expiry sweep never lapsed it, its hold was never released and pay.do answered 406
// ever after (found by a review). The expiry sweep now settles a payment 'paying' for longer than an airline call
// can take (src/booking/expiry.ts): ticketing asked again under the same idempotency key. A payment already
// 'paying' when this runs is taken up at once ('-infinity').
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table booking_orders add column if not exists paying_since timestamptz`.execute(db);
  await sql`update booking_orders set paying_since = '-infinity' where pay_state = 'paying' and paying_since is null`.execute(db);
  await sql`create index if not exists booking_orders_paying on booking_orders (paying_since) where pay_state = 'paying'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists booking_orders_paying`.execute(db);
  await sql`alter table booking_orders drop column if exists paying_since`.execute(db);
}
