// A Map that keeps at most `bound` entries by emptying itself when a new key would pass the bound. For what is
// worked out once and asked for again and again (parsed amounts, zone offsets, formatted dates, verified
// credentials, a sandbox record read): the working set is small, so an occasional refill costs less than
// least-recently-used bookkeeping on every hit, and a flood of distinct keys (a caller sending a new value every
// time) cannot grow the process without end. Where recency matters (the refund contexts, the kept offers), the
// caches keep their own order.

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
