// A durable sweep job that deletes rows past their retention (decision 0028; the webhook outbox: decision 0022):
// every `sweepSeconds` it deletes the rows at or before now − `ttlMs` of service time, in bounded batches (short
// transactions, no long lock on a big table), and queues itself again. One waiting sweep at a time per job name
// (a singleton key): a restart, or several worker processes, add no second one. The sandbox clock is read at
// each sweep: moving it expires rows.
import type { Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';

/** Rows deleted by one statement. */
export const SWEEP_BATCH = 1000;
/** Batches in one sweep; what is left waits for the next sweep (the job stays well inside its time limit). */
const MAX_BATCHES = 50;
const SWEEP_KEY = 'sweep';

/** The part of the job queue a sweep uses (src/jobs/queue.ts implements it). */
export interface SweepQueue {
  send(name: string, data: object, opts?: { trx?: Transaction<Database>; startAfterSeconds?: number; singletonKey?: string }): Promise<unknown>;
  work(name: string, opts: { batchSize?: number; pollingIntervalSeconds?: number }, handler: (data: unknown) => Promise<void>): Promise<unknown>;
}

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
}

export class RetentionSweep {
  private readonly batch: number;

  constructor(private readonly sweepDeps: RetentionSweepDeps) {
    if (!Number.isFinite(sweepDeps.ttlMs) || sweepDeps.ttlMs <= 0) throw new RangeError(`${sweepDeps.job}: the retention must be positive`);
    this.batch = sweepDeps.batch ?? SWEEP_BATCH;
  }

  /** Registers the worker and queues the first sweep (dropped when one already waits, e.g. after a restart). */
  async startWorkers(): Promise<void> {
    await this.sweepDeps.queue.work(this.sweepDeps.job, { pollingIntervalSeconds: 5 }, async () => {
      await this.sweep();
      await this.scheduleSweep();
    });
    await this.scheduleSweep(0);
  }

  private scheduleSweep(after = this.sweepDeps.sweepSeconds): Promise<unknown> {
    return this.sweepDeps.queue.send(this.sweepDeps.job, {}, { singletonKey: SWEEP_KEY, startAfterSeconds: after });
  }

  /** Deletes the rows kept until now − the retention or earlier, a batch per statement; answers how many. */
  async sweep(): Promise<number> {
    const cutoff = new Date(this.sweepDeps.clock.now().getTime() - this.sweepDeps.ttlMs);
    let deleted = 0;
    for (let i = 0; i < MAX_BATCHES; i++) {
      const n = await this.sweepDeps.deleteBatch(cutoff, this.batch);
      deleted += n;
      if (n < this.batch) break;
    }
    if (deleted > 0) this.sweepDeps.log.info({ deleted, cutoff }, this.sweepDeps.deletedMessage);
    return deleted;
  }
}
