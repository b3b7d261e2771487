// refundQuotation.do (spec 4.1): quote and store an offer; a newer quote supersedes older ones.
import { ApiError } from '../errors.js';
import { newTimeRandomId } from '../ids.js';
import { checkShape } from './checks.js';
import { contextCacheFor, OrderContextCache } from './context-cache.js';
import { keptOffersFor } from './kept-offers.js';
import { recordOffer } from './offers.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { checkOrderRef, loadCallerOrder, type Prepared } from './prepare.js';
import { quoteFromContext } from './priced-once.js';
import { postAsObject, wireParts } from './pricing.js';
import { REFUND_STATUS } from './statuses.js';
import { toAmount } from '../money/money.js';
import type { RefundQuotationRequest, RefundQuotationResponse } from './wire.js';

/** `rfo_`, the millisecond in hex and 144 random bits: unguessable, and growing with time (decision 0061). */
export function newOfferId(): string {
  return `rfo_${newTimeRandomId()}`;
}

/** Fresh reads after which an offer is stored whatever the order's version (an order written without pause). */
const VERSION_CHECKED_READS = 3;

export async function quoteRefund(deps: RefundDeps, caller: RefundCaller, req: RefundQuotationRequest): Promise<RefundQuotationResponse> {
  const items = req.refundRequestList;
  const reason = checkShape(items);
  checkOrderRef(req);
  // The context kept from an earlier quote of this order, if any (decision 0030). Whatever it yields is
  // checked against the store: an offer by the conditional insert below, a refusal by reading the context again.
  const cache = contextCacheFor(deps.db);
  const key = OrderContextCache.key(caller.clientId, req)!;
  let kept = cache.get(key);
  const offerId = newOfferId();
  for (let freshReads = 0; ; ) {
    let prepared: Prepared;
    if (kept) {
      try {
        prepared = quoteFromContext(deps, caller, kept, items, reason, cache);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        cache.delete(key);
        kept = undefined;
        continue;
      }
    } else {
      const ctx = await loadCallerOrder(deps, caller, req);
      freshReads++;
      cache.set(key, ctx);
      prepared = quoteFromContext(deps, caller, ctx, items, reason, cache);
    }
    const { priced, ctx } = prepared;
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + deps.offerTtlMs);
    // Atomic: the older offers for these tickets superseded and the new one stored (src/refunds/offers.ts).
    const stored = await recordOffer(deps.db, {
      offerId,
      clientId: caller.clientId,
      orderNo: priced.orderNo,
      reason: priced.reason,
      ticketNos: priced.tickets.map((t) => t.ticketNo),
      request: items,
      quote: priced,
      expiresAt,
      createdAt: now,
      ctxVersion: freshReads >= VERSION_CHECKED_READS ? null : ctx.order.ctx_version,
    });
    if (stored) {
      // Its submission by refundOfferId in this process needs no read (decision 0038); a non-refundable quote's
      // submission answers 808 from the reading path, and an offer stored without its context's version (an
      // order written without pause) would find it moved, so neither is kept.
      if (priced.isRefundable && freshReads < VERSION_CHECKED_READS) keptOffersFor(deps.db).keep(offerId, { clientId: caller.clientId, items, priced, expiresAt, ctx }, now);
      return quoteAnswer(deps, priced, offerId);
    }
    // The order changed since that context: read it again and price again.
    cache.delete(key);
    kept = undefined;
  }
}

function quoteAnswer(deps: RefundDeps, priced: Prepared['priced'], offerId: string): RefundQuotationResponse {
  return {
    status: REFUND_STATUS.OK,
    msg: priced.isRefundable ? 'success' : 'success: the ticket is non-refundable under airline policy',
    ...wireParts(priced, { displayCurrency: null, rates: deps.rates }),
    refundOfferId: offerId,
    refundPostTicketingServiceAmounts: postAsObject(priced, null, deps.rates),
    serviceFee: { currency: priced.serviceFee.currency, transactionFee: toAmount(priced.serviceFee.minor, priced.serviceFee.currency) },
  };
}
