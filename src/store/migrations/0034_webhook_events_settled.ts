// The webhook outbox's settled events by the time of their status change (decision 0022): the retention sweep
// (src/webhooks/retention.ts) deletes those past WEBHOOK_RETENTION_DAYS oldest first, a batch at a time, and
// finds them by this index instead of reading the outbox whole.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists webhook_events_settled on webhook_events (occurred_at) where state <> 'pending'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webhook_events_settled`.execute(db);
}
