// queryOrderDetails.do (by orderNo, or airlinePNR + carrier).
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { isoUtc } from './sessions.js';
import type { BookingDeps } from './airline-calls.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { QueryOrderRequest } from './wire.js';

const PAX_TYPE = { ADT: 0, CHD: 1, INF: 2 } as const;

export async function queryOrderDetails(deps: BookingDeps, clientId: string, req: QueryOrderRequest) {
  let q = deps.db.selectFrom('orders').selectAll().where('client_id', '=', clientId);
  if (req.orderNo) q = q.where('order_no', '=', req.orderNo);
  else if (req.airlinePNR && req.carrier) q = q.where('airline_pnr', '=', req.airlinePNR.toUpperCase()).where('carrier', '=', req.carrier.toUpperCase());
  else throw new ApiError(S.INVALID, 'invalid request: send orderNo, or airlinePNR with carrier');
  const orders = await q.limit(2).execute();
  if (orders.length === 0) throw req.orderNo ? new ApiError(S.ORDER_NOT_FOUND, 'order does not exist') : new ApiError(S.PNR_NOT_FOUND, 'no order with this airline PNR');
  if (orders.length > 1) throw new ApiError(S.SEVERAL_ORDERS, 'several orders match; query by orderNo');
  const order = orders[0]!;
  const [pax, segments, tickets, ancillaries, booking] = await Promise.all([
    deps.db.selectFrom('order_passengers').selectAll().where('order_no', '=', order.order_no).orderBy('pax_index').execute(),
    deps.db.selectFrom('order_segments').selectAll().where('order_no', '=', order.order_no).orderBy('segment_index').execute(),
    deps.db.selectFrom('tickets').select(['ticket_no', 'pax_index']).where('order_no', '=', order.order_no).execute(),
    deps.db.selectFrom('order_ancillaries').selectAll().where('order_no', '=', order.order_no).orderBy('id').execute(),
    deps.db.selectFrom('booking_orders').select(['payment_deadline', 'fee_minor']).where('order_no', '=', order.order_no).executeTakeFirst(),
  ]);
  const nameOf = (i: number) => {
    const p = pax.find((x) => x.pax_index === i);
    return p ? `${p.last_name}/${p.first_name}` : '';
  };
  const seg = (s: (typeof segments)[number]) => ({
    segmentIndex: s.segment_index,
    carrier: s.carrier,
    flightNumber: s.flight_number,
    depAirport: s.dep_airport,
    arrAirport: s.arr_airport,
    depTime: s.dep_local.replace(/[- :]/g, ''),
  });
  return {
    status: 0,
    msg: 'success',
    orderNo: order.order_no,
    orderStatus: order.status,
    pnrCode: order.airline_pnr,
    carrier: order.carrier,
    currency: order.currency,
    totalPrice: toAmount(Number(order.total_minor) + Number(booking?.fee_minor ?? 0), order.currency),
    tktLimitTime: booking && order.status === '0' ? isoUtc(new Date(booking.payment_deadline)) : null,
    paxTicketInfos: pax.map((p) => ({
      name: `${p.last_name}/${p.first_name}`,
      passengerType: PAX_TYPE[p.passenger_type],
      ticketNos: tickets.filter((t) => t.pax_index === p.pax_index).map((t) => t.ticket_no),
    })),
    ancillaries: ancillaries.map((a) => {
      const seat = (a.details as { seat?: { row: string; column: string } }).seat;
      return {
        name: nameOf(a.pax_index),
        segmentIndex: a.segment_index,
        categoryCode: a.category,
        productCode: a.product_code,
        seat: seat ? `${seat.row}${seat.column}` : null,
        price: toAmount(Number(a.price_minor), a.currency),
        currency: a.currency,
      };
    }),
    fromSegments: segments.filter((s) => s.direction === 'out').map(seg),
    retSegments: segments.filter((s) => s.direction === 'ret').map(seg),
  };
}
