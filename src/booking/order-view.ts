// An order as order.do, pay.do and queryOrderDetails.do answer it (plan §2.6, §2.8, §3.6, §3.9): read from the
// store only (orders, booking_orders and their rows), so every call shows the same order the same way. Values
// the sandbox cannot know are neutral; docs/decisions/0023 lists them.
import type { Kysely } from 'kysely';
import { DateTime } from 'luxon';
import { toAmount } from '../money/money.js';
import type { BookingOrdersTable, Database, OrderRow, PaymentMethod } from '../store/schema.js';
import type { Selectable } from 'kysely';
import { fullRoutingOf, PAYABLE_METHODS } from './routing.js';
import type { ChainItinerary } from './sessions.js';
import type { PaxTicketInfo } from './wire-order.js';

/** pay.do's methods as the wire numbers them, and back. */
export const METHOD_NUMBER: Record<PaymentMethod, number> = { deposit: 1, virtualCard: 3, ownAccount: 4, merchant: 5 };

const PAX_TYPE = { ADT: 0, CHD: 1, INF: 2 } as const;

/** `yyyy-MM-dd HH:mm:ss` in GMT+8: the original's payment deadline (plan §1 "Time formats"). */
export function gmt8(d: Date): string {
  return DateTime.fromJSDate(d, { zone: 'UTC+8' }).toFormat('yyyy-MM-dd HH:mm:ss');
}

/** One seat or bag of a booked order as sold (booking_orders.details.ancillaries). */
export interface SoldAncillary {
  paxIndex: number;
  segmentIndex: number;
  productCode: string;
  category: string;
  priceMinor: number;
  currency: string;
  seat: { row: string; column: string } | null;
  baggage: { piece: number; weight: number; isAllWeight: boolean; size: string | null } | null;
}

/** booking_orders.details of an order made by order.do (decision 0023). */
export interface BookingDetails {
  itinerary: ChainItinerary;
  routingIdentifier: string;
  contact: { name: string; email: string | null; mobile: string | null; address: string | null; postcode: string | null; companyName: string | null };
  ifSeatOccupied: string;
  /** The document type each passenger sent (echoed as sent, plan §4 C17), by pax index − 1. */
  cardTypes: Array<string | null>;
  /**
   * Each passenger's name as sent (`LAST/FIRST`, trimmed), by pax index − 1: paxTicketInfos echo it (the airline and
   * order_passengers keep the upper-cased form PNR matching reads). Absent in orders booked before 2026-12-02.
   */
  names?: string[];
  ancillaries: SoldAncillary[];
}

type BookingRow = Selectable<BookingOrdersTable>;

export interface OrderView {
  order: OrderRow;
  booking: BookingRow | null;
  pnrCode: string;
  orderStatus: number;
  paxTicketInfos: PaxTicketInfo[];
  totals: { fareMinor: number; adultMinor: number; childMinor: number; infantMinor: number; ancillaryMinor: number; feeMinor: number };
  currency: string;
  tktLimitTime: string;
  routing: ReturnType<typeof fullRoutingOf>;
  contact: BookingDetails['contact'];
  ifSeatOccupied: string | null;
  paymentOptions: ReturnType<typeof paymentOptionsOf>;
}

export function paymentOptionsOf(totalMinor: number, feeMinor: number, currency: string) {
  const detail = (minor: number, deductFrom: 'DEPOSIT' | 'CARD') => ({ amount: toAmount(minor, currency), currency, deductFrom });
  return PAYABLE_METHODS.map((m) => ({
    paymentMethod: m,
    ticketFare: detail(totalMinor, m === 1 ? 'DEPOSIT' : 'CARD'),
    serviceFee: detail(feeMinor, 'DEPOSIT'),
    paymentFee: null,
    cardType: null,
  }));
}

/** The order's answer parts; `order` must already belong to the caller. */
export async function orderView(db: Kysely<Database>, order: OrderRow): Promise<OrderView> {
  const [pax, segments, tickets, storedAncillaries, booking] = await Promise.all([
    db.selectFrom('order_passengers').selectAll().where('order_no', '=', order.order_no).orderBy('pax_index').execute(),
    db.selectFrom('order_segments').selectAll().where('order_no', '=', order.order_no).orderBy('segment_index').execute(),
    db.selectFrom('tickets').select(['ticket_no', 'pax_index', 'fare_minor', 'tax_minor']).where('order_no', '=', order.order_no).orderBy('ticket_no').execute(),
    db.selectFrom('order_ancillaries').selectAll().where('order_no', '=', order.order_no).orderBy('id').execute(),
    db.selectFrom('booking_orders').selectAll().where('order_no', '=', order.order_no).executeTakeFirst(),
  ]);
  // The details order.do writes since migration 0010 (its itinerary); an order booked before keeps `{seats,
  // ancillaries}` and is read as a claimed one is, from its tickets (a review: queryOrderDetails.do and pay.do
  // answered HTTP 500 for it)
  const stored = booking?.details as Partial<BookingDetails> | null | undefined;
  const details = stored?.itinerary && Array.isArray(stored.cardTypes) ? (stored as BookingDetails) : null;
  const currency = order.currency;
  const ticketed = tickets.length > 0;

  // Seats and bags: as sold at order.do for booked orders; the airline's in-flow ancillaries for claimed ones.
  const sold: SoldAncillary[] =
    details?.ancillaries ??
    storedAncillaries.map((a) => {
      const d = a.details as { seat?: { row: string; column: string }; baggage?: { piece: number; weight: number; isAllWeight?: boolean; size?: string | null } };
      return {
        paxIndex: a.pax_index,
        segmentIndex: a.segment_index ?? 0,
        productCode: a.product_code ?? '',
        category: a.category,
        priceMinor: Number(a.price_minor),
        currency: a.currency,
        seat: d.seat ?? null,
        baggage: d.baggage ? { piece: d.baggage.piece, weight: d.baggage.weight, isAllWeight: d.baggage.isAllWeight ?? false, size: d.baggage.size ?? null } : null,
      };
    });
  const ancillaryMinor = sold.reduce((sum, a) => sum + a.priceMinor, 0);

  // Fares per type: the verified routing's per-type fares for booked orders, the tickets' for claimed ones.
  const itinerary = details?.itinerary ?? claimedItinerary(order, segments);
  const fareOf = (type: keyof typeof PAX_TYPE, paxIndex: number) => {
    if (details) {
      const f = type === 'ADT' ? itinerary.price.adult : type === 'CHD' ? itinerary.price.child : itinerary.price.infant;
      return f.fareMinor + f.taxMinor;
    }
    return tickets.filter((t) => t.pax_index === paxIndex).reduce((sum, t) => sum + Number(t.fare_minor) + Number(t.tax_minor), 0);
  };
  const byType = { ADT: 0, CHD: 0, INF: 0 };
  for (const p of pax) byType[p.passenger_type] += fareOf(p.passenger_type, p.pax_index);
  const fareMinor = byType.ADT + byType.CHD + byType.INF;
  const feeMinor = Number(booking?.fee_minor ?? 0);

  const contact = details?.contact ?? { name: pax[0] ? `${pax[0].last_name}/${pax[0].first_name}` : '', email: order.contact_email, mobile: order.contact_phone, address: null, postcode: null, companyName: null };
  const emails = contact.email ? [contact.email] : null;
  const phones = contact.mobile ? [contact.mobile] : null;
  const paxTicketInfos: PaxTicketInfo[] = pax.map((p) => ({
    name: details?.names?.[p.pax_index - 1] ?? `${p.last_name}/${p.first_name}`,
    passengerType: PAX_TYPE[p.passenger_type],
    birthday: p.birthday,
    gender: p.gender,
    cardNum: p.document_number,
    cardType: details?.cardTypes[p.pax_index - 1] ?? p.document_type,
    cardIssuePlace: p.document_issue_place,
    cardExpired: p.document_expiry,
    nationality: p.nationality,
    ticketNos: tickets.filter((t) => t.pax_index === p.pax_index).map((t) => t.ticket_no),
    airlinePNRs: ticketed && order.airline_pnr ? [order.airline_pnr] : [],
    ancillaries: sold
      .filter((a) => a.paxIndex === p.pax_index)
      .map((a) => ({
        productCode: a.productCode,
        segmentIndex: a.segmentIndex,
        currency: a.currency,
        ancillaryPrice: toAmount(a.priceMinor, a.currency),
        auxBaggageElement: a.baggage,
        auxSeatElement: a.seat,
        vendorCurrency: null,
        vendorPrice: null,
        displayCurrency: null,
        displayPrice: null,
      })),
    contactEmails: emails,
    contactPhones: phones,
  }));

  const deadline = booking ? new Date(booking.payment_deadline) : (order.ticketed_at ?? order.created_at);
  return {
    order,
    booking: booking ?? null,
    // Our own booking reference; a claimed booking (made outside postbook) has only the airline's.
    pnrCode: booking?.booking_ref ?? order.airline_pnr ?? '',
    orderStatus: Number(order.status),
    paxTicketInfos,
    totals: { fareMinor, adultMinor: byType.ADT, childMinor: byType.CHD, infantMinor: byType.INF, ancillaryMinor, feeMinor },
    currency,
    tktLimitTime: gmt8(new Date(deadline)),
    routing: fullRoutingOf(itinerary, details?.routingIdentifier ?? '', { refreshTime: null, expireTime: null }),
    contact,
    ifSeatOccupied: details?.ifSeatOccupied ?? null,
    paymentOptions: paymentOptionsOf(fareMinor + ancillaryMinor, feeMinor, currency),
  };
}

/** A claimed order's segments as an itinerary (prices unknown here: zero; the tickets carry them). */
function claimedItinerary(order: OrderRow, segments: Array<Selectable<Database['order_segments']>>): ChainItinerary {
  const zero = { fareMinor: 0, taxMinor: 0 };
  return {
    carrier: order.carrier,
    cabinClass: segments[0]?.cabin_class ?? 1,
    segments: segments.map((s) => ({
      index: s.segment_index,
      direction: s.direction,
      carrier: s.carrier,
      flightNumber: s.flight_number,
      depAirport: s.dep_airport,
      arrAirport: s.arr_airport,
      depLocal: s.dep_local,
      arrLocal: s.arr_local,
      depDate: s.dep_local.slice(0, 10).replaceAll('-', ''),
      depTerminal: null,
      arrTerminal: null,
      cabinClass: s.cabin_class ?? 1,
      fareFamily: s.fare_family,
      aircraftCode: null,
      codeShare: (s.operating_carrier ?? s.carrier) !== s.carrier,
      operatingCarrier: s.operating_carrier ?? s.carrier,
      operatingFlightNumber: s.operating_flight_number ?? s.flight_number,
      durationMinutes: Math.round((new Date(s.arr_at).getTime() - new Date(s.dep_at).getTime()) / 60_000),
    })),
    price: { currency: order.currency, adult: zero, child: zero, infant: zero, feeMinor: 0, feeMode: 'PER_PAX' },
    seatsLeft: 0,
    ancillarySupported: false,
  };
}
