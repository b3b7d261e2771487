// An Idempotency-Key's first claim time, kept through take-overs (src/http/idempotency.ts): a retry that takes over
// an abandoned request's key looks for what was made since the first request began (refund.do, void.do), and a
// take-over's own created_at is its claim on the row. Null until a take-over.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys add column if not exists resumed_from timestamptz`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table idempotency_keys drop column if exists resumed_from`.execute(db);
}
