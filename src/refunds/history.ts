// One refund as an operator reads it (`postbook refunds show`): the refund order and every status change
// with its time and cause, oldest first.
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export interface RefundHistory {
  refundCode: string;
  orderNo: string;
  clientId: string;
  status: number;
  reason: string;
  path: string;
  refundMethod: string;
  currency: string;
  estimatedRefundMinor: number;
  actualRefundMinor: number | null;
  cancelReason: string | null;
  createdAt: Date;
  changes: Array<{ from: number | null; to: number; at: Date; cause: string }>;
}

export async function refundHistory(db: Kysely<Database>, refundCode: string): Promise<RefundHistory | null> {
  const r = await db.selectFrom('refund_orders').selectAll().where('refund_code', '=', refundCode).executeTakeFirst();
  if (!r) return null;
  const changes = await db
    .selectFrom('refund_status_history')
    .select(['from_status', 'to_status', 'at', 'cause'])
    .where('refund_code', '=', refundCode)
    .orderBy('id')
    .execute();
  return {
    refundCode: r.refund_code,
    orderNo: r.order_no,
    clientId: r.client_id,
    status: r.status,
    reason: r.reason,
    path: r.path,
    refundMethod: r.refund_method,
    currency: r.currency,
    estimatedRefundMinor: Number(r.estimated_refund_minor),
    actualRefundMinor: r.actual_refund_minor === null ? null : Number(r.actual_refund_minor),
    cancelReason: r.cancel_reason,
    createdAt: new Date(r.created_at),
    changes: changes.map((c) => ({ from: c.from_status, to: c.to_status, at: new Date(c.at), cause: c.cause })),
  };
}
