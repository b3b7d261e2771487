// Operator views of the webhook outbox (`postbook webhooks list|retry`): list events by state, and send
// failed (or pending) events again now. A retried event gets one more attempt at once; if that fails too
// after its 24 hours, it is failed again, with the attempt recorded (docs/webhooks.md "Retries").
import { sql, type Kysely } from 'kysely';
import type { Database, WebhookEventState } from '../store/schema.js';

export interface ListedEvent {
  id: number;
  eventId: string;
  clientId: string;
  type: string;
  subject: string;
  transition: string;
  state: WebhookEventState;
  attempts: number;
  occurredAt: Date;
  nextAttemptAt: Date;
  lastError: string | null;
}

export async function listEvents(db: Kysely<Database>, opts: { state?: WebhookEventState; clientId?: string; limit: number }): Promise<ListedEvent[]> {
  let q = db
    .selectFrom('webhook_events')
    .select(['id', 'event_id', 'client_id', 'type', 'subject', 'from_status', 'to_status', 'state', 'attempts', 'occurred_at', 'next_attempt_at', 'last_error'])
    .orderBy('id', 'desc')
    .limit(opts.limit);
  if (opts.state) q = q.where('state', '=', opts.state);
  if (opts.clientId) q = q.where('client_id', '=', opts.clientId);
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    clientId: r.client_id,
    type: r.type,
    subject: r.subject,
    transition: `${r.from_status ?? '-'}→${r.to_status}`,
    state: r.state,
    attempts: r.attempts,
    occurredAt: new Date(r.occurred_at),
    nextAttemptAt: new Date(r.next_attempt_at),
    lastError: r.last_error,
  }));
}

/**
 * An event a deliverer has claimed and is sending at `now`: its attempt counted, not yet recorded, its lease running.
 * Made due again, it would be claimed and sent a second time beside that attempt (and the subject's next event
 * could overtake it).
 */
const inFlight = (now: Date) => sql<boolean>`(webhook_events.attempts > 0 and webhook_events.next_attempt_at > ${now}::timestamptz and not exists (
  select 1 from webhook_attempts a where a.event_id = webhook_events.id and a.attempt = webhook_events.attempts))`;

/**
 * Makes the given events (by id or event id), or every failed one, due at `now`; returns how many. Delivered events
 * are left alone, and so is an event being sent at this moment (its attempt settles it). `now` is the service's
 * clock, the one the deliverer's due times and leases are written on (the sandbox's when it runs ahead); the
 * database's own time lagged it, and an event claimed by a deliverer that died stayed "in flight" until the database
 * caught up with the sandbox's lease (a day after a `sandbox clock advance 1d`).
 */
export async function retryEvents(db: Kysely<Database>, which: { ids: string[] } | { allFailed: true; clientId?: string }, now: Date): Promise<number> {
  let q = db
    .updateTable('webhook_events')
    .set({ state: 'pending', next_attempt_at: now })
    .where('state', '<>', 'delivered')
    .where(sql<boolean>`not ${inFlight(now)}`);
  if ('ids' in which) {
    const numeric = which.ids.filter((id) => /^\d{1,15}$/.test(id)).map(Number);
    const uuids = which.ids.filter((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id));
    if (numeric.length + uuids.length === 0) return 0;
    q = q.where((eb) => eb.or([...(uuids.length ? [eb('event_id', 'in', uuids)] : []), ...(numeric.length ? [eb('id', 'in', numeric)] : [])]));
  } else {
    q = q.where('state', '=', 'failed');
    if (which.clientId) q = q.where('client_id', '=', which.clientId);
  }
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows);
}
