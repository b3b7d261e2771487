// Delivers the outbox (docs/webhooks.md, decision 0022): a polled loop that claims the due events, each
// the oldest pending event of its refund, for a lease; POSTs each outside any transaction, signed, with a
// time-out; then records the attempt and settles the event (delivered, retry later, or failed after 24 h).
// A crash between claim and settle leaves the event pending: it is sent again when its lease ends.
import type { Kysely } from 'kysely';
import { preparedQuery } from '../store/prepared.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { eventBody, type OutboxEvent } from './payload.js';
import { nextAttemptAt } from './schedule.js';
import type { WebhookKeyring } from './secret.js';
import { signWebhook, webhookHeaderNames } from './sign.js';

/** Budget of one POST, answer included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How long a claimed event is left to its deliverer before another may send it again. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000;
/** Characters of a receiver's answer kept with the attempt. */
export const RESPONSE_EXCERPT_CHARS = 200;

export interface DelivererDeps {
  db: Kysely<Database>;
  clock: Clock;
  keyring: WebhookKeyring;
  headerPrefix: string;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Milliseconds between two looks at the outbox when nothing was due (default 1000). */
  pollMs?: number;
  /** Events claimed per round (default 20). */
  batch?: number;
  timeoutMs?: number;
}

interface Claimed extends OutboxEvent {
  attempts: number;
  webhook_url: string | null;
  webhook_secret: string | null;
}

export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  error: string | null;
  excerpt: string | null;
  durationMs: number;
}

/**
 * Text a receiver sent (its answer, a connection error's words) as the store can hold it: PostgreSQL's text takes
 * no NUL character, and a settle refused for one left the event pending, sent again every lease for good (found by
 * a review: an answer `OK\0` of a binary or UTF-16 receiver).
 */
export const storable = (text: string | null): string | null => (text === null ? null : text.replaceAll('\u0000', '\uFFFD'));

/** Reads at most `max` characters of an answer, then lets the rest go. */
async function excerptOf(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < max) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, max);
}

// A round's claim: prepared once (decision 0015), as it runs every second even when nothing is due.
export const CLAIM_DUE_SQL = `with due as (
     select e.id from webhook_events e
     where e.state = 'pending' and e.next_attempt_at <= $1::timestamptz
       and not exists (
         select 1 from webhook_events p where p.type = e.type and p.subject = e.subject and p.state = 'pending' and p.id < e.id
       )
     order by e.next_attempt_at, e.id
     limit $2
     for update of e skip locked
   )
   update webhook_events e set attempts = e.attempts + 1, next_attempt_at = $3::timestamptz
   from due, clients c
   where e.id = due.id and c.client_id = e.client_id
   returning e.id, e.event_id, e.client_id, e.type, e.subject, e.order_no, e.from_status, e.to_status, e.cancel_reason, e.data,
     e.occurred_at, e.attempts, c.webhook_url, c.webhook_secret`;
const claimDueQuery = preparedQuery<Claimed>('webhook_claim_due', CLAIM_DUE_SQL);

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;
  private readonly names;

  constructor(private readonly deps: DelivererDeps) {
    this.names = webhookHeaderNames(deps.headerPrefix);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop; a round under way finishes (its POSTs time out within WEBHOOK_TIMEOUT_MS). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.deliverDue()
        .then((n) => this.schedule(n > 0 ? 0 : (this.deps.pollMs ?? 1000)))
        .catch((err: unknown) => {
          this.deps.log.error({ err: err instanceof Error ? err.message : String(err) }, 'webhook delivery round failed');
          this.schedule(this.deps.pollMs ?? 1000);
        });
    }, ms);
    this.timer.unref?.();
  }

  /** One round: claims the due events and delivers them concurrently. Returns how many were attempted. */
  async deliverDue(): Promise<number> {
    const now = this.deps.clock.now();
    const lease = new Date(now.getTime() + LEASE_MS);
    const { rows } = await this.deps.db.executeQuery(claimDueQuery([now, this.deps.batch ?? 20, lease]));
    await Promise.all(rows.map((e) => this.deliverOne(e)));
    return rows.length;
  }

  private async deliverOne(e: Claimed): Promise<void> {
    const startedAt = this.deps.clock.now();
    let outcome: AttemptOutcome;
    const secret = e.webhook_secret ? this.deps.keyring.open(e.webhook_secret) : null;
    if (!e.webhook_url) {
      // The client removed its URL: nothing to deliver to, ever.
      await this.settle(e, startedAt, { ok: false, httpStatus: null, error: 'no webhook URL registered', excerpt: null, durationMs: 0 }, '', true);
      return;
    }
    if (secret === null) outcome = { ok: false, httpStatus: null, error: 'webhook secret cannot be read with the configured WEBHOOK_SECRET_KEY', excerpt: null, durationMs: 0 };
    else outcome = await this.post(e, secret);
    await this.settle(e, startedAt, outcome, e.webhook_url, false);
  }

  /** The signed POST; never throws. */
  private async post(e: Claimed, secret: string): Promise<AttemptOutcome> {
    const body = eventBody(e);
    // Unix seconds of this attempt in real time: what a receiver compares with its own clock.
    const timestamp = String(Math.floor(Date.now() / 1000));
    const t0 = performance.now();
    const elapsed = () => Math.round(performance.now() - t0);
    try {
      const res = await fetch(e.webhook_url!, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'postbook-webhooks/1',
          [this.names.id]: e.event_id,
          [this.names.timestamp]: timestamp,
          [this.names.signature]: signWebhook(secret, timestamp, body),
        },
        body,
      });
      const excerpt = storable(await excerptOf(res, RESPONSE_EXCERPT_CHARS).catch(() => null));
      const ok = res.status >= 200 && res.status < 300;
      return { ok, httpStatus: res.status, error: ok ? null : `HTTP ${res.status}`, excerpt, durationMs: elapsed() };
    } catch (err) {
      const name = err instanceof Error ? err.name : '';
      const error = name === 'TimeoutError' || name === 'AbortError' ? 'timed out' : `connection failed: ${((err as Error).cause as Error | undefined)?.message ?? (err as Error).message}`;
      return { ok: false, httpStatus: null, error: storable(error.slice(0, 200)), excerpt: null, durationMs: elapsed() };
    }
  }

  /** Records the attempt and settles the event, in one transaction. */
  private async settle(e: Claimed, startedAt: Date, o: AttemptOutcome, url: string, giveUp: boolean): Promise<void> {
    const now = this.deps.clock.now();
    const next = o.ok || giveUp ? null : nextAttemptAt(new Date(e.occurred_at), e.attempts, now);
    const state = o.ok ? 'delivered' : next === null ? 'failed' : 'pending';
    await this.deps.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhook_attempts')
        .values({ event_id: e.id, attempt: e.attempts, url, started_at: startedAt, duration_ms: o.durationMs, http_status: o.httpStatus, error: o.error, response_excerpt: o.excerpt })
        .execute();
      await trx
        .updateTable('webhook_events')
        .set({
          state,
          last_error: o.error,
          ...(o.ok ? { delivered_at: now } : {}),
          ...(next ? { next_attempt_at: next } : {}),
        })
        .where('id', '=', e.id)
        .where('state', '=', 'pending')
        .execute();
    });
    const line = { eventId: e.event_id, clientId: e.client_id, type: e.type, attempt: e.attempts, httpStatus: o.httpStatus, durationMs: o.durationMs };
    if (state === 'delivered') this.deps.log.info(line, 'webhook delivered');
    else if (state === 'failed') this.deps.log.warn(Object.assign({}, line, { error: o.error }), 'webhook event failed: no more attempts');
    else this.deps.log.info(Object.assign({}, line, { error: o.error, nextAttemptAt: next!.toISOString() }), 'webhook attempt failed; will retry');
  }
}
