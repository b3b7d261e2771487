// Chain sessions (search routings, verify sessions, offers: src/booking/sessions.ts) are kept SESSION_RETENTION_MS past
// their expiry — nothing answers an expired one (214/301), an operator may still look at it a while — and then deleted
// by a sweep job in batches through their expiry's index (migration 0037). The table gained a row per search routing
// and was never pruned (a review). An order keeps its session's id only as a reference (booking_orders.session_id).
import { sql, type Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { RetentionSweep, type SweepQueue } from '../jobs/retention-sweep.js';

export const JOB_SESSION_RETENTION = 'booking-session-retention-sweep';
export const SESSION_RETENTION_QUEUES = { [JOB_SESSION_RETENTION]: { policy: 'short' } } as const;
/** How long a chain session is kept past its expiry. */
export const SESSION_RETENTION_MS = 86_400_000;

/** The sessions expired at or before `cutoff`, oldest first, at most `limit` (exported for the index test). */
export const sessionsExpiredBefore = (cutoff: Date, limit: number) => sql`
  select id from booking_sessions
  where expires_at <= ${cutoff}::timestamptz
  order by expires_at
  limit ${limit}`;

export function sessionRetention(deps: { db: Kysely<Database>; clock: Clock; queue: SweepQueue; sweepSeconds: number; batch?: number; log: { info(obj: object, msg: string): void } }): RetentionSweep {
  return new RetentionSweep({
    job: JOB_SESSION_RETENTION,
    clock: deps.clock,
    queue: deps.queue,
    ttlMs: SESSION_RETENTION_MS,
    sweepSeconds: deps.sweepSeconds,
    ...(deps.batch !== undefined ? { batch: deps.batch } : {}),
    deletedMessage: 'chain sessions past their retention deleted',
    log: deps.log,
    deleteBatch: async (cutoff, limit) => {
      const result = await sql`
        delete from booking_sessions s
        using (${sessionsExpiredBefore(cutoff, limit)}) e
        where s.id = e.id`.execute(deps.db);
      return Number(result.numAffectedRows ?? 0n);
    },
  });
}
