// The webhook outbox's undelivered events, by index (docs/webhooks.md, decision 0022). Every /metrics scrape of
// every process counts the pending and failed events per type and reads the oldest; with no index on `state`
// that read the outbox whole — a table that keeps every delivered event and grows by one row a status change
// (found by a review). A partial index on the undelivered rows only: the scrape reads those, and a delivered
// event leaves the index when its state changes.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists webhook_events_undelivered on webhook_events (type, state, occurred_at) where state in ('pending', 'failed')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists webhook_events_undelivered`.execute(db);
}
