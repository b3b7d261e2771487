// refund.do (spec 4.2): by refundOfferId (single use, guaranteed by the database) or by refundRequestList
// (quote and submit in one step). Creates the refund order, its status history and its first job together.
import { newNumericId } from '../orders/orders.js';
import type { Transaction } from 'kysely';
import { ApiError } from '../http/errors.js';
import { toAmount } from '../money/money.js';
import { constraintOf, isSerializationFailure, isUniqueViolation, sqlState } from '../store/errors.js';
import type { Database, OrderRow } from '../store/schema.js';
import { checkRequest, checkShape } from './checks.js';
import { loadCallerOrder, prepareRefund } from './prepare.js';
import type { RefundCaller, RefundDeps } from './deps.js';
import { display, postAsObject, wireParts, type PricedQuote } from './pricing.js';
import { insertOffer, newOfferId, supersedeOffers } from './quote.js';
import { REFUND_STATUS as S } from './statuses.js';
import type { RefundRequestItem, RefundSubmitRequest, RefundSubmitResponse } from './wire.js';

export const newRefundCode = newNumericId;

/** deposit: 0 → 1 → 3 → 2; pass-through virtual card and refund claims: 0 → 1 → 5 (DESIGN lifecycle). */
export function pathOf(order: OrderRow): 'deposit' | 'card' {
  return order.source === 'booking' && order.payment_method === 'deposit' ? 'deposit' : 'card';
}

async function createRefundOrder(
  trx: Transaction<Database>,
  deps: RefundDeps,
  args: { refundCode: string; caller: RefundCaller; order: OrderRow; offerId: string; priced: PricedQuote; displayCurrency: string | null; now: Date },
): Promise<void> {
  const { refundCode, order, priced, now } = args;
  await trx
    .insertInto('refund_orders')
    .values({
      refund_code: refundCode,
      client_id: args.caller.clientId,
      order_no: order.order_no,
      offer_id: args.offerId,
      reason: priced.reason,
      status: 0,
      path: pathOf(order),
      quote_type: priced.quoteType,
      refund_method: priced.refundMethod,
      currency: priced.currency,
      estimated_refund_minor: priced.fare.refundMinor,
      post_refund_minor: priced.post.reduce((a, p) => a + p.refundMinor, 0),
      service_fee_currency: priced.serviceFee.currency,
      service_fee_minor: priced.serviceFee.minor,
      display_currency: args.displayCurrency,
      details: JSON.stringify(priced),
      created_at: now,
      updated_at: now,
    })
    .execute();
  await trx
    .insertInto('refund_tickets')
    .values(priced.tickets.map((t) => ({ refund_code: refundCode, ticket_no: t.ticketNo, pax_index: t.paxIndex })))
    .execute();
  await trx.insertInto('refund_status_history').values({ refund_code: refundCode, from_status: null, to_status: 0, at: now, cause: 'submitted by the client' }).execute();
  await deps.scheduler.scheduleSubmission(trx, refundCode);
}

function submitAnswer(deps: RefundDeps, priced: PricedQuote, offerId: string, refundCode: string, displayCurrency: string | null): RefundSubmitResponse {
  return {
    status: S.OK,
    msg: 'refund submitted; follow it with queryRefundOrders.do and the refundCode',
    ...wireParts(priced, { displayCurrency, rates: deps.rates }),
    refundOfferId: offerId,
    refundPostTicketingServiceAmounts: postAsObject(priced, displayCurrency, deps.rates),
    serviceFee: {
      currency: priced.serviceFee.currency,
      transactionFee: toAmount(priced.serviceFee.minor, priced.serviceFee.currency),
      displayTransactionFee: display(priced.serviceFee.minor, priced.serviceFee.currency, displayCurrency, deps.rates),
    },
    displayCurrency,
    refundStatus: 0,
    refundCode,
    cancelReason: null,
    refundReason: priced.reason,
  };
}

/** Database failures that mean "somebody else got there first" become the documented statuses. */
function mapConflict(err: unknown): never {
  if (isUniqueViolation(err)) {
    const c = constraintOf(err) ?? '';
    if (c.includes('refund_tickets')) throw new ApiError(S.ALREADY_SUBMITTED, 'refund already submitted for this passenger; query status');
    if (c.includes('offer')) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'this refundOfferId was already used');
  }
  // lock_not_available (NOWAIT) or a serialization conflict: another submission holds the offer
  if (sqlState(err) === '55P03' || isSerializationFailure(err)) throw new ApiError(S.SUBMISSION_IN_PROGRESS, 'refund submission already in progress; wait before retrying');
  throw err;
}

export async function submitRefund(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest): Promise<RefundSubmitResponse> {
  const hasOffer = typeof req.refundOfferId === 'string' && req.refundOfferId !== '';
  const hasList = Array.isArray(req.refundRequestList) && req.refundRequestList.length > 0;
  if (hasOffer === hasList) throw new ApiError(S.INVALID, 'invalid request: send refundOfferId or refundRequestList, not both and not neither');
  const displayCurrency = req.displayCurrency ? req.displayCurrency.toUpperCase() : null;
  return hasOffer ? submitOffer(deps, caller, req, req.refundOfferId!, displayCurrency) : submitList(deps, caller, req, req.refundRequestList!, displayCurrency);
}

async function submitList(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, items: RefundRequestItem[], displayCurrency: string | null) {
  const { ctx, priced } = await prepareRefund(deps, caller, req, items, true);
  if (!priced.isRefundable) throw new ApiError(S.NON_REFUNDABLE, 'ticket non-refundable under airline policy');
  const offerId = newOfferId();
  const refundCode = newRefundCode();
  const now = deps.clock.now();
  try {
    await deps.db.transaction().execute(async (trx) => {
      await supersedeOffers(trx, priced.orderNo, priced.tickets.map((t) => t.ticketNo));
      await insertOffer(trx, { offerId, clientId: caller.clientId, priced, request: items, status: 'used', now, ttlMs: deps.offerTtlMs });
      await createRefundOrder(trx, deps, { refundCode, caller, order: ctx.order, offerId, priced, displayCurrency, now });
    });
  } catch (err) {
    mapConflict(err);
  }
  return submitAnswer(deps, priced, offerId, refundCode, displayCurrency);
}

async function submitOffer(deps: RefundDeps, caller: RefundCaller, req: RefundSubmitRequest, offerId: string, displayCurrency: string | null) {
  const offer = await deps.db.selectFrom('refund_offers').selectAll().where('offer_id', '=', offerId).where('client_id', '=', caller.clientId).executeTakeFirst();
  if (!offer) throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: unknown refundOfferId');
  const now = deps.clock.now();
  if (offer.status === 'used') throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: this refundOfferId was already submitted');
  if (offer.status === 'superseded') throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: a newer quote replaced this refundOfferId; use the latest one');
  if (offer.expires_at.getTime() <= now.getTime()) throw new ApiError(S.OFFER_EXPIRED, 'refundOfferId expired; obtain a fresh offer and resubmit');

  // The order named in the request, when named, must be the offer's.
  const ctx = await loadCallerOrder(deps, caller, req.orderNo || (req.airlinePNR && req.carrier) ? req : { orderNo: offer.order_no });
  if (ctx.order.order_no !== offer.order_no) throw new ApiError(S.INVALID, 'invalid request: the refundOfferId belongs to another order');
  // The state may have moved since the quote (another refund, departure passed): check again.
  const items = offer.request as RefundRequestItem[];
  const connector = deps.airlines.forCarrier(ctx.order.carrier);
  const min = caller.settings.refundCriteria?.minMinutesBeforeDeparture;
  checkRequest(ctx, items, checkShape(items), {
    terms: connector?.refundTerms(ctx.order.carrier) ?? null,
    supportsRefunds: connector?.supports(ctx.order.carrier, 'refunds') ?? false,
    supportsVoids: connector?.supports(ctx.order.carrier, 'voids') ?? false,
    now,
    forSubmit: true,
    minMinutesBeforeDeparture: typeof min === 'number' ? min : null,
  });
  const priced = offer.quote as PricedQuote;
  if (!priced.isRefundable) throw new ApiError(S.NON_REFUNDABLE, 'ticket non-refundable under airline policy');

  const refundCode = newRefundCode();
  try {
    await deps.db.transaction().execute(async (trx) => {
      // Hold the offer: a concurrent submission of the same offer fails at once with 814 (PostgreSQL).
      const locked = await trx.selectFrom('refund_offers').select(['status', 'expires_at']).where('offer_id', '=', offerId).forUpdate().noWait().executeTakeFirst();
      if (!locked || locked.status !== 'active') throw new ApiError(S.OFFER_ILLEGAL_STATE, 'illegal refund offer state: this refundOfferId was already submitted');
      if (locked.expires_at.getTime() <= now.getTime()) throw new ApiError(S.OFFER_EXPIRED, 'refundOfferId expired; obtain a fresh offer and resubmit');
      await trx.updateTable('refund_offers').set({ status: 'used', used_at: now }).where('offer_id', '=', offerId).execute();
      await createRefundOrder(trx, deps, { refundCode, caller, order: ctx.order, offerId, priced, displayCurrency, now });
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    mapConflict(err);
  }
  return submitAnswer(deps, priced, offerId, refundCode, displayCurrency);
}
