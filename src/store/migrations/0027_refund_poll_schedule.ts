// A refund the airline holds (status 1 or 3) carries its own poll schedule (decision 0034): when it is next
// looked at, how many looks in a row failed, and the last failure. The lifecycle's poll sweep reads the due
// ones on `refund_orders_poll_due` and moves `next_poll_at` in the statement of each look, instead of a pg-boss
// job per look. null: nobody looks (the looks gave up after their retries, or the refund left 1 and 3).
// The refunds already at 1 or 3 are due at once; the poll jobs an older build left in the queue still run
// (the lifecycle keeps their worker) and find the same refund, which a look moves at most once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_orders
      add column if not exists next_poll_at timestamptz,
      add column if not exists poll_failures int not null default 0,
      add column if not exists poll_error text`.execute(db);
  await sql`update refund_orders set next_poll_at = now() where status in (1, 3) and next_poll_at is null`.execute(db);
  await sql`create index if not exists refund_orders_poll_due on refund_orders (next_poll_at, refund_code) where status in (1, 3)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists refund_orders_poll_due`.execute(db);
  await sql`alter table refund_orders drop column if exists next_poll_at, drop column if exists poll_failures, drop column if exists poll_error`.execute(db);
}
