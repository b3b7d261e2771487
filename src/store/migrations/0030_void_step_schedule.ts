// A void's airline calls are due times in its row (decision 0045), as a refund's are (decisions 0034, 0035):
// `next_step_at` is when the lifecycle's sweep next sends the void (status 0) or looks at it (1, 3), null once it
// is final; `step_failures` and `step_error` its failed calls in a row. The sweep reads the due ones on
// `void_orders_step_due`. The column's default, '-infinity' (due at once whatever the clock), covers the live voids
// already written and those an older build still writes during a rollout: the sweep takes each of them up, and
// the void jobs such a build queued still run (the lifecycle keeps their worker, which makes the void due now).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table void_orders
      add column if not exists next_step_at timestamptz default '-infinity',
      add column if not exists step_failures int not null default 0,
      add column if not exists step_error text`.execute(db);
  await sql`update void_orders set next_step_at = null where status not in (0, 1, 3)`.execute(db);
  await sql`create index if not exists void_orders_step_due on void_orders (next_step_at, void_code) where status in (0, 1, 3)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists void_orders_step_due`.execute(db);
  await sql`alter table void_orders drop column if exists next_step_at, drop column if exists step_failures, drop column if exists step_error`.execute(db);
}
