// Group commit (decisions 0016 and 0018): writes handed in while an earlier write of the same kind runs are
// written together by the next statement, so concurrent requests share one statement and one commit instead
// of queueing for a commit each. A caller's promise settles only once its own write committed or failed.

/** How one kind of write is done: several items in one statement, or one item alone. */
export interface GroupWrites<T> {
  /** Writes every item in one statement; throws (writing none) when any of them cannot be written. */
  many(items: readonly T[]): Promise<void>;
  /** Writes one item; a failure here is this item's own. */
  one(item: T): Promise<void>;
}

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
    private readonly writes: GroupWrites<T>,
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
        await this.writes.many(batch.map((p) => p.item));
        for (const p of batch) p.resolve();
        return;
      } catch {
        // one by one below: each item gets its own outcome
      }
    }
    for (const p of batch) {
      try {
        await this.writes.one(p.item);
        p.resolve();
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
