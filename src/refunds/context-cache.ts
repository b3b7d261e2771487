// Refund contexts kept in the API process (decision 0030). A quote of an order quoted a moment ago reuses the
// context it was priced from instead of reading it again; the store stays the source of truth: the offer is
// stored only if the order's `ctx_version` is still the kept copy's (src/refunds/offers.ts), which triggers
// move on every write to anything the context holds (store migration 0016). A kept copy that is stale is found
// out by that insert, dropped and read again — in this process or after a write by another one.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { KeysByOrder } from './by-order.js';
import type { OrderContext } from './context.js';
import type { OrderRef } from './prepare.js';
import { deepFreeze } from '../deep-freeze.js';

/** Contexts kept per store; the least recently used goes first. ~5 KB each for a family of four. */
export const CONTEXT_CACHE_ENTRIES = 2_000;

export class OrderContextCache {
  private readonly entries = new Map<string, OrderContext>();
  /** The keys each order is kept under (one per client and way of naming it), so that a write drops them all. */
  private readonly byOrder = new KeysByOrder();
  hits = 0;
  misses = 0;
  /**
   * Of the quotes priced from contexts of this store (src/refunds/priced-once.ts, decision 0067, which keeps each
   * pricing with its context): answered again from a kept pricing, and priced (refusals included).
   */
  pricingsKept = 0;
  pricingsMade = 0;

  constructor(readonly capacity = CONTEXT_CACHE_ENTRIES) {}

  /** The caller's order as the request names it; null when it names none (810 is the caller's to answer). */
  static key(clientId: string, ref: OrderRef): string | null {
    if (ref.orderNo) return `${clientId}\u0000o\u0000${ref.orderNo}`;
    if (ref.airlinePNR && ref.carrier) return `${clientId}\u0000p\u0000${ref.airlinePNR.toUpperCase()}\u0000${ref.carrier.toUpperCase()}`;
    return null;
  }

  get(key: string): OrderContext | undefined {
    const ctx = this.entries.get(key);
    if (ctx === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Map keeps insertion order: re-inserting makes it the most recently used.
    this.entries.delete(key);
    this.entries.set(key, ctx);
    return ctx;
  }

  /** Keeps a context just read from the store; it is frozen, so no request can change what another reads. */
  set(key: string, ctx: OrderContext): void {
    this.delete(key);
    this.entries.set(key, deepFreeze(ctx));
    this.byOrder.add(ctx.order.order_no, key);
    // The least recently used is the Map's first key, found by a walk over the keys deleted since the Map last
    // rehashed (every hit deletes one). The same Map operations in a loop at this capacity (2026-12-05): 81–87 ns
    // a request over 10³–10⁴ distinct orders, hits and misses mixed; 1.2 µs over 10⁶, nearly all misses, each of
    // which has read its context from the store. Not worth an ordering of its own.
    if (this.entries.size > this.capacity) this.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    const ctx = this.entries.get(key);
    if (ctx === undefined) return;
    this.entries.delete(key);
    this.byOrder.remove(ctx.order.order_no, key);
  }

  /**
   * A refund or void of the order written by this process: its version moved, so every kept copy of its context
   * is stale (a quote priced from one would be found out by its offer's insert, priced and written again). Dropped,
   * so the next quote reads it at once.
   */
  forgetOrder(orderNo: string): void {
    for (const key of this.byOrder.take(orderNo)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many contexts of the order are kept (one per client and way of naming it). */
  keptOf(orderNo: string): number {
    return this.byOrder.count(orderNo);
  }
}

const caches = new WeakMap<Kysely<Database>, OrderContextCache>();

/** The one cache of a store in this process. */
export function contextCacheFor(db: Kysely<Database>): OrderContextCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new OrderContextCache()));
  return cache;
}
