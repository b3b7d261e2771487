// Everything a refund decision reads about one order, loaded in one go (no airline call).
import type { Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { CouponStatus, Database, OrderRow, PassengerType } from '../store/schema.js';

export interface PaxRow {
  paxIndex: number;
  type: PassengerType;
  lastName: string;
  firstName: string;
}

export interface SegmentRow {
  index: number;
  direction: 'out' | 'ret';
  carrier: string;
  flightNumber: string;
  depAirport: string;
  arrAirport: string;
  depLocal: string;
  bookedDepLocal: string | null;
  depTimeZone: string;
  depAt: Date;
  arrAt: Date;
}

export interface TicketRow {
  ticketNo: string;
  paxIndex: number;
  currency: string;
  fareMinor: number;
  taxMinor: number;
  issuedAt: Date | null;
  taxStatusConfirmed: boolean;
  coupons: Array<{ segmentIndex: number; status: CouponStatus }>;
}

export interface AncillaryRow {
  paxIndex: number;
  segmentIndex: number | null;
  kind: 'inflow' | 'post';
  category: string;
  postOrderNo: string | null;
  currency: string;
  priceMinor: number;
}

export interface LiveRefund {
  refundCode: string;
  status: number;
  reason: string;
}

export interface OrderContext {
  order: OrderRow;
  passengers: PaxRow[];
  segments: SegmentRow[];
  tickets: TicketRow[];
  ancillaries: AncillaryRow[];
  /** ticketNo → its live (under way or finished) refund */
  liveRefunds: Map<string, LiveRefund>;
}

export type OrderLookup = { kind: 'order'; order: OrderRow } | { kind: 'ancillary' } | { kind: 'none' };

/** The caller's order by orderNo or by airline PNR + carrier; another client's order is "none". */
export async function findOrderForCaller(
  db: Kysely<Database>,
  clientId: string,
  ref: { orderNo?: string | null; airlinePNR?: string | null; carrier?: string | null },
): Promise<OrderLookup> {
  let query = db.selectFrom('orders').selectAll().where('client_id', '=', clientId);
  if (ref.orderNo) query = query.where('order_no', '=', ref.orderNo);
  else query = query.where('airline_pnr', '=', (ref.airlinePNR ?? '').toUpperCase()).where('carrier', '=', (ref.carrier ?? '').toUpperCase());
  const order = await query.executeTakeFirst();
  if (order) return { kind: 'order', order };
  if (ref.orderNo) {
    // spec 7.1 824: the caller sent the number of a post-ticketing service order of one of its orders.
    const anc = await db
      .selectFrom('order_ancillaries')
      .innerJoin('orders', 'orders.order_no', 'order_ancillaries.order_no')
      .select('order_ancillaries.id')
      .where('order_ancillaries.post_order_no', '=', ref.orderNo)
      .where('orders.client_id', '=', clientId)
      .executeTakeFirst();
    if (anc) return { kind: 'ancillary' };
  }
  return { kind: 'none' };
}

/**
 * One round trip: the order's passengers, segments, tickets with coupons, ancillaries and live refunds as
 * JSON arrays of a single query (the embedded store pays per statement, DESIGN performance targets).
 */
export async function loadOrderContext(db: Kysely<Database>, order: OrderRow): Promise<OrderContext> {
  const orderNo = order.order_no;
  const row = await db
    .selectNoFrom((eb) => [
      jsonArrayFrom(eb.selectFrom('order_passengers').selectAll().where('order_no', '=', orderNo).orderBy('pax_index')).as('passengers'),
      jsonArrayFrom(eb.selectFrom('order_segments').selectAll().where('order_no', '=', orderNo).orderBy('segment_index')).as('segments'),
      jsonArrayFrom(eb.selectFrom('tickets').selectAll().where('order_no', '=', orderNo).orderBy('ticket_no')).as('tickets'),
      jsonArrayFrom(
        eb
          .selectFrom('ticket_coupons')
          .innerJoin('tickets', 'tickets.ticket_no', 'ticket_coupons.ticket_no')
          .select(['ticket_coupons.ticket_no', 'ticket_coupons.segment_index', 'ticket_coupons.status'])
          .where('tickets.order_no', '=', orderNo)
          .orderBy('ticket_coupons.segment_index'),
      ).as('coupons'),
      jsonArrayFrom(eb.selectFrom('order_ancillaries').selectAll().where('order_no', '=', orderNo).orderBy('id')).as('ancillaries'),
      jsonArrayFrom(
        eb
          .selectFrom('refund_tickets')
          .innerJoin('refund_orders', 'refund_orders.refund_code', 'refund_tickets.refund_code')
          .select(['refund_tickets.ticket_no', 'refund_orders.refund_code', 'refund_orders.status', 'refund_orders.reason'])
          .where('refund_orders.order_no', '=', orderNo)
          .where('refund_tickets.live', '=', true),
      ).as('refunds'),
    ])
    .executeTakeFirstOrThrow();
  const { passengers, segments, tickets, coupons, ancillaries, refunds } = row;
  const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
  return {
    order,
    passengers: passengers.map((p) => ({ paxIndex: p.pax_index, type: p.passenger_type, lastName: p.last_name, firstName: p.first_name })),
    segments: segments.map((s) => ({
      index: s.segment_index,
      direction: s.direction,
      carrier: s.carrier,
      flightNumber: s.flight_number,
      depAirport: s.dep_airport,
      arrAirport: s.arr_airport,
      depLocal: s.dep_local,
      bookedDepLocal: s.booked_dep_local,
      depTimeZone: s.dep_time_zone ?? 'UTC',
      depAt: date(s.dep_at),
      arrAt: date(s.arr_at),
    })),
    tickets: tickets.map((t) => ({
      ticketNo: t.ticket_no,
      paxIndex: t.pax_index,
      currency: t.currency,
      fareMinor: Number(t.fare_minor),
      taxMinor: Number(t.tax_minor),
      issuedAt: t.issued_at === null ? null : date(t.issued_at),
      taxStatusConfirmed: t.tax_status_confirmed,
      coupons: coupons.filter((c) => c.ticket_no === t.ticket_no).map((c) => ({ segmentIndex: c.segment_index, status: c.status })),
    })),
    ancillaries: ancillaries.map((a) => ({
      paxIndex: a.pax_index,
      segmentIndex: a.segment_index,
      kind: a.kind,
      category: a.category,
      postOrderNo: a.post_order_no,
      currency: a.currency,
      priceMinor: Number(a.price_minor),
    })),
    liveRefunds: new Map(refunds.map((r) => [r.ticket_no, { refundCode: r.refund_code, status: Number(r.status), reason: String(r.reason) }])),
  };
}
