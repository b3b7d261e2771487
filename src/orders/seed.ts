// Sandbox: bookings the world says a client made through postbook exist as that client's orders.
import type { Kysely } from 'kysely';
import type { AirlineRecord } from '../airline/connector.js';
import type { Database } from '../store/schema.js';
import { isUniqueViolation } from '../store/errors.js';
import { findOrderByRecord, insertOrderFromRecord, newOrderNo } from './orders.js';

/**
 * Creates the missing orders (source 'booking') and brings the times of existing ones in line with the world.
 * A world's relative times (`+3d 10:30`) are resolved at every start, so a booking's flights move with the
 * calendar ("the demo never goes stale", docs/world.md); its order, stored on an earlier day, must move with
 * them or every refund request naming today's flight dates would miss its segments. Only times are brought
 * in line (segments' departure and arrival, tickets' issue, the order's ticketing); everything the service
 * itself wrote (refunds, offers, coupon changes) stays. Returns how many orders were created.
 */
export async function seedBookedOrders(db: Kysely<Database>, records: AirlineRecord[], now: Date): Promise<number> {
  let created = 0;
  for (const record of records) {
    if (!record.bookedByClient) continue;
    const existing = await findOrderByRecord(db, record.carrier, record.pnr);
    if (existing) {
      if (existing.source === 'booking') await alignOrderTimes(db, existing.order_no, record);
      continue;
    }
    try {
      await db.transaction().execute((trx) =>
        insertOrderFromRecord(trx, { orderNo: newOrderNo(), clientId: record.bookedByClient!, source: 'booking', record, now }),
      );
      created++;
    } catch (err) {
      // Another process seeded it at the same moment.
      if (!isUniqueViolation(err)) throw err;
    }
  }
  return created;
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
  await db.transaction().execute(async (trx) => {
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
