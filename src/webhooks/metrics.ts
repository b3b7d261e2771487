// What operators watch of the webhook outbox (read at each /metrics scrape): events not delivered yet and
// events given up on, per event type, and how old the oldest undelivered event is.
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** The scrape's read: by the partial index of the undelivered events (migration 0033), never the outbox whole. */
export const UNDELIVERED_EVENTS_SQL = `select type, state, count(*) as count, min(occurred_at) as oldest from webhook_events
    where state in ('pending', 'failed')
    group by type, state`;

export async function undeliveredEvents(db: Kysely<Database>): Promise<Array<{ type: string; state: 'pending' | 'failed'; count: number; oldest: Date }>> {
  const { rows } = await db.executeQuery<{ type: string; state: 'pending' | 'failed'; count: string | number; oldest: Date | string }>(CompiledQuery.raw(UNDELIVERED_EVENTS_SQL));
  return rows.map((r) => ({ type: r.type, state: r.state, count: Number(r.count), oldest: new Date(r.oldest) }));
}
