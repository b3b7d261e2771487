// Everything a refund decision reads about one order, loaded in one statement (no airline call).
import type { CompiledQuery, Kysely } from 'kysely';
import { GroupCommitter } from '../store/group-commit.js';
import type { AirlineSegment } from '../airline/connector.js';
import type { CouponStatus, Database, OrderRow, PassengerType } from '../store/schema.js';
import { preparedQuery } from '../store/prepared.js';

export interface PaxRow {
  paxIndex: number;
  type: PassengerType;
  lastName: string;
  firstName: string;
}

/** A segment of the order as the refund checks read it: the airline's segment (airline/connector.ts), as stored. */
export type SegmentRow = Pick<AirlineSegment, 'index' | 'direction' | 'carrier' | 'flightNumber' | 'depAirport' | 'arrAirport' | 'depLocal' | 'depTimeZone' | 'depAt' | 'arrAt'> & {
  bookedDepLocal: string | null;
};

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

/** A refund of the order with live tickets; its status decides nothing here and is not read (migration 0020). */
export interface LiveRefund {
  refundCode: string;
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
  /** The order's void that is not rejected or withdrawn (at most one: void_orders_one_live), or null. */
  liveVoid: { voidCode: string; status: number } | null;
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

type ContextRow = OrderRow & ContextColumns & { i: number };

/** The context query's columns beside the order's own (`o.*`): JSON arrays of positional tuples. */
interface ContextColumns {
  pax: Array<[number, PassengerType, string, string]> | null;
  segs: Array<[number, 'out' | 'ret', string, string, string, string, string, string | null, string | null, string, string]> | null;
  tix: Array<[string, number, string, number, number, string | null, boolean, Array<[number, CouponStatus]> | null]> | null;
  anc: Array<[number, number | null, 'inflow' | 'post', string, string | null, string, number]> | null;
  /** [refundCode, reason, its live tickets] */
  refunds: Array<[string, string, string[] | null]> | null;
  /** [voidCode, voidStatus] of the order's live void (docs/voids.md) */
  live_void: [string, number] | null;
  /** spec 7.1 824: only computed when no order was found by orderNo. */
  ancillary: boolean | null;
}

/**
 * Everything a refund decision reads about one order, in ONE statement (docs/architecture.md "Performance targets"): the
 * order scoped to the caller, then its passengers, segments, tickets with coupons, ancillaries and live
 * refunds as JSON arrays of positional tuples (smaller to build and parse than objects), and, only when no
 * order matched an orderNo, whether it is the number of a post-ticketing service order of one of the
 * caller's orders (824). The order comes through a LEFT JOIN so a miss still answers one row. Each sub-select
 * runs on an index of its table (src/store/hot-path-indexes.test.ts holds the plans). Every sub-select is
 * correlated (a parameter of its outer row), never a join the planner may turn into a hash join: a prepared
 * statement runs on a generic plan whose row estimates do not know the order, and a hash join of
 * refund_orders with refund_tickets there read refund_tickets whole on every quote (decision 0015).
 */
/**
 * The orders columns by name, not `o.*`: a prepared statement whose result shape changes (a column added by
 * a later migration) fails on every pooled connection that prepared it.
 */
const ORDER_COLUMNS = 'o.order_no, o.client_id, o.source, o.status, o.carrier, o.airline_pnr, o.contact_email, o.contact_phone, o.payment_method, o.currency, o.total_minor, o.ticketed_at, o.created_at, o.updated_at, o.ctx_version';

function contextSql(from: string, orderMatch: string, ancillaryCheck: string): string {
  return `select b.i,
  ${ORDER_COLUMNS},
  (select json_agg(json_build_array(p.pax_index, p.passenger_type, p.last_name, p.first_name) order by p.pax_index)
     from order_passengers p where p.order_no = o.order_no) as pax,
  (select json_agg(json_build_array(s.segment_index, s.direction, s.carrier, s.flight_number, s.dep_airport, s.arr_airport,
                                    s.dep_local, s.booked_dep_local, s.dep_time_zone, s.dep_at, s.arr_at) order by s.segment_index)
     from order_segments s where s.order_no = o.order_no) as segs,
  (select json_agg(json_build_array(t.ticket_no, t.pax_index, t.currency, t.fare_minor, t.tax_minor, t.issued_at, t.tax_status_confirmed,
                                    (select json_agg(json_build_array(c.segment_index, c.status) order by c.segment_index)
                                       from ticket_coupons c where c.ticket_no = t.ticket_no)) order by t.ticket_no)
     from tickets t where t.order_no = o.order_no) as tix,
  (select json_agg(json_build_array(a.pax_index, a.segment_index, a.kind, a.category, a.post_order_no, a.currency, a.price_minor) order by a.id)
     from order_ancillaries a where a.order_no = o.order_no) as anc,
  (select json_agg(json_build_array(r.refund_code, r.reason,
                                    (select json_agg(rt.ticket_no) from refund_tickets rt where rt.refund_code = r.refund_code and rt.live)))
     from refund_orders r where r.order_no = o.order_no) as refunds,
  (select json_build_array(v.void_code, v.status) from void_orders v where v.order_no = o.order_no and v.status not in (4, 6)) as live_void,
  ${ancillaryCheck} as ancillary
from ${from} left join orders o on ${orderMatch}
order by b.i`;
}

/**
 * Several callers' lookups in one statement (decision 0031): parallel arrays, one element per lookup, read
 * as rows numbered by `with ordinality`; each lookup answers exactly one row (its order through the LEFT
 * JOIN, or none), in the arrays' order. Both lookups use a unique index of orders (the primary key; the
 * unique (carrier, airline_pnr)), so a lookup never matches two orders. A lone lookup runs the one-row form
 * below instead: PostgreSQL estimates `unnest` of a parameter at 10 rows in a generic plan and at the array's
 * length in a custom one, so the array form is planned anew at every execution; the one-row form settles on
 * its generic plan, and a batch pays its planning once for all its lookups.
 */
const ORDER_NO_MATCH = 'o.order_no = b.order_no and o.client_id = b.client_id';
// A scalar sub-select with LIMIT, not EXISTS: the planner may run an EXISTS correlated to the outer row as a
// hashed sub-plan over both tables whole (the generic plan without statistics did).
const ANCILLARY_CHECK = `case when o.order_no is null then (
     select true from order_ancillaries x join orders xo on xo.order_no = x.order_no
     where x.post_order_no = b.order_no and xo.client_id = b.client_id limit 1) end`;
const PNR_MATCH = 'o.carrier = b.carrier and o.airline_pnr = b.airline_pnr and o.client_id = b.client_id';

/** $1 client, $2 orderNo. */
export const CONTEXT_BY_ORDER_NO_SQL = contextSql('(select 1::bigint as i, $1::text as client_id, $2::text as order_no) as b', ORDER_NO_MATCH, ANCILLARY_CHECK);
/** $1 client, $2 airline PNR, $3 carrier (both upper case). */
export const CONTEXT_BY_PNR_SQL = contextSql('(select 1::bigint as i, $1::text as client_id, $2::text as airline_pnr, $3::text as carrier) as b', PNR_MATCH, 'null::boolean');
/** $1 client ids, $2 order numbers. */
export const CONTEXTS_BY_ORDER_NO_SQL = contextSql('unnest($1::text[], $2::text[]) with ordinality as b(client_id, order_no, i)', ORDER_NO_MATCH, ANCILLARY_CHECK);
/** $1 client ids, $2 airline PNRs, $3 carriers (both upper case). */
export const CONTEXTS_BY_PNR_SQL = contextSql('unnest($1::text[], $2::text[], $3::text[]) with ordinality as b(client_id, airline_pnr, carrier, i)', PNR_MATCH, 'null::boolean');

const contextByOrderNo = preparedQuery<ContextRow>('refund_context_by_order_no', CONTEXT_BY_ORDER_NO_SQL);
const contextByPnr = preparedQuery<ContextRow>('refund_context_by_pnr', CONTEXT_BY_PNR_SQL);
const contextsByOrderNo = preparedQuery<ContextRow>('refund_contexts_by_order_no', CONTEXTS_BY_ORDER_NO_SQL);
const contextsByPnr = preparedQuery<ContextRow>('refund_contexts_by_pnr', CONTEXTS_BY_PNR_SQL);

export type ContextLookup = { kind: 'order'; ctx: OrderContext } | { kind: 'ancillary' } | { kind: 'none' };

/** One caller's lookup of an order context: by orderNo, else by airline PNR + carrier. */
export interface ContextRef {
  clientId: string;
  orderNo?: string | null | undefined;
  airlinePNR?: string | null | undefined;
  carrier?: string | null | undefined;
}

/**
 * Lookups in one statement per kind (by orderNo, by PNR), answered in the given order. Callers never see a
 * row of another client: the client is part of each lookup's match.
 */
export async function readContexts(db: Kysely<Database>, refs: readonly ContextRef[]): Promise<ContextLookup[]> {
  const byOrder: number[] = [];
  const byPnr: number[] = [];
  refs.forEach((r, n) => (r.orderNo ? byOrder : byPnr).push(n));
  const out = new Array<ContextLookup>(refs.length);
  type Query = (p: readonly unknown[]) => CompiledQuery<ContextRow>;
  const run = async (which: number[], one: Query, many: Query, params: (r: ContextRef) => string[]) => {
    if (which.length === 0) return;
    let query: CompiledQuery<ContextRow>;
    if (which.length === 1) query = one(params(refs[which[0]!]!));
    else {
      const columns: string[][] = [];
      for (const n of which) params(refs[n]!).forEach((v, k) => (columns[k] ??= []).push(v));
      query = many(columns);
    }
    const { rows } = await db.executeQuery(query);
    if (rows.length !== which.length) throw new Error(`order context lookup answered ${rows.length} rows for ${which.length} lookups`);
    rows.forEach((row, k) => (out[which[k]!] = toLookup(row)));
  };
  await Promise.all([
    run(byOrder, contextByOrderNo, contextsByOrderNo, (r) => [r.clientId, r.orderNo!]),
    run(byPnr, contextByPnr, contextsByPnr, (r) => [r.clientId, (r.airlinePNR ?? '').toUpperCase(), (r.carrier ?? '').toUpperCase()]),
  ]);
  return out;
}

/**
 * Concurrent lookups share a statement (decision 0031): a lookup starts at once when none runs; those asked
 * while one runs go together into the next. Kept per store (the root Kysely instance).
 */
const readers = new WeakMap<Kysely<Database>, GroupCommitter<ContextRef, ContextLookup>>();

/** The caller's order with its whole refund context, in one statement; another client's order is "none". */
export async function loadContextForCaller(
  db: Kysely<Database>,
  clientId: string,
  ref: { orderNo?: string | null; airlinePNR?: string | null; carrier?: string | null },
): Promise<ContextLookup> {
  const lookup: ContextRef = { clientId, orderNo: ref.orderNo, airlinePNR: ref.airlinePNR, carrier: ref.carrier };
  // Inside a transaction the read must run on the transaction's own connection: no sharing.
  if (db.isTransaction) return (await readContexts(db, [lookup]))[0]!;
  let reader = readers.get(db);
  if (!reader) readers.set(db, (reader = new GroupCommitter((refs) => readContexts(db, refs), { maxBatch: 32 })));
  return reader.write(lookup);
}

function toLookup(row: ContextRow): ContextLookup {
  const { pax, segs, tix, anc, refunds, live_void, ancillary, i: _i, ...order } = row;
  if (order.order_no === null) return ancillary ? { kind: 'ancillary' } : { kind: 'none' };
  const date = (v: string | Date): Date => (v instanceof Date ? v : new Date(v));
  return {
    kind: 'order',
    ctx: {
      order: order,
      passengers: (pax ?? []).map(([paxIndex, type, lastName, firstName]) => ({ paxIndex, type, lastName, firstName })),
      segments: (segs ?? []).map(([index, direction, carrier, flightNumber, depAirport, arrAirport, depLocal, bookedDepLocal, depTimeZone, depAt, arrAt]) => ({
        index,
        direction,
        carrier,
        flightNumber,
        depAirport,
        arrAirport,
        depLocal,
        bookedDepLocal,
        depTimeZone: depTimeZone ?? 'UTC',
        depAt: date(depAt),
        arrAt: date(arrAt),
      })),
      tickets: (tix ?? []).map(([ticketNo, paxIndex, currency, fare, tax, issuedAt, taxStatusConfirmed, coupons]) => ({
        ticketNo,
        paxIndex,
        currency,
        fareMinor: Number(fare),
        taxMinor: Number(tax),
        issuedAt: issuedAt === null ? null : date(issuedAt),
        taxStatusConfirmed,
        coupons: (coupons ?? []).map(([segmentIndex, status]) => ({ segmentIndex, status })),
      })),
      ancillaries: (anc ?? []).map(([paxIndex, segmentIndex, kind, category, postOrderNo, currency, price]) => ({
        paxIndex,
        segmentIndex,
        kind,
        category,
        postOrderNo,
        currency,
        priceMinor: Number(price),
      })),
      liveRefunds: new Map(
        (refunds ?? []).flatMap(([refundCode, reason, ticketNos]) =>
          (ticketNos ?? []).map((ticketNo) => [ticketNo, { refundCode, reason: String(reason) }] as const),
        ),
      ),
      liveVoid: live_void ? { voidCode: String(live_void[0]), status: Number(live_void[1]) } : null,
    },
  };
}
