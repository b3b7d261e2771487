// Idempotency keys expire (decision 0028): a durable sweep job deletes the rows of src/http/idempotency.ts
// older than IDEMPOTENCY_TTL_HOURS of service time, in bounded batches through the created_at index
// (migration 0014), and queues itself again, like the expiry of unpaid orders (src/booking/expiry.ts). The
// replay itself already treats a key past its TTL as new, so the sweep only keeps the table small; a late or
// skipped sweep changes no answer. The sandbox clock is read at each sweep: moving it expires keys.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';

export const JOB_IDEMPOTENCY_SWEEP = 'idempotency-expiry-sweep';
/** One waiting sweep at a time (a restart, or several worker processes, add no second one). */
export const IDEMPOTENCY_EXPIRY_QUEUES = { [JOB_IDEMPOTENCY_SWEEP]: { policy: 'short' } } as const;

const SWEEP_KEY = 'sweep';
/** Rows deleted by one statement: short transactions, no long lock on a big table. */
export const SWEEP_BATCH = 1000;
/** Batches in one sweep; what is left waits for the next sweep (the job stays well inside its time limit). */
const MAX_BATCHES = 50;

/** The part of the job queue the sweep uses (src/jobs/queue.ts implements it). */
export interface SweepQueue {
  send(name: string, data: object, opts?: { trx?: Transaction<Database>; startAfterSeconds?: number; singletonKey?: string }): Promise<unknown>;
  work(name: string, opts: { batchSize?: number; pollingIntervalSeconds?: number }, handler: (data: unknown) => Promise<void>): Promise<unknown>;
}

export interface IdempotencyExpiryDeps {
  db: Kysely<Database>;
  clock: Clock;
  queue: SweepQueue;
  /** How long a key lives (IDEMPOTENCY_TTL_HOURS), in ms. */
  ttlMs: number;
  /** Seconds between two sweeps. */
  sweepSeconds: number;
  /** Rows per DELETE (default SWEEP_BATCH). */
  batch?: number;
  log: { info(obj: object, msg: string): void };
}

/**
 * The keys of expired rows, oldest first, at most `limit`: what one DELETE removes. Exported for the index
 * test (src/jobs/idempotency-expiry.test.ts: its plan reads the created_at index, not the whole table).
 */
export const expiredKeys = (cutoff: Date, limit: number) => sql`
  select client_id, endpoint, idem_key from idempotency_keys
  where created_at <= ${cutoff}::timestamptz
  order by created_at
  limit ${limit}`;

export class IdempotencyExpiry {
  private readonly batch: number;

  constructor(private readonly deps: IdempotencyExpiryDeps) {
    if (!Number.isFinite(deps.ttlMs) || deps.ttlMs <= 0) throw new RangeError('IdempotencyExpiry: ttlMs must be positive');
    this.batch = deps.batch ?? SWEEP_BATCH;
  }

  /** Registers the worker and queues the first sweep (dropped when one already waits, e.g. after a restart). */
  async startWorkers(): Promise<void> {
    await this.deps.queue.work(JOB_IDEMPOTENCY_SWEEP, { pollingIntervalSeconds: 5 }, async () => {
      await this.sweep();
      await this.scheduleSweep();
    });
    await this.scheduleSweep(0);
  }

  private scheduleSweep(after = this.deps.sweepSeconds): Promise<unknown> {
    return this.deps.queue.send(JOB_IDEMPOTENCY_SWEEP, {}, { singletonKey: SWEEP_KEY, startAfterSeconds: after });
  }

  /** Deletes keys created at or before now − TTL, a batch per statement; answers how many it deleted. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - this.deps.ttlMs);
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      // PostgreSQL has no DELETE … LIMIT: the batch's keys come from the index, the rows go by primary key.
      // created_at is checked again: a request may have taken an expired key over since (it is fresh now).
      const result = await sql`
        delete from idempotency_keys k
        using (${expiredKeys(cutoff, this.batch)}) e
        where k.client_id = e.client_id and k.endpoint = e.endpoint and k.idem_key = e.idem_key
          and k.created_at <= ${cutoff}::timestamptz`.execute(this.deps.db);
      const n = Number(result.numAffectedRows ?? 0n);
      deleted += n;
      if (n < this.batch) break;
    }
    if (deleted > 0) this.deps.log.info({ deleted, cutoff }, 'expired idempotency keys deleted');
    return deleted;
  }
}
