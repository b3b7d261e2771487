// Delivers the outbox (docs/webhooks.md, decision 0022): claims the due events, each the oldest pending event
// of its refund, for a lease, as slots are free (WEBHOOK_CONCURRENCY POSTs in flight, WEBHOOK_PER_CLIENT of them
// to one client); POSTs each outside any transaction, signed, with a time-out; then records the attempt and
// settles the event (delivered, retry later, or failed after 24 h), and claims again.
// A crash between claim and settle leaves the event pending: it is sent again when its lease ends.
import type { Kysely } from 'kysely';
import { storableText } from '../store/text.js';
import type { Response } from 'undici';
import { preparedQuery } from '../store/prepared.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { eventBody, type OutboxEvent } from './payload.js';
import { nextAttemptAt } from './schedule.js';
import type { WebhookKeyring } from './secret.js';
import { signWebhook, webhookHeaderNames } from './sign.js';
import { webhookClient, type Resolver, type WebhookClient } from './egress.js';
import { webhookUrlProblem } from './url.js';

/** Budget of one POST, answer included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** How long a claimed event is left to its deliverer before another may send it again. */
const LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000;
/** POSTs in flight at once in one deliverer (one process). */
export const WEBHOOK_CONCURRENCY = 20;
/** Of those, at most this many to one client's receiver. */
export const WEBHOOK_PER_CLIENT = 4;
/** Characters of a receiver's answer kept with the attempt. */
export const RESPONSE_EXCERPT_CHARS = 200;

export interface DelivererDeps {
  db: Kysely<Database>;
  clock: Clock;
  keyring: WebhookKeyring;
  headerPrefix: string;
  /** Sandbox mode: receivers on this machine allowed; otherwise every POST goes to public addresses only (egress.ts). */
  sandbox: boolean;
  /** The host-name resolver of the POSTs' connections outside sandbox mode (tests; default DNS queries, egress.ts dnsResolve). */
  resolve?: Resolver;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Milliseconds between two looks at the outbox when nothing was due (default 1000). */
  pollMs?: number;
  /** POSTs in flight at once in this process (default WEBHOOK_CONCURRENCY). */
  concurrency?: number;
  /** Of those, at most this many to one client (default WEBHOOK_PER_CLIENT). */
  perClient?: number;
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

/** Text a receiver sent (its answer, a connection error's words) as the store can hold it (src/store/text.ts). */
export const storable = (text: string | null): string | null => (text === null ? null : storableText(text));

/**
 * Reads at most `max` characters of an answer, then lets the rest go. A body cut off (the attempt's time-out, the
 * receiver closing) keeps what came before the cut (a review: the excerpt was dropped, the one clue to a receiver
 * that stalls after its status line).
 */
async function excerptOf(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < max) {
      const chunk = await reader.read().catch(() => null);
      if (chunk === null) {
        text += decoder.decode();
        break;
      }
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, max);
}

// The claim: prepared once (decision 0015), as it runs every second even when nothing is due. $1 now, $2 events
// wanted, $3 the lease's end, $4/$5 the clients with POSTs in flight here and how many more each may have, $6 the
// cap of a client with none in flight, $7 how many due events (oldest first) the per-client cap is applied to. The
// state and due time are checked again where the rows are locked: a row another deliverer claimed meanwhile is
// re-read there (its due time now its lease), not taken twice. The per-subject order check and that re-check
// compare the state with the outer row's, not with 'pending': no partial index of pending events can then answer
// them, whose statistics may say none is pending while a backlog piles up below the analyze threshold (a review:
// every pending event read once per pending event, 21 s a claim of 6,000 — src/webhooks/claim-plan.test.ts).
export const CLAIM_DUE_SQL = `with candidates as (
     select e.id, e.client_id, e.next_attempt_at, e.state, coalesce(b.free, $6::int) as free
     from webhook_events e
       left join unnest($4::text[], $5::int[]) as b(client_id, free) on b.client_id = e.client_id
     where e.state = 'pending' and e.next_attempt_at <= $1::timestamptz
       and coalesce(b.free, $6::int) > 0
       and e.id = (
         select p.id from webhook_events p where p.subject = e.subject and p.type = e.type and p.state = e.state order by p.id limit 1
       )
     order by e.next_attempt_at, e.id
     limit $7
   ), ranked as (
     select c.id, c.next_attempt_at, c.state, c.free, row_number() over (partition by c.client_id order by c.next_attempt_at, c.id) as nth
     from candidates c
   ), due as (
     select e.id from webhook_events e join ranked r on r.id = e.id
     where r.nth <= r.free and e.state = r.state and e.next_attempt_at <= $1::timestamptz
     order by r.next_attempt_at, r.id
     limit $2
     for update of e skip locked
   )
   update webhook_events e set attempts = e.attempts + 1, next_attempt_at = $3::timestamptz
   from due, clients c
   where e.id = due.id and c.client_id = e.client_id
   returning e.id, e.event_id, e.client_id, e.type, e.subject, e.order_no, e.from_status, e.to_status, e.cancel_reason, e.data,
     e.occurred_at, e.attempts, c.webhook_url, c.webhook_secret`;
const claimDueQuery = preparedQuery<Claimed>('webhook_claim_due_per_client', CLAIM_DUE_SQL);
/** Due events the claim looks at, oldest first, to fill its slots client by client. */
const CLAIM_WINDOW = 200;

export class WebhookDeliverer {
  private timer: NodeJS.Timeout | null = null;
  /** The claims under way (one at a time), for stop() to wait on. */
  private filling: Promise<void> | null = null;
  /** A POST ended while a claim was under way: claim again after it. */
  private refill = false;
  private stopped = true;
  private readonly names;
  private readonly concurrency: number;
  private readonly perClient: number;
  /** POSTs (with their settle) in flight in this process, and how many of them each client has. */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perClientInFlight = new Map<string, number>();
  /**
   * The POSTs' client (src/webhooks/egress.ts): connections kept alive per receiver, to permitted addresses only;
   * made by the first POST.
   */
  private client: Promise<WebhookClient> | null = null;

  constructor(private readonly deps: DelivererDeps) {
    this.names = webhookHeaderNames(deps.headerPrefix);
    this.concurrency = deps.concurrency ?? WEBHOOK_CONCURRENCY;
    this.perClient = Math.min(deps.perClient ?? WEBHOOK_PER_CLIENT, this.concurrency);
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops claiming; the POSTs under way finish (each times out within WEBHOOK_TIMEOUT_MS) and are settled. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.filling;
    await Promise.all([...this.inFlight]);
    const client = this.client;
    this.client = null;
    await (await client?.catch(() => null))?.agent.close();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fill();
    }, ms);
    this.timer.unref?.();
  }

  /**
   * Claims due events while slots are free and claims find work, and starts each one's POST at once; every POST
   * that ends frees its slot and claims again. No round waits for its slowest receiver: one that does not answer
   * holds at most `perClient` slots for its time-out while the others' events keep going (found by a review: a
   * round of 20 waited for all its POSTs, so one silent receiver slowed every client's deliveries to ~2 a second).
   */
  private fill(): void {
    if (this.stopped) return;
    // a poll or a refill pending is this claim now
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.filling) {
      this.refill = true;
      return;
    }
    this.refill = false;
    // every slot busy: the next POST to end claims again
    if (this.inFlight.size >= this.concurrency) return;
    this.filling = (async () => {
      // the run goes on after `this.filling` holds it, whatever the claim does (found by a review: a run that
      // awaited nothing finished before it was assigned, left `filling` set for good, and the deliverer never
      // claimed again)
      await Promise.resolve();
      let idle = false;
      try {
        while (!this.stopped && this.inFlight.size < this.concurrency) {
          const n = this.launch(await this.claim(this.concurrency - this.inFlight.size));
          if (n === 0) {
            idle = true;
            break;
          }
        }
      } catch (err) {
        idle = true;
        this.deps.log.error({ err: err instanceof Error ? err.message : String(err) }, 'webhook delivery claim failed');
      }
      this.filling = null;
      // nothing due (or the claim failed): look again after the idle poll, or as soon as a POST ends
      if (this.refill) this.schedule(0);
      else if (idle) this.schedule(this.deps.pollMs ?? 1000);
    })();
  }

  private async claim(wanted: number): Promise<Claimed[]> {
    const now = this.deps.clock.now();
    const lease = new Date(now.getTime() + LEASE_MS);
    const busy = [...this.perClientInFlight];
    const { rows } = await this.deps.db.executeQuery(
      claimDueQuery([now, wanted, lease, busy.map(([c]) => c), busy.map(([, n]) => this.perClient - n), this.perClient, CLAIM_WINDOW]),
    );
    return rows;
  }

  /** Starts the POST of each claimed event in its slot; returns how many. */
  private launch(rows: readonly Claimed[]): number {
    for (const e of rows) {
      this.perClientInFlight.set(e.client_id, (this.perClientInFlight.get(e.client_id) ?? 0) + 1);
      const done: Promise<void> = this.deliverOne(e)
        .catch((err: unknown) => {
          // the settle failed (the store): the event stays pending and is sent again when its lease ends
          this.deps.log.error({ err: err instanceof Error ? err.message : String(err), eventId: e.event_id }, 'webhook attempt not recorded');
        })
        .finally(() => {
          this.inFlight.delete(done);
          const left = (this.perClientInFlight.get(e.client_id) ?? 1) - 1;
          if (left > 0) this.perClientInFlight.set(e.client_id, left);
          else this.perClientInFlight.delete(e.client_id);
          this.fill();
        });
      this.inFlight.add(done);
    }
    return rows.length;
  }

  /**
   * One round for tests and tools, on a deliverer whose loop is not running (beside it, the two would claim on
   * the same counts): claims what the free slots allow (the per-client cap included) and waits for those POSTs
   * and their settles. Returns how many were attempted.
   */
  async deliverDue(): Promise<number> {
    if (!this.stopped) throw new Error('deliverDue() is for a deliverer whose loop is not running');
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const before = new Set(this.inFlight);
    const n = this.launch(await this.claim(free));
    await Promise.all([...this.inFlight].filter((p) => !before.has(p)));
    return n;
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
    // the rules of registration again: a URL stored before one of them was made stricter is not sent to
    const problem = webhookUrlProblem(e.webhook_url, { sandbox: this.deps.sandbox });
    // A body that cannot be built (an amount in a currency the money module does not know, from an airline's
    // answer) never will be: the event is given up at its first attempt, recorded with why, and the events after
    // it are sent (found by a review: it threw before its settle, was claimed again every lease for good, and held
    // back every later event of its refund or void).
    let body: string | null = null;
    let unbuilt: string | null = null;
    try {
      body = eventBody(e);
    } catch (err) {
      unbuilt = err instanceof Error ? err.message : String(err);
    }
    if (problem !== null) outcome = { ok: false, httpStatus: null, error: `webhook URL not allowed: ${problem}`, excerpt: null, durationMs: 0 };
    else if (secret === null) outcome = { ok: false, httpStatus: null, error: 'webhook secret cannot be read with the configured WEBHOOK_SECRET_KEY', excerpt: null, durationMs: 0 };
    else if (body === null) {
      this.deps.log.error({ eventId: e.event_id, err: unbuilt }, 'webhook event body could not be built; the event is given up');
      await this.settle(e, startedAt, { ok: false, httpStatus: null, error: storable(`the event's body could not be built: ${unbuilt}`.slice(0, 200)), excerpt: null, durationMs: 0 }, e.webhook_url, true);
      return;
    } else outcome = await this.post(e, secret, body);
    await this.settle(e, startedAt, outcome, e.webhook_url, false);
  }

  /** The signed POST of `body`; never throws. */
  private async post(e: Claimed, secret: string, body: string): Promise<AttemptOutcome> {
    // Unix seconds of this attempt in real time: what a receiver compares with its own clock.
    const timestamp = String(Math.floor(Date.now() / 1000));
    let t0 = performance.now();
    const elapsed = () => Math.round(performance.now() - t0);
    try {
      this.client ??= webhookClient({ sandbox: this.deps.sandbox, ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}) });
      const { fetch, agent } = await this.client;
      t0 = performance.now();
      const res = await fetch(e.webhook_url!, {
        method: 'POST',
        redirect: 'manual',
        dispatcher: agent,
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
      let q = trx
        .updateTable('webhook_events')
        .set({
          state,
          last_error: o.error,
          ...(o.ok ? { delivered_at: now } : {}),
          ...(next ? { next_attempt_at: next } : {}),
        })
        .where('id', '=', e.id)
        .where('state', '=', 'pending');
      // A failure settles the event only while this attempt is still its latest: one that outlived its lease (its
      // process stalled) leaves the event to the attempt that claimed it since (a review: its failure made the event
      // due again beside that attempt in flight). A delivery settles it whatever came after: it was delivered.
      if (!o.ok) q = q.where('attempts', '=', e.attempts);
      await q.execute();
    });
    const line = { eventId: e.event_id, clientId: e.client_id, type: e.type, attempt: e.attempts, httpStatus: o.httpStatus, durationMs: o.durationMs };
    if (state === 'delivered') this.deps.log.info(line, 'webhook delivered');
    else if (state === 'failed') this.deps.log.warn(Object.assign({}, line, { error: o.error }), 'webhook event failed: no more attempts');
    else this.deps.log.info(Object.assign({}, line, { error: o.error, nextAttemptAt: next!.toISOString() }), 'webhook attempt failed; will retry');
  }
}
