// Idempotency keys expire (decision 0028): a durable sweep job deletes the rows of src/http/idempotency.ts
// older than IDEMPOTENCY_TTL_HOURS of service time, in bounded batches through the created_at index
// (migration 0014), and queues itself again, like the expiry of unpaid orders (src/booking/expiry.ts). The
// replay itself already treats a key past its TTL as new, so the sweep only keeps the table small; a late or
// skipped sweep changes no answer. The sandbox clock is read at each sweep: moving it expires keys.
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { RetentionSweep, type SweepQueue } from './retention-sweep.js';

export const JOB_IDEMPOTENCY_SWEEP = 'idempotency-expiry-sweep';
/** One waiting sweep at a time (a restart, or several worker processes, add no second one). */
export const IDEMPOTENCY_EXPIRY_QUEUES = { [JOB_IDEMPOTENCY_SWEEP]: { policy: 'short' } } as const;
export { SWEEP_BATCH, type SweepQueue } from './retention-sweep.js';

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

export class IdempotencyExpiry extends RetentionSweep {
  constructor(deps: IdempotencyExpiryDeps) {
    super({
      job: JOB_IDEMPOTENCY_SWEEP,
      clock: deps.clock,
      queue: deps.queue,
      ttlMs: deps.ttlMs,
      sweepSeconds: deps.sweepSeconds,
      ...(deps.batch !== undefined ? { batch: deps.batch } : {}),
      deletedMessage: 'expired idempotency keys deleted',
      log: deps.log,
      // PostgreSQL has no DELETE … LIMIT: the batch's keys come from the index, the rows go by primary key.
      // created_at is checked again: a request may have taken an expired key over since (it is fresh now).
      deleteBatch: async (cutoff, limit) => {
        const result = await sql`
          delete from idempotency_keys k
          using (${expiredKeys(cutoff, limit)}) e
          where k.client_id = e.client_id and k.endpoint = e.endpoint and k.idem_key = e.idem_key
            and k.created_at <= ${cutoff}::timestamptz`.execute(deps.db);
        return Number(result.numAffectedRows ?? 0n);
      },
    });
  }
}
