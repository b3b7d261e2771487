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

// The context query (one statement per lookup or per batch of concurrent lookups) is defined in the migration that
// last replaced its batch forms, functions on a generic plan (decision 0036): the order read by its key alone (decision 0066).
export { CONTEXT_BY_ORDER_NO_SQL, CONTEXT_BY_PNR_SQL, CONTEXTS_BY_ORDER_NO_SQL, CONTEXTS_BY_PNR_SQL } from '../store/migrations/0048_orders_read_by_key.js';
import { CONTEXT_BY_ORDER_NO_SQL, CONTEXT_BY_PNR_SQL } from '../store/migrations/0048_orders_read_by_key.js';
/**
 * A batch of lookups (decision 0031) through the functions of migrations 0029 and 0048, which run CONTEXTS_BY_ORDER_NO_SQL and
 * CONTEXTS_BY_PNR_SQL on their generic plans (decision 0036); answered in the arrays' order.
 */
export const CONTEXTS_BY_ORDER_NO_CALL = 'select * from refund_contexts_by_order_no($1::text[], $2::text[]) order by i';
export const CONTEXTS_BY_PNR_CALL = 'select * from refund_contexts_by_pnr($1::text[], $2::text[], $3::text[]) order by i';

const contextByOrderNo = preparedQuery<ContextRow>('refund_context_by_order_no', CONTEXT_BY_ORDER_NO_SQL);
const contextByPnr = preparedQuery<ContextRow>('refund_context_by_pnr', CONTEXT_BY_PNR_SQL);
const contextsByOrderNo = preparedQuery<ContextRow>('refund_contexts_by_order_no', CONTEXTS_BY_ORDER_NO_CALL);
const contextsByPnr = preparedQuery<ContextRow>('refund_contexts_by_pnr', CONTEXTS_BY_PNR_CALL);

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
