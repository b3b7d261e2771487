// Group commit (decisions 0016 and 0018): writes handed in while an earlier write of the same kind runs are
// written together by the next statement, so concurrent requests share one statement and one commit instead
// of queueing for a commit each. A caller's promise settles only once its own write committed or failed.

/**
 * How one kind of write is done: the given items (one or several) in one statement; it throws, writing none,
 * when any of them cannot be written.
 */
export type GroupWrite<T> = (items: readonly T[]) => Promise<void>;

interface Pending<T> {
  item: T;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * One writer per kind of write and store. When no write runs, a write starts after the current turn of the
 * event loop (items handed in during that turn share it); items handed in while a write runs go into the
 * next, at most `maxBatch` per statement. When a statement of several fails, its items are written one by
 * one, so an item's failure fails its own caller only.
 */
export class GroupCommitter<T> {
  private queue: Array<Pending<T>> = [];
  private writing = false;

  constructor(
    private readonly writeItems: GroupWrite<T>,
    readonly maxBatch = 32,
  ) {}

  write(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
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

  private async writeBatch(batch: Array<Pending<T>>): Promise<void> {
    if (batch.length > 1) {
      try {
        await this.writeItems(batch.map((p) => p.item));
        for (const p of batch) p.resolve();
        return;
      } catch {
        // one by one below: each item gets its own outcome
      }
    }
    for (const p of batch) {
      try {
        await this.writeItems([p.item]);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
