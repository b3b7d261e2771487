// A job that queues its own successor: the expiry of unpaid orders, the expiry of idempotency keys, the webhook
// outbox's retention (decisions 0023, 0028, 0022). Its queue's policy is 'short' and every send carries one
// singleton key, so one waits at a time however many processes send. The successor is queued whatever the run's
// outcome, and a backstop re-sends it every minute: a review saw the chain end for good once every attempt of one
// run failed (the store down for a few minutes), the rows it deletes then growing without bound until a restart.
// The backstop sends only when this process's own sends failed, or it has sent nothing for longer than the
// interval and a minute: a send of a live chain could take the one waiting place between the queue fetching a run
// and its handler starting, before that run's sooner successor (a sweep's catch-up then waited its interval: a
// CI run on PostgreSQL under load). Several processes on PostgreSQL each have a backstop: one whose process never
// runs the job may still take such a place (a catch-up then waits its interval); the chain itself holds.
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

/** The part of the job queue a recurring job uses (src/jobs/queue.ts implements it). */
export interface RecurringQueue {
  send(name: string, data: object, opts?: { trx?: Transaction<Database>; startAfterSeconds?: number; singletonKey?: string }): Promise<unknown>;
  work(name: string, opts: { batchSize?: number; pollingIntervalSeconds?: number }, handler: (data: unknown) => Promise<void>): Promise<unknown>;
}

const SINGLETON_KEY = 'sweep';
/** How often the chain is checked: a send while one waits is dropped (the singleton key). */
const BACKSTOP_MS = 60_000;

export class RecurringJob {
  private backstop: NodeJS.Timeout | undefined;
  /** Runs of this job in this process: the backstop waits for their own send (a review saw its send, a whole
   * interval on, take the one waiting place before a run's sooner one, a sweep's catch-up then an hour late). */
  private running = 0;
  /** When this process's last send succeeded (performance.now()), and whether its latest send failed. */
  private sentAt = Number.NEGATIVE_INFINITY;
  private sendFailed = false;

  /**
   * `run` answers the seconds until the next run when it wants it sooner than `everySeconds` (a sweep that stopped
   * at its batch limit with rows left), or nothing.
   */
  constructor(
    private readonly opts: {
      queue: RecurringQueue;
      job: string;
      everySeconds: number;
      pollingIntervalSeconds: number;
      run: () => Promise<number | void>;
      /** Between two backstop sends (default a minute; a test's shorter). */
      backstopMs?: number;
    },
  ) {}

  /** Registers the worker and queues the first run (dropped when one already waits, e.g. after a restart). */
  async start(): Promise<void> {
    await this.opts.queue.work(this.opts.job, { pollingIntervalSeconds: this.opts.pollingIntervalSeconds }, async () => {
      let next = this.opts.everySeconds;
      this.running++;
      try {
        next = (await this.opts.run()) ?? next;
      } finally {
        // Also when the run failed (its attempt retried by the queue, or failed for good): the chain goes on.
        try {
          await this.schedule(next);
        } finally {
          this.running--;
        }
      }
    });
    await this.schedule(0);
    const backstopMs = this.opts.backstopMs ?? BACKSTOP_MS;
    this.backstop ??= setInterval(() => {
      if (this.running > 0) return;
      const quiet = performance.now() - this.sentAt > this.opts.everySeconds * 1000 + backstopMs;
      if (this.sendFailed || quiet) void this.schedule(this.opts.everySeconds).catch(() => undefined);
    }, backstopMs);
    this.backstop.unref();
  }

  /** No more backstop sends from this process (the queue stops its workers). */
  stop(): void {
    clearInterval(this.backstop);
    this.backstop = undefined;
  }

  private async schedule(afterSeconds: number): Promise<void> {
    try {
      await this.opts.queue.send(this.opts.job, {}, { singletonKey: SINGLETON_KEY, startAfterSeconds: afterSeconds });
      this.sentAt = performance.now();
      this.sendFailed = false;
    } catch (err) {
      this.sendFailed = true;
      throw err;
    }
  }
}
