// queryOrderDetails.do (plan §3.9, §8.8; docs/decisions/0023): an order of the caller by orderNo, by pnrCode
// (the one the order shows: our booking reference, or a claimed order's airline locator) or by airlinePNR + carrier;
// every value given must name the same order (704).
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import type { OrderRow } from '../store/schema.js';
import type { BookingDeps } from './airline-calls.js';
import { METHOD_NUMBER, orderView } from './order-view.js';
import { PAYABLE_METHODS } from './routing.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { QueryOrderRequest } from './wire-order.js';

/** "" and null are absent (decision 0021). */
const given = (v: string | null | undefined) => (v === undefined || v === null || v.trim() === '' ? null : v.trim());

async function findOrder(deps: BookingDeps, clientId: string, req: QueryOrderRequest): Promise<OrderRow> {
  const orderNo = given(req.orderNo);
  const pnrCode = given(req.pnrCode)?.toUpperCase() ?? null;
  const airlinePnr = given(req.airlinePNR)?.toUpperCase() ?? null;
  const carrier = given(req.carrier)?.toUpperCase() ?? null;
  if (!orderNo && !pnrCode && !(airlinePnr && carrier)) throw new ApiError(S.QUERY_KEYS_MISSING, 'send orderNo, or pnrCode, or airlinePNR together with carrier');
  if ((airlinePnr === null) !== (carrier === null)) throw new ApiError(S.QUERY_KEYS_MISSING, 'airlinePNR and carrier go together');

  const base = () => deps.db.selectFrom('orders').selectAll('orders').where('orders.client_id', '=', clientId);
  let orders: OrderRow[];
  if (orderNo) orders = await base().where('orders.order_no', '=', orderNo).execute();
  else if (pnrCode) {
    // The orders showing this pnrCode: ours by booking reference, and a claimed order (no booking reference) by the
    // airline's locator, which claim and the order's answer give as its pnrCode (a review: 800 for it). Two carriers
    // may hold one locator: several orders, 701, as by airlinePNR (carrier goes only with airlinePNR, and the first
    // key given finds the order). Only the caller's orders, as every key.
    const booked = await base().innerJoin('booking_orders', 'booking_orders.order_no', 'orders.order_no').where('booking_orders.booking_ref', '=', pnrCode).limit(2).execute();
    const claimed = await base().where('orders.source', '=', 'claim').where('orders.airline_pnr', '=', pnrCode).limit(2).execute();
    orders = booked.concat(claimed);
  } else orders = await base().where('orders.airline_pnr', '=', airlinePnr).where('orders.carrier', '=', carrier!).limit(2).execute();
  if (orders.length === 0) throw orderNo || pnrCode ? new ApiError(S.ORDER_NOT_FOUND, 'order does not exist') : new ApiError(S.PNR_NOT_FOUND, 'no order with this airline PNR');
  if (orders.length > 1) {
    throw new ApiError(S.SEVERAL_ORDERS, pnrCode ? 'several orders match this pnrCode; query by orderNo, or by airlinePNR with carrier' : 'several orders match this airline PNR; query by orderNo');
  }
  const order = orders[0]!;

  // Every other value given must belong to the same order (found by pnrCode, the airline PNR is still checked).
  if (pnrCode && orderNo && (await pnrCodeOf(deps, order)) !== pnrCode) throw new ApiError(S.QUERY_KEYS_MISMATCH, 'orderNo and pnrCode name different orders');
  if (airlinePnr && (order.airline_pnr !== airlinePnr || order.carrier !== carrier)) throw new ApiError(S.QUERY_KEYS_MISMATCH, 'airlinePNR and carrier do not belong to this order');
  return order;
}

/** The pnrCode the order shows (order-view.ts): our booking reference, or for a claimed order the airline's locator. */
async function pnrCodeOf(deps: BookingDeps, order: OrderRow): Promise<string | null> {
  const ref = await deps.db.selectFrom('booking_orders').select('booking_ref').where('order_no', '=', order.order_no).executeTakeFirst();
  if (ref) return ref.booking_ref;
  return order.source === 'claim' ? order.airline_pnr : null;
}

export async function queryOrderDetails(deps: BookingDeps, clientId: string, req: QueryOrderRequest) {
  const order = await findOrder(deps, clientId, req);
  const v = await orderView(deps.db, order);
  const money = (minor: number) => toAmount(minor, v.currency);
  const method = order.payment_method ? METHOD_NUMBER[order.payment_method] : null;
  const payable = v.orderStatus === 0;
  return {
    status: 0,
    msg: 'success',
    orderNo: order.order_no,
    pnrCode: v.pnrCode,
    orderStatus: v.orderStatus,
    ticketStatus: v.paxTicketInfos.some((p) => p.ticketNos.length > 0) ? '1' : '0',
    paxTicketInfos: v.paxTicketInfos,
    totalPrice: money(v.totals.fareMinor + v.totals.ancillaryMinor),
    currency: v.currency,
    tktLimitTime: v.tktLimitTime,
    vendorTotalPrice: null,
    vendorCost: null,
    vendorTotalAncillaryPrice: null,
    vendorCurrency: null,
    adultTotalFare: money(v.totals.adultMinor),
    childTotalFare: money(v.totals.childMinor),
    infantTotalFare: money(v.totals.infantMinor),
    totalAncillaryPrice: money(v.totals.ancillaryMinor),
    totalTransactionFee: money(v.totals.feeMinor),
    // deprecated single value: 3 = card and deposit (pay.do takes both)
    supportPaymentMethod: 3,
    supportPaymentMethods: [...PAYABLE_METHODS],
    paymentMethod: method,
    routing: v.routing,
    airlineBookings: [
      {
        airlineCode: order.carrier,
        airlineName: null,
        airlinePnr: order.airline_pnr,
        airlineWebSiteAddress: null,
        mmbEmail: v.contact.email ?? '',
        tailDigitsOfPaymentCard: v.booking?.card_last4 ?? null,
      },
    ],
    itineraryDownload: '',
    contact: v.contact,
    errorCode: null,
    errorMessage: null,
    airlineMessage: null,
    refundRules: null,
    ifSeatOccupied: v.ifSeatOccupied,
    paymentOptions: payable ? v.paymentOptions : null,
    payment: method !== null ? (v.paymentOptions.find((o) => o.paymentMethod === method) ?? null) : null,
    paymentAttempted: null,
  };
}
