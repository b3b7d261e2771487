// What operators watch of the webhook outbox (read at each /metrics scrape): events not delivered yet and
// events given up on, per event type, and how old the oldest undelivered event is.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export async function undeliveredEvents(db: Kysely<Database>): Promise<Array<{ type: string; state: 'pending' | 'failed'; count: number; oldest: Date }>> {
  const { rows } = await sql<{ type: string; state: 'pending' | 'failed'; count: string | number; oldest: Date | string }>`
    select type, state, count(*) as count, min(occurred_at) as oldest from webhook_events
    where state in ('pending', 'failed')
    group by type, state`.execute(db);
  return rows.map((r) => ({ type: r.type, state: r.state, count: Number(r.count), oldest: new Date(r.oldest) }));
}
