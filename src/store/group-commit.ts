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

/**
 * One writer per kind of write and store. When no write runs, a write starts after the current turn of the
 * event loop (items handed in during that turn share it); items handed in while a write runs go into the
 * next, at most `maxBatch` per statement. When a statement of several fails, its items are written one by
 * one, so an item's failure fails its own caller only.
 */
export class GroupCommitter<T, R = void> {
  private queue: Array<Pending<T, R>> = [];
  private writing = false;

  constructor(
    private readonly writeItems: GroupWrite<T, R>,
    readonly maxBatch = 32,
  ) {}

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
      while (this.queue.length > 0) await this.writeBatch(this.queue.splice(0, this.maxBatch));
    } finally {
      this.writing = false;
    }
  }

  private async writeBatch(batch: Array<Pending<T, R>>): Promise<void> {
    if (batch.length > 1) {
      let written = false;
      let results: readonly R[] | void = undefined;
      try {
        results = await this.writeItems(batch.map((p) => p.item));
        written = true;
      } catch {
        // one by one below: each item gets its own outcome
      }
      if (written) {
        batch.forEach((p, i) => p.resolve(results?.[i] as R));
        return;
      }
    }
    for (const p of batch) {
      try {
        const results = await this.writeItems([p.item]);
        p.resolve(results?.[0] as R);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
