// An order.do's airline booking between its call and its order row (decision 0046). The airline holds seats as
// soon as it books, and the order row that lets the expiry sweep release them is written after: a failed write
// (the routing session, the order's transaction) or a process that died in between left a hold no order named
// and nothing released (found by a review). The attempt is written before the airline is called, removed in
// the order's transaction, and an attempt older than an airline call can take is settled by the expiry sweep:
// the booking asked again under the same idempotency key (the order number: the airline answers the booking it
// made, or makes it), then released. `request` is the booking request as sent (passenger names and documents:
// the row is removed once settled); `recovering_since` marks an attempt the sweep (or its own order.do, releasing
// after a failure) took, which the order's transaction then refuses to record; `next_try_at` is when the sweep
// takes it up (an airline call's time after it began, then backing off while the airline does not answer).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table if not exists booking_attempts (
      order_no text primary key,
      client_id text not null references clients(client_id),
      carrier text not null,
      request jsonb not null,
      started_at timestamptz not null,
      next_try_at timestamptz not null,
      tries integer not null default 0,
      recovering_since timestamptz
    )
  `.execute(db);
  await sql`create index if not exists booking_attempts_due on booking_attempts (next_try_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists booking_attempts`.execute(db);
}
