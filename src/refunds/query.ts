// queryRefundOrders.do (spec 4.3): the caller's refund orders of one order, newest first.
import { DateTime } from 'luxon';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import type { RefundOrdersTable } from '../store/schema.js';
import type { Selectable } from 'kysely';
import type { RefundCaller, RefundDeps } from './deps.js';
import { findCallerOrder } from './prepare.js';
import { display, postAsArray, refundQuote, voucherIdOf, wireParts } from './pricing.js';
import { REFUND_ORDER_STATUS as RS, REFUND_STATUS as S } from './statuses.js';
import type { QueryRefundOrdersRequest, QueryRefundOrdersResponse, RefundOrderWire } from './wire.js';

/** State kept beside the priced quote once the airline has answered. */
export interface RefundOutcome {
  voucherCode?: string | null;
}

/** A voucher's expiry, yyyyMMdd: one year after its start, 29 February's on 28 February (decision 0010). */
export function voucherEndDate(startDate: string): string {
  return DateTime.fromFormat(startDate, 'yyyyMMdd', { zone: 'UTC' }).plus({ years: 1 }).toFormat('yyyyMMdd');
}

/** A refund's row as the status answer reads it: the refund and its used offer's quote. */
export type RefundWithQuote = Selectable<RefundOrdersTable> & { offer_quote: unknown };

export function refundOrderToWire(deps: RefundDeps, row: RefundWithQuote, displayOverride: string | null): RefundOrderWire {
  const quote = refundQuote(row.details, row.offer_quote);
  // what the refund adds to its quote: the airline's outcome once refunded
  const outcome = (row.details as { outcome?: RefundOutcome } | null)?.outcome;
  const displayCurrency = displayOverride ?? row.display_currency;
  const done = row.status === RS.REFUNDED || row.status === RS.FULFILLED;
  const startDate = done ? row.completed_on : null;
  const endDate = startDate ? voucherEndDate(startDate) : null;
  const parts = wireParts(quote, {
    displayCurrency,
    rates: deps.rates,
    actualRefundMinor: row.actual_refund_minor,
    voucherState: { id: voucherIdOf(row.refund_code), code: outcome?.voucherCode ?? null, startDate, endDate },
    // refund_method is how the airline paid once it has (lifecycle.ts), which may differ from the quote's
    paid: row.refund_method !== quote.refundMethod ? { method: row.refund_method, airline: row.carrier } : undefined,
  });
  return {
    orderNo: row.order_no,
    refundCode: row.refund_code,
    displayCurrency,
    expectedConfirmationDate: parts.expectedConfirmationDate,
    expectedRefundDate: parts.expectedRefundDate,
    refundQuoteType: parts.refundQuoteType,
    refundTickets: parts.refundTickets,
    refundFareAmount: parts.refundFareAmount,
    refundPostTicketingServiceAmounts: postAsArray(quote, displayCurrency, deps.rates),
    refundVouchers: parts.refundVouchers,
    serviceFee: {
      currency: row.service_fee_currency,
      transactionFee: toAmount(row.service_fee_minor, row.service_fee_currency),
      displayTransactionFee: display(row.service_fee_minor, row.service_fee_currency, displayCurrency, deps.rates),
    },
    refundRules: parts.refundRules,
    refundStatus: row.status,
    refundOfferId: row.offer_id,
    refundMethod: parts.refundMethod,
    cancelReason: row.cancel_reason,
  };
}

export async function queryRefunds(deps: RefundDeps, caller: RefundCaller, req: QueryRefundOrdersRequest): Promise<QueryRefundOrdersResponse> {
  let orderNo: string;
  if (!req.orderNo && !(req.airlinePNR && req.carrier) && req.refundCode) {
    // Following a refund by its code alone is what callers do (spec 1): find its order for them.
    const row = await deps.db.selectFrom('refund_orders').select('order_no').where('refund_code', '=', req.refundCode).where('client_id', '=', caller.clientId).executeTakeFirst();
    if (!row) throw new ApiError(S.ORDER_NOT_FOUND, 'order not found for refund; check the refundCode or the main ticket order number');
    orderNo = row.order_no;
  } else {
    // Only the order number is needed: not the order's passengers, tickets and refunds.
    orderNo = (await findCallerOrder(deps, caller, req)).order_no;
  }
  // each refund's quote from its used offer, read by the offer's key in the same statement (decision 0053)
  let q = deps.db
    .selectFrom('refund_orders as r')
    .leftJoin('refund_offers as f', 'f.offer_id', 'r.offer_id')
    .selectAll('r')
    .select('f.quote as offer_quote')
    .where('r.order_no', '=', orderNo)
    .where('r.client_id', '=', caller.clientId);
  if (req.refundCode) q = q.where('r.refund_code', '=', req.refundCode);
  const rows = await q.orderBy('r.created_at', 'desc').orderBy('r.refund_code', 'desc').execute();
  // A refundCode that is not one of this order's refunds answers as it does alone (801), not an empty list (a
  // review: the same unknown code answered 801 alone and status 0 beside a valid orderNo).
  if (req.refundCode && rows.length === 0) throw new ApiError(S.ORDER_NOT_FOUND, 'order not found for refund; check the refundCode or the main ticket order number');
  const displayCurrency = req.displayCurrency ? req.displayCurrency.toUpperCase() : null;
  return { status: S.OK, msg: 'success', refundOrders: rows.map((r) => refundOrderToWire(deps, r, displayCurrency)) };
}
