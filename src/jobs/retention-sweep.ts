// A durable sweep job that deletes rows past their retention (decision 0028; the webhook outbox: decision 0022):
// every `sweepSeconds` it deletes the rows at or before now − `ttlMs` of service time, in bounded batches (short
// transactions, no long lock on a big table), and queues itself again (./recurring.ts: one waiting sweep at a
// time, a restart or several worker processes add no second one, and the chain survives failed runs). A sweep
// that stops at its batch limit with rows left is followed a second later, not `sweepSeconds` later: its
// deletions keep up with any rate of new rows. The sandbox clock is read at each sweep: moving it expires rows.
import type { Clock } from '../clock.js';
import { RecurringJob, type RecurringQueue } from './recurring.js';

/** Rows deleted by one statement. */
export const SWEEP_BATCH = 1000;
/** Batches in one sweep; what is left waits for the next sweep (the job stays well inside its time limit). */
const MAX_BATCHES = 50;
/** Seconds before the next sweep when this one stopped at MAX_BATCHES with rows left. */
const CATCH_UP_SECONDS = 1;

/** The part of the job queue a sweep uses (src/jobs/queue.ts implements it). */
export type SweepQueue = RecurringQueue;

export interface RetentionSweepDeps {
  /** The sweep's queue (its policy 'short', so that one sweep waits at a time). */
  job: string;
  clock: Clock;
  queue: SweepQueue;
  /** How long a row is kept, in ms. */
  ttlMs: number;
  /** Seconds between two sweeps. */
  sweepSeconds: number;
  /** Rows per statement (default SWEEP_BATCH). */
  batch?: number;
  /** Deletes at most `limit` of the rows kept until `cutoff` or earlier, oldest first; answers how many it deleted. */
  deleteBatch(cutoff: Date, limit: number): Promise<number>;
  /** The log line of a sweep that deleted something ('expired idempotency keys deleted'). */
  deletedMessage: string;
  log: { info(obj: object, msg: string): void };
  /** Between two backstop sends of the chain (./recurring.ts; a test's shorter). */
  backstopMs?: number;
}

export class RetentionSweep {
  private readonly batch: number;
  private readonly recurring: RecurringJob;
  /** Whether the last sweep stopped at MAX_BATCHES, rows perhaps left. */
  private stoppedAtLimit = false;

  constructor(private readonly sweepDeps: RetentionSweepDeps) {
    if (!Number.isFinite(sweepDeps.ttlMs) || sweepDeps.ttlMs <= 0) throw new RangeError(`${sweepDeps.job}: the retention must be positive`);
    this.batch = sweepDeps.batch ?? SWEEP_BATCH;
    this.recurring = new RecurringJob({
      queue: sweepDeps.queue,
      job: sweepDeps.job,
      everySeconds: sweepDeps.sweepSeconds,
      pollingIntervalSeconds: 5,
      ...(sweepDeps.backstopMs !== undefined ? { backstopMs: sweepDeps.backstopMs } : {}),
      run: async () => {
        await this.sweep();
        return this.stoppedAtLimit ? CATCH_UP_SECONDS : undefined;
      },
    });
  }

  /** Registers the worker and queues the first sweep (dropped when one already waits, e.g. after a restart). */
  startWorkers(): Promise<void> {
    return this.recurring.start();
  }

  /** No more sends from this process (its queue stops the worker). */
  stopWorkers(): void {
    this.recurring.stop();
  }

  /** Deletes the rows kept until now − the retention or earlier, a batch per statement; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.sweepDeps.clock.now().getTime() - this.sweepDeps.ttlMs);
    let deleted = 0;
    this.stoppedAtLimit = false;
    for (let i = 0; ; i++) {
      const n = await this.sweepDeps.deleteBatch(cutoff, this.batch);
      deleted += n;
      if (n < this.batch) break;
      if (i === MAX_BATCHES - 1) {
        this.stoppedAtLimit = true;
        break;
      }
    }
    if (deleted > 0) this.sweepDeps.log.info({ deleted, cutoff }, this.sweepDeps.deletedMessage);
    return deleted;
  }
}
