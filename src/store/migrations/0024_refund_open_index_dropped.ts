// refund_orders carried two indexes leading with the status: `refund_orders_open (status) where status in (0, 1, 3)`
// (migration 0002) and `refund_orders_status_created (status, created_at desc)` (migration 0015, the console).
// Every read the first served, the second serves as well: the metrics' oldest refund per open status is one
// probe of the second per status (src/refunds/metrics.ts). The first cost a write on every refund created and
// on every move into an open status (each 0 → 1 of the submission worker, each 1 → 3): issue 7, decision 0026.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists refund_orders_open`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists refund_orders_open on refund_orders (status) where status in (0, 1, 3)`.execute(db);
}
