// Group commit (decisions 0016 and 0018): writes handed in while an earlier write of the same kind runs are
// written together by the next statement, so concurrent requests share one statement and one commit instead
// of queueing for a commit each. A caller's promise settles only once its own write committed or failed.
// The same batching serves reads that concurrent requests each make (decision 0031: the refund context), so
// the "write" below may be a read that answers one result per item.

/**
 * How one kind of write is done: the given items (one or several) in one statement; it throws, writing none,
 * when any of them cannot be written. It may answer one result per item, in the items' order (say, whether a
 * conditional insert wrote it); each caller's promise resolves with its own.
 */
export type GroupWrite<T, R = void> = (items: readonly T[]) => Promise<readonly R[] | void>;

interface Pending<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

export interface GroupOptions {
  /** Items per statement at most (default 32). */
  maxBatch?: number;
  /**
   * After a failed statement of several items: `each` (default) writes them again one by one, so that an item's
   * failure fails its own caller only; `all` fails every caller of the statement with its error — for a read
   * whose failure cannot be one item's (the store unreachable), which one-by-one reads would only repeat.
   */
  afterFailure?: 'each' | 'all';
}

/**
 * One writer per kind of write and store. When no write runs, a write starts after the current turn of the
 * event loop (items handed in during that turn share it); items handed in while a write runs go into the
 * next, at most `maxBatch` per statement; that next statement is sent before the callers of the one that
 * just ended resume, so the store works on it while this process answers them. When a statement of several
 * fails, its items are written one by one (or all fail, `afterFailure: 'all'`).
 */
export class GroupCommitter<T, R = void> {
  private queue: Array<Pending<T, R>> = [];
  private writing = false;
  readonly maxBatch: number;
  private readonly afterFailure: 'each' | 'all';

  constructor(
    private readonly writeItems: GroupWrite<T, R>,
    opts: GroupOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 32;
    this.afterFailure = opts.afterFailure ?? 'each';
  }

  write(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.writing) {
        this.writing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      let batch: Array<Pending<T, R>> | null = this.queue.splice(0, this.maxBatch);
      let attempt = this.attempt(batch);
      while (batch) {
        const outcome = await attempt;
        // A batch of several that failed: each item alone, so that an item's failure fails its own caller only.
        if (!outcome.ok) await this.oneByOne(batch, outcome.err);
        // The next statement goes out before this batch's callers resume: the store works on it while this
        // process answers them, instead of each waiting for the other (BENCHMARKS.md, 2026-11-26 late night).
        const next = this.queue.length > 0 ? this.queue.splice(0, this.maxBatch) : null;
        if (next) attempt = this.attempt(next);
        if (outcome.ok) batch.forEach((p, i) => p.resolve(outcome.results?.[i] as R));
        batch = next;
      }
    } finally {
      this.writing = false;
    }
  }

  /** The batch's statement; settles with its outcome, never rejects. */
  private async attempt(batch: ReadonlyArray<Pending<T, R>>): Promise<Outcome<R>> {
    try {
      return { ok: true, results: await this.writeItems(batch.map((p) => p.item)) };
    } catch (err) {
      return { ok: false, err };
    }
  }

  /** After a failed statement: a lone item's caller gets its error; several are written again one by one (or all fail). */
  private async oneByOne(batch: ReadonlyArray<Pending<T, R>>, err: unknown): Promise<void> {
    if (batch.length === 1 || this.afterFailure === 'all') {
      for (const p of batch) p.reject(err);
      return;
    }
    for (const p of batch) {
      const outcome = await this.attempt([p]);
      if (outcome.ok) p.resolve(outcome.results?.[0] as R);
      else p.reject(outcome.err);
    }
  }
}

type Outcome<R> = { ok: true; results: readonly R[] | void } | { ok: false; err: unknown };
