// refundQuotation.do (spec 4.1): quote and store an offer; a newer quote supersedes older ones.
import { randomFillSync } from 'node:crypto';
import { recordOffer } from './offers.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { prepareRefund } from './prepare.js';
import { postAsObject, wireParts } from './pricing.js';
import { REFUND_STATUS } from './statuses.js';
import { toAmount } from '../money/money.js';
import type { RefundQuotationRequest, RefundQuotationResponse } from './wire.js';

const OFFER_ID_BYTES = 18;
/** Random bytes drawn 4 KB at a time: one call into the CSPRNG per ~227 offer ids instead of one per id. */
const idPool = Buffer.alloc(OFFER_ID_BYTES * 227);
let idPoolAt = idPool.length;

export function newOfferId(): string {
  if (idPoolAt + OFFER_ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idPoolAt = 0;
  }
  const id = idPool.toString('base64url', idPoolAt, idPoolAt + OFFER_ID_BYTES);
  idPoolAt += OFFER_ID_BYTES;
  return `rfo_${id}`;
}

export async function quoteRefund(deps: RefundDeps, caller: RefundCaller, req: RefundQuotationRequest): Promise<RefundQuotationResponse> {
  const { priced } = await prepareRefund(deps, caller, req, req.refundRequestList, false);
  const offerId = newOfferId();
  const now = deps.clock.now();
  // Atomic: the older offers for these tickets superseded and the new one stored (src/refunds/offers.ts).
  await recordOffer(deps.db, {
    offerId,
    clientId: caller.clientId,
    orderNo: priced.orderNo,
    reason: priced.reason,
    ticketNos: priced.tickets.map((t) => t.ticketNo),
    request: req.refundRequestList,
    quote: priced,
    expiresAt: new Date(now.getTime() + deps.offerTtlMs),
    createdAt: now,
  });
  return {
    status: REFUND_STATUS.OK,
    msg: priced.isRefundable ? 'success' : 'success: the ticket is non-refundable under airline policy',
    ...wireParts(priced, { displayCurrency: null, rates: deps.rates }),
    refundOfferId: offerId,
    refundPostTicketingServiceAmounts: postAsObject(priced, null, deps.rates),
    serviceFee: { currency: priced.serviceFee.currency, transactionFee: toAmount(priced.serviceFee.minor, priced.serviceFee.currency) },
  };
}
