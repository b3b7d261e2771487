// Sandbox: bookings the world says a client made through postbook exist as that client's orders.
import type { Kysely } from 'kysely';
import type { AirlineRecord } from '../airline/connector.js';
import type { Database } from '../store/schema.js';
import { constraintOf, isUniqueViolation } from '../store/errors.js';
import { inTransaction, undoableAlone } from '../store/transaction.js';
import { findOrderByRecord, insertOrderFromRecord, newOrderNo } from './orders.js';

/** A world booking that cannot become an order: a ticket number of it belongs to another order already. */
export class SeedConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SeedConflict';
  }
}

/** Why a booking that would become an order cannot: a ticket number of it belongs to another order already. */
export async function ticketConflict(db: Kysely<Database>, record: AirlineRecord): Promise<SeedConflict | null> {
  if (record.tickets.length === 0) return null;
  const taken = await db
    .selectFrom('tickets')
    .innerJoin('orders', 'orders.order_no', 'tickets.order_no')
    .select(['tickets.ticket_no', 'orders.carrier', 'orders.airline_pnr'])
    .where('tickets.ticket_no', 'in', record.tickets.map((t) => t.ticketNo))
    // the same booking's order, written meanwhile by another process starting at the same moment: no conflict
    .where((eb) => eb.or([eb('orders.carrier', '!=', record.carrier), eb('orders.airline_pnr', 'is', null), eb('orders.airline_pnr', '!=', record.pnr)]))
    .executeTakeFirst();
  return taken
    ? new SeedConflict(
        `booking ${record.carrier} ${record.pnr} cannot become an order: its ticket ${taken.ticket_no} belongs to the order of ${taken.carrier} ${taken.airline_pnr ?? '(no PNR)'} (a booking whose PNR changed keeps no ticket numbers of its old one)`,
      )
    : null;
}

/**
 * Creates the missing orders (source 'booking') and brings the times of existing ones — seeded or claimed — in line
 * with the world;
 * in `db`'s transaction when it is one (a world reload: all of it or nothing).
 * A world's relative times (`+3d 10:30`) are resolved at every start, so a booking's flights move with the
 * calendar ("the demo never goes stale", docs/world.md); its order, stored on an earlier day, must move with
 * them or every refund request naming today's flight dates would miss its segments. Only times are brought
 * in line (segments' departure and arrival, tickets' issue, the order's ticketing); everything the service
 * itself wrote (refunds, offers, coupon changes) stays. Returns how many orders were created. A booking that
 * cannot become an order (SeedConflict) is handed to `onConflict` and skipped (a start: the world file and the
 * store disagree, said in the log), or thrown without it.
 */
export async function seedBookedOrders(db: Kysely<Database>, records: AirlineRecord[], now: Date, onConflict?: (conflict: SeedConflict) => void): Promise<number> {
  let created = 0;
  const existingOrders = await ordersOfRecords(db, records);
  for (const record of records) {
    const existing = existingOrders.get(`${record.carrier}/${record.pnr}`);
    if (existing) {
      // a world booking's order, seeded or claimed (pnr/claim.do): it moves with the world's calendar either way (a
      // review: a claimed one kept the day of its claim, and refunds naming today's flights answered 8041). An order
      // booked through the chain (its booking_orders row) under a PNR a later world file reuses is not the world's:
      // left as it is.
      if (!existing.chain) await alignOrderTimes(db, existing.orderNo, record);
      continue;
    }
    if (!record.bookedByClient) continue;
    const conflict = await ticketConflict(db, record);
    if (conflict) {
      if (!onConflict) throw conflict;
      onConflict(conflict);
      continue;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        // inside a caller's transaction (a world reload), a clash undoes this order alone: it is drawn again
        await undoableAlone(db, (trx) => insertOrderFromRecord(trx, { orderNo: newOrderNo(), clientId: record.bookedByClient!, source: 'booking', record, now }));
        created++;
        break;
      } catch (err) {
        // A random order number another order has: another one.
        if (isUniqueViolation(err) && constraintOf(err) === 'orders_pkey' && attempt < 5) continue;
        // Another process seeded it at the same moment: its order is there now. Any other conflict is this one's.
        if (!isUniqueViolation(err) || constraintOf(err) !== 'orders_airline_record' || !(await findOrderByRecord(db, record.carrier, record.pnr))) throw err;
        break;
      }
    }
  }
  return created;
}

/** The orders the records' carrier and PNR name already, by `carrier/pnr`, and whether each was booked through the chain: one read. */
async function ordersOfRecords(db: Kysely<Database>, records: readonly AirlineRecord[]): Promise<Map<string, { orderNo: string; chain: boolean }>> {
  const found = new Map<string, { orderNo: string; chain: boolean }>();
  if (records.length === 0) return found;
  const rows = await db
    .selectFrom('orders as o')
    .leftJoin('booking_orders as b', 'b.order_no', 'o.order_no')
    .select(['o.order_no', 'o.carrier', 'o.airline_pnr', 'b.order_no as chain_order'])
    .where('o.carrier', 'in', [...new Set(records.map((r) => r.carrier))])
    .where('o.airline_pnr', 'in', [...new Set(records.map((r) => r.pnr))])
    .execute();
  for (const r of rows) found.set(`${r.carrier}/${r.airline_pnr}`, { orderNo: r.order_no, chain: r.chain_order !== null });
  return found;
}

const sameInstant = (a: Date | null, b: Date | null | undefined) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** Updates the segment, ticket and order times of a seeded order that differ from its world record. */
async function alignOrderTimes(db: Kysely<Database>, orderNo: string, record: AirlineRecord): Promise<void> {
  const segments = await db.selectFrom('order_segments').select(['segment_index', 'dep_local', 'arr_local', 'dep_at', 'arr_at', 'booked_dep_local']).where('order_no', '=', orderNo).execute();
  const tickets = await db.selectFrom('tickets').select(['ticket_no', 'issued_at']).where('order_no', '=', orderNo).execute();
  const stale = record.segments.filter((s) => {
    const row = segments.find((r) => r.segment_index === s.index);
    return row && (row.dep_local !== s.depLocal || row.arr_local !== s.arrLocal || row.booked_dep_local !== s.bookedDepLocal || !sameInstant(row.dep_at, s.depAt) || !sameInstant(row.arr_at, s.arrAt));
  });
  const reissued = record.tickets.filter((t) => {
    const row = tickets.find((r) => r.ticket_no === t.ticketNo);
    return row && !sameInstant(row.issued_at, t.issuedAt);
  });
  if (stale.length === 0 && reissued.length === 0) return;
  await inTransaction(db, async (trx) => {
    for (const s of stale) {
      await trx
        .updateTable('order_segments')
        .set({ dep_local: s.depLocal, arr_local: s.arrLocal, dep_at: s.depAt, arr_at: s.arrAt, booked_dep_local: s.bookedDepLocal })
        .where('order_no', '=', orderNo)
        .where('segment_index', '=', s.index)
        .execute();
    }
    for (const t of reissued) {
      await trx.updateTable('tickets').set({ issued_at: t.issuedAt }).where('ticket_no', '=', t.ticketNo).where('order_no', '=', orderNo).execute();
    }
    if (record.status === 'Ticketed' && record.tickets[0]?.issuedAt) {
      await trx.updateTable('orders').set({ ticketed_at: record.tickets[0].issuedAt }).where('order_no', '=', orderNo).execute();
    }
  });
}
