// Offers kept in the API process that quoted them (decision 0038). refund.do by refundOfferId submits what a
// quote of this process stored a moment ago without reading the offer and the order again: it checks the
// kept offer against the context the quote was priced from, and its one statement writes the refund only if
// the offer is still usable (not used, not superseded, unexpired; held by that statement) and the order's
// `ctx_version` is still that context's — anything else, and every offer this process did not quote, takes
// the reading path (src/refunds/submit.ts). The store stays the source of truth; a kept offer is never an answer.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { KeysByOrder } from './by-order.js';
import { contextCacheFor } from './context-cache.js';
import type { OrderContext } from './context.js';
import type { PricedQuote } from './pricing.js';
import type { RefundRequestItem } from './wire.js';

/** Offers kept per store; the least recently quoted goes first. Each holds its quote and shares its context. */
export const KEPT_OFFER_ENTRIES = 2_000;

export interface KeptOffer {
  clientId: string;
  /** The refund request list as quoted (what a submission checks again). */
  items: RefundRequestItem[];
  /** The quote as stored in the offer (a submission writes it, as the reading path writes the stored one). */
  priced: PricedQuote;
  expiresAt: Date;
  /** The context the quote was priced from (frozen: decision 0030); its `order.ctx_version` is checked by the write. */
  ctx: OrderContext;
}

export class KeptOffers {
  private readonly entries = new Map<string, KeptOffer>();
  /**
   * Every kept offer once, in the order it was kept (and so expires: one TTL), from `head` on; a slot whose offer is
   * no longer kept (dropped, or kept again under a new slot) is passed over. The map alone cannot say which offer is
   * oldest cheaply: a walk from its start steps over every slot deleted since it last rehashed, ~1.6 µs a keep at
   * capacity when each keep drops the oldest (2026-12-05), the same loop of keeps 0.34 µs with this queue.
   */
  private readonly queue: Array<readonly [string, KeptOffer]> = [];
  private head = 0;
  /** The kept offers of each order, so that a refund or void written of an order drops them all. */
  private readonly byOrder = new KeysByOrder();
  /** Offers a submission of this process is writing: a second submission of one takes the reading path (814/813). */
  private readonly submitting = new Set<string>();

  constructor(readonly capacity = KEPT_OFFER_ENTRIES) {}

  /** Keeps a stored offer; offers expired by `now` go first (they were kept in the order they expire), then the oldest beyond capacity. */
  keep(offerId: string, offer: KeptOffer, now: Date): void {
    const t = now.getTime();
    // An expired offer being submitted stays until its submission ends: it goes to the back, looked at again later.
    for (const end = this.queue.length; this.head < end; this.head++) {
      const [id, o] = this.queue[this.head]!;
      if (this.entries.get(id) !== o) continue;
      if (o.expiresAt.getTime() > t) break;
      if (this.submitting.has(id)) this.queue.push([id, o]);
      else this.drop(id);
    }
    this.drop(offerId);
    this.entries.set(offerId, offer);
    this.queue.push([offerId, offer]);
    this.byOrder.add(offer.ctx.order.order_no, offerId);
    while (this.entries.size > this.capacity) {
      const [id, o] = this.queue[this.head++]!;
      if (this.entries.get(id) === o) this.drop(id);
    }
    // the slots passed over are let go once they are half the queue
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }

  /** Submissions written from a kept offer (the reading path skipped). */
  written = 0;
  /** Submissions refused from what the kept-offer statement found (813 used or superseded, 805), the reading path skipped. */
  refused = 0;

  /**
   * The caller's kept offer for a submission, marked as being submitted; null when none is kept for this
   * client or one is already being submitted.
   */
  claim(offerId: string, clientId: string): KeptOffer | null {
    const offer = this.entries.get(offerId);
    if (offer === undefined || offer.clientId !== clientId || this.submitting.has(offerId)) return null;
    this.submitting.add(offerId);
    return offer;
  }

  /**
   * The submission that claimed it is over: the offer is no longer kept (used, or not usable as kept) — unless
   * `keep`, when the submission was declined for what its request said (another order named, or the order named
   * by PNR), not for anything about the offer.
   */
  release(offerId: string, keep = false): void {
    this.submitting.delete(offerId);
    if (!keep) this.drop(offerId);
  }

  /** An offer written by another path (the reading path, the order named by PNR): kept no longer. */
  forget(offerId: string): void {
    this.drop(offerId);
  }

  /**
   * A refund or void of the order written by this process: its version moved, so none of its kept offers could
   * be written as kept (the statement would find the order moved); their submissions go straight to the reading
   * path. Offers being submitted are dropped too: their submissions end as they would have.
   */
  forgetOrder(orderNo: string): void {
    for (const id of this.byOrder.take(orderNo)) this.entries.delete(id);
  }

  private drop(offerId: string): void {
    const offer = this.entries.get(offerId);
    if (offer === undefined) return;
    this.entries.delete(offerId);
    this.byOrder.remove(offer.ctx.order.order_no, offerId);
  }

  get size(): number {
    return this.entries.size;
  }

  /** How many offers of the order are kept. */
  keptOf(orderNo: string): number {
    return this.byOrder.count(orderNo);
  }
}

const kept = new WeakMap<Kysely<Database>, KeptOffers>();

/** The one set of kept offers of a store in this process. */
export function keptOffersFor(db: Kysely<Database>): KeptOffers {
  let offers = kept.get(db);
  if (!offers) kept.set(db, (offers = new KeptOffers()));
  return offers;
}

/**
 * A refund or void of the order written or moved by this process, whose version it moved (a submission, a refund
 * rejected or withdrawn, any move of a void): the order's kept offers and kept contexts are dropped, so that its
 * next submission by offer or quote reads at once instead of finding the order moved by a statement first (a
 * family quoted one passenger at a time, then submitted one by one). A write by another process is still found
 * out that way.
 */
export function forgetKeptOrder(db: Kysely<Database>, orderNo: string): void {
  keptOffersFor(db).forgetOrder(orderNo);
  contextCacheFor(db).forgetOrder(orderNo);
}
