// The webhook outbox is kept for WEBHOOK_RETENTION_DAYS (decision 0022): every event is one row, delivered events
// stay for operators to see (the console's deliveries of a refund, `postbook webhooks list`), and their attempts
// beside them. A settled event (delivered, or failed after its 24 h of retries) older than the retention is
// deleted with its attempts (on delete cascade) by a sweep job, in batches through the settled events' index
// (migration 0034). A pending event is never deleted: an operator's redelivery makes an old event pending again,
// and the delete checks the state again on the row it removes.
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { RetentionSweep, type SweepQueue } from '../jobs/retention-sweep.js';

export const JOB_WEBHOOK_RETENTION = 'webhook-retention-sweep';
export const WEBHOOK_RETENTION_QUEUES = { [JOB_WEBHOOK_RETENTION]: { policy: 'short' } } as const;

/** The settled events at or before `cutoff`, oldest first, at most `limit` (exported for the index test). */
export const settledEventsBefore = (cutoff: Date, limit: number) => sql`
  select id from webhook_events
  where occurred_at <= ${cutoff}::timestamptz and state <> 'pending'
  order by occurred_at
  limit ${limit}`;

export function webhookRetention(deps: { db: Kysely<Database>; clock: Clock; queue: SweepQueue; days: number; sweepSeconds: number; batch?: number; log: { info(obj: object, msg: string): void } }): RetentionSweep {
  return new RetentionSweep({
    job: JOB_WEBHOOK_RETENTION,
    clock: deps.clock,
    queue: deps.queue,
    ttlMs: deps.days * 86_400_000,
    sweepSeconds: deps.sweepSeconds,
    ...(deps.batch !== undefined ? { batch: deps.batch } : {}),
    deletedMessage: 'webhook events past their retention deleted',
    log: deps.log,
    deleteBatch: async (cutoff, limit) => {
      const result = await sql`
        delete from webhook_events w
        using (${settledEventsBefore(cutoff, limit)}) e
        where w.id = e.id and w.state <> 'pending'`.execute(deps.db);
      return Number(result.numAffectedRows ?? 0n);
    },
  });
}
