// An order's context version moves at most once per transaction (decision 0030, amended 2026-11-26; issue 7).
//
// A kept refund context is trusted only while its order's `ctx_version` equals the one it was read at
// (src/refunds/offers.ts). Other transactions never see a version between two of a transaction's writes, so one
// move per writing transaction is all the check needs. Yet a submission's statement moved each order twice
// (the refund_orders insert's trigger, then refund_tickets'), and creating an order with its passengers,
// segments, tickets, coupons and ancillaries updated the brand-new orders row once per table.
//
// Every write to an orders row moves its version (the BEFORE UPDATE trigger of migration 0016, or the bump
// itself), so a row whose current version this transaction wrote (`xmin` is the transaction's own id) has
// moved already, or was inserted by it and read by nobody yet: the statement-level bumps now skip it. Under a
// savepoint the row's xmin is the subtransaction's id, and the bump simply happens again.
import { sql, type Kysely } from 'kysely';
import { bump, DIRECT, VIA } from './0019_triggers_read_by_key.js';

const NOT_MOVED_BY_THIS_TRANSACTION = ' and xmin <> pg_current_xact_id()::xid';

export async function up(db: Kysely<unknown>): Promise<void> {
  const parts = [
    ...DIRECT.map((t) => bump(t, 'select order_no from changed_rows', true, NOT_MOVED_BY_THIS_TRANSACTION)),
    ...Object.entries(VIA).map(([t, orderNos]) => bump(t, orderNos, true, NOT_MOVED_BY_THIS_TRANSACTION)),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const parts = [...DIRECT.map((t) => bump(t, 'select order_no from changed_rows', true)), ...Object.entries(VIA).map(([t, orderNos]) => bump(t, orderNos, true))];
  await sql.raw(parts.join('\n')).execute(db);
}
