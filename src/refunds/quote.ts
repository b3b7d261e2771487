// refundQuotation.do (spec 4.1): quote and store an offer; a newer quote supersedes older ones.
import { randomBytes } from 'node:crypto';
import { preparedQuery } from '../store/prepared.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { prepareRefund } from './prepare.js';
import { postAsObject, wireParts } from './pricing.js';
import { REFUND_STATUS } from './statuses.js';
import { toAmount } from '../money/money.js';
import type { RefundQuotationRequest, RefundQuotationResponse } from './wire.js';

export function newOfferId(): string {
  return `rfo_${randomBytes(18).toString('base64url')}`;
}

/**
 * Older active offers covering any of these tickets stop being usable (DESIGN "Offers and submission") and
 * the new one is stored: one statement, prepared once (no query building per quote).
 */
export const RECORD_OFFER_SQL = `with superseded as (
     update refund_offers set status = 'superseded'
     where order_no = $3 and status = 'active' and ticket_nos && $5::text[]
     returning 1
   )
   insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
   values ($1, $2, $3, $4, $5::text[], $6::jsonb, $7::jsonb, 'active', $8::timestamptz, $9::timestamptz)`;
const recordOffer = preparedQuery('refund_record_offer', RECORD_OFFER_SQL);

export async function quoteRefund(deps: RefundDeps, caller: RefundCaller, req: RefundQuotationRequest): Promise<RefundQuotationResponse> {
  const { priced } = await prepareRefund(deps, caller, req, req.refundRequestList, false);
  const offerId = newOfferId();
  const now = deps.clock.now();
  // One statement (atomic on its own): supersede the older offers for these tickets and store the new one.
  const ticketNos = priced.tickets.map((t) => t.ticketNo);
  await deps.db.executeQuery(
    recordOffer([
      offerId,
      caller.clientId,
      priced.orderNo,
      priced.reason,
      ticketNos,
      JSON.stringify(req.refundRequestList),
      JSON.stringify(priced),
      new Date(now.getTime() + deps.offerTtlMs),
      now,
    ]),
  );
  return {
    status: REFUND_STATUS.OK,
    msg: priced.isRefundable ? 'success' : 'success: the ticket is non-refundable under airline policy',
    ...wireParts(priced, { displayCurrency: null, rates: deps.rates }),
    refundOfferId: offerId,
    refundPostTicketingServiceAmounts: postAsObject(priced, null, deps.rates),
    serviceFee: { currency: priced.serviceFee.currency, transactionFee: toAmount(priced.serviceFee.minor, priced.serviceFee.currency) },
  };
}
