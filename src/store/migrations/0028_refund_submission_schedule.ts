// A refund's submission to the airline is a due time in its row too (decision 0035): at status 0 `next_poll_at`
// is when the lifecycle's sweep next sends it (null: nobody will, its attempts gave up), `poll_failures` and
// `poll_error` its failed attempts in a row, as they are for the looks at 1 and 3 (migration 0027). The sweep's
// index covers the three statuses. The refunds already at 0 are due at once; the submission jobs an older build
// left in the queue still run (the lifecycle keeps their worker) and find the same refund, which moves at most once.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update refund_orders set next_poll_at = now() where status = 0 and next_poll_at is null`.execute(db);
  await sql`create index if not exists refund_orders_step_due on refund_orders (next_poll_at, refund_code) where status in (0, 1, 3)`.execute(db);
  await sql`drop index if exists refund_orders_poll_due`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists refund_orders_poll_due on refund_orders (next_poll_at, refund_code) where status in (1, 3)`.execute(db);
  await sql`drop index if exists refund_orders_step_due`.execute(db);
  await sql`update refund_orders set next_poll_at = null where status = 0`.execute(db);
}
