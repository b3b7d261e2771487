// Idempotency keys expire (decision 0028): the cleanup job (src/jobs/idempotency-expiry.ts) finds the rows
// older than the TTL through this index, oldest first, instead of reading the whole table at every sweep.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index idempotency_keys_created_at on idempotency_keys (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index idempotency_keys_created_at`.execute(db);
}
