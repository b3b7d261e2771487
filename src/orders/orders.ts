// Orders in the store: created from an airline record (claim) here; the booking chain adds its own path.
import type { Kysely, Transaction } from 'kysely';
import type { AirlineRecord } from '../airline/connector.js';
import type { Database, OrderRow, OrderSource, OrderStatus } from '../store/schema.js';
import { recordPrice } from '../airline/record.js';
import { storableDeep } from '../store/text.js';
import { newNumericId } from '../ids.js';

/** 24 digits that grow with time (decision 0061); opaque to callers, never reused (the orders' key). */
export const newOrderNo = newNumericId;

export function findOrderByRecord(db: Kysely<Database>, carrier: string, pnr: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('carrier', '=', carrier).where('airline_pnr', '=', pnr).executeTakeFirst();
}

/** The order if it belongs to `clientId`; another client's order is indistinguishable from none. */
export function findClientOrder(db: Kysely<Database>, clientId: string, orderNo: string): Promise<OrderRow | undefined> {
  return db.selectFrom('orders').selectAll().where('order_no', '=', orderNo).where('client_id', '=', clientId).executeTakeFirst();
}

const ORDER_STATUS_OF_RECORD: Record<AirlineRecord['status'], OrderStatus> = { OnHold: '0', Ticketed: '2', Cancelled: '-3' };

/** Copies passengers, segments, tickets, coupons and ancillaries of the record into a new order. */
export async function insertOrderFromRecord(
  trx: Transaction<Database>,
  args: { orderNo: string; clientId: string; source: OrderSource; record: AirlineRecord; now: Date },
): Promise<void> {
  const { orderNo, clientId, source, now } = args;
  const record = storableDeep(args.record);
  const price = recordPrice(record);
  await trx
    .insertInto('orders')
    .values({
      order_no: orderNo,
      client_id: clientId,
      source,
      status: ORDER_STATUS_OF_RECORD[record.status],
      carrier: record.carrier,
      airline_pnr: record.pnr,
      contact_email: record.contact.email,
      contact_phone: record.contact.phone,
      payment_method: record.paymentMethod,
      currency: price?.currency ?? record.tickets[0]?.currency ?? 'XXX',
      total_minor: price?.minor ?? 0,
      ticketed_at: record.status === 'Ticketed' ? (record.tickets[0]?.issuedAt ?? now) : null,
      updated_at: now,
    })
    .execute();
  await trx
    .insertInto('order_passengers')
    .values(
      record.passengers.map((p, i) => ({
        order_no: orderNo,
        pax_index: i + 1,
        passenger_type: p.type,
        last_name: p.lastName,
        first_name: p.firstName,
        birthday: p.birthday,
        gender: p.gender,
        document_type: p.document?.type ?? null,
        document_number: p.document?.number ?? null,
        document_expiry: p.document?.expiry ?? null,
        document_issue_place: p.document?.issuePlace ?? null,
        nationality: p.document?.nationality ?? null,
      })),
    )
    .execute();
  await trx
    .insertInto('order_segments')
    .values(
      record.segments.map((s) => ({
        order_no: orderNo,
        segment_index: s.index,
        direction: s.direction,
        carrier: s.carrier,
        flight_number: s.flightNumber,
        dep_airport: s.depAirport,
        arr_airport: s.arrAirport,
        dep_local: s.depLocal,
        arr_local: s.arrLocal,
        dep_at: s.depAt,
        arr_at: s.arrAt,
        cabin_class: s.cabinClass,
        fare_family: s.fareFamily,
        operating_carrier: s.operatingCarrier,
        operating_flight_number: s.operatingFlightNumber,
        dep_time_zone: s.depTimeZone,
        booked_dep_local: s.bookedDepLocal,
      })),
    )
    .execute();
  await insertTickets(trx, orderNo, record);
}

/** Tickets, coupons and in-flow ancillaries of the record (an order created before ticketing gets them at payment). */
export async function insertTicketsFromRecord(trx: Transaction<Database>, orderNo: string, record: AirlineRecord): Promise<void> {
  await insertTickets(trx, orderNo, storableDeep(record));
}

/** insertTicketsFromRecord of a record already storable. */
async function insertTickets(trx: Transaction<Database>, orderNo: string, record: AirlineRecord): Promise<void> {
  const paxIndex = new Map(record.passengers.map((p, i) => [p.ref, i + 1]));
  for (const t of record.tickets) {
    const pax = paxIndex.get(t.paxRef);
    if (pax === undefined) throw new Error(`ticket ${t.ticketNo} names an unknown passenger`);
    await trx
      .insertInto('tickets')
      .values({
        ticket_no: t.ticketNo,
        order_no: orderNo,
        pax_index: pax,
        currency: t.currency,
        fare_minor: t.fareMinor,
        tax_minor: t.taxMinor,
        issued_at: t.issuedAt,
        tax_status_confirmed: t.taxStatusConfirmed,
      })
      .execute();
    if (t.coupons.length > 0) {
      await trx
        .insertInto('ticket_coupons')
        .values(t.coupons.map((c) => ({ ticket_no: t.ticketNo, segment_index: c.segmentIndex, status: c.status })))
        .execute();
    }
    if (t.ancillaries.length > 0) {
      await trx
        .insertInto('order_ancillaries')
        .values(
          t.ancillaries.map((a) => ({
            order_no: orderNo,
            pax_index: pax,
            segment_index: a.segmentIndex,
            kind: a.kind,
            category: a.category,
            product_code: a.productCode,
            post_order_no: a.postOrderNo,
            currency: a.currency,
            price_minor: a.priceMinor,
            details: JSON.stringify({ ...(a.baggage ? { baggage: a.baggage } : {}), ...(a.seat ? { seat: a.seat } : {}) }),
          })),
        )
        .execute();
    }
  }
}
