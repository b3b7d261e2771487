// A Map that keeps at most `bound` entries by emptying itself when a new key would pass the bound. For what is
// worked out once and asked for again and again (parsed amounts, zone offsets, formatted dates, verified
// credentials, a sandbox record read): the working set is small, so an occasional refill costs less than
// least-recently-used bookkeeping on every hit, and a flood of distinct keys (a caller sending a new value every
// time) cannot grow the process without end. Where recency matters (the refund contexts, the kept offers), the
// caches keep their own order; where age does, a FifoMap (below) drops the oldest.

export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly bound: number) {
    super();
    if (!Number.isSafeInteger(bound) || bound < 1) throw new RangeError(`a BoundedMap's bound is a whole number ≥ 1, got ${bound}`);
  }

  /** Keeps `value` under `key`; a new key when the map is full empties it first (a key already kept does not). */
  override set(key: K, value: V): this {
    if (this.size >= this.bound && !this.has(key)) this.clear();
    return super.set(key, value);
  }

  /**
   * The value kept under `key`, or `make(key)`'s, kept. `make` should be a function of the key alone (a module
   * function, not a closure made per call on a hot path); when it throws, nothing is kept.
   */
  getOrMake(key: K, make: (key: K) => V): V {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const made = make(key);
    this.set(key, made);
    return made;
  }
}

/**
 * A Map of at most `bound` entries where a new key past the bound drops the oldest kept: for a cache whose entries
 * never change and whose store stays the source of truth (the booking chain's sessions). The keys wait in a ring in
 * the order they came, so the oldest is found at once; a Map's own first key is found by a walk that steps over
 * every entry deleted since the map last rehashed, 8–48 µs a new key at 50,000 entries (2026-12-05). A key deleted,
 * or kept again after a delete, leaves its old slot behind: when the ring comes back to that slot, the key goes if
 * it is kept then (an early drop, never one past the bound).
 */
export class FifoMap<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly ring: Array<K | undefined>;
  private next = 0;

  constructor(readonly bound: number) {
    if (!Number.isSafeInteger(bound) || bound < 1) throw new RangeError(`a FifoMap's bound is a whole number ≥ 1, got ${bound}`);
    this.ring = new Array<K | undefined>(bound).fill(undefined);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Keeps `value` under `key`: a key already kept keeps its place; a new one takes the oldest slot, dropping its key. */
  set(key: K, value: V): this {
    if (!this.entries.has(key)) {
      const oldest = this.ring[this.next];
      if (oldest !== undefined) this.entries.delete(oldest);
      this.ring[this.next] = key;
      this.next = this.next + 1 === this.bound ? 0 : this.next + 1;
    }
    this.entries.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }
}
