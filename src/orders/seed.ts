// Sandbox: bookings the world says a client made through postbook exist as that client's orders.
import type { Kysely } from 'kysely';
import type { AirlineRecord } from '../airline/connector.js';
import type { Database } from '../store/schema.js';
import { isUniqueViolation } from '../store/errors.js';
import { findOrderByRecord, insertOrderFromRecord, newOrderNo } from './orders.js';

/** Creates the missing orders (source 'booking'); existing ones are left as they are. Returns how many. */
export async function seedBookedOrders(db: Kysely<Database>, records: AirlineRecord[], now: Date): Promise<number> {
  let created = 0;
  for (const record of records) {
    if (!record.bookedByClient) continue;
    if (await findOrderByRecord(db, record.carrier, record.pnr)) continue;
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
