// queryVoidOrders.do (docs/voids.md): the caller's void orders of one order, newest first, found by voidCode
// or by the order. Reads void_orders (each with its offer, whose quote it answers: decision 0058) only: a refund
// order never appears here, a void never in queryRefundOrders.do.
import { sql, type Selectable } from 'kysely';
import { ApiError } from '../errors.js';
import { toAmount } from '../money/money.js';
import { findCallerOrder } from '../refunds/prepare.js';
import type { VoidOrdersTable } from '../store/schema.js';
import type { VoidCaller, VoidDeps } from './deps.js';
import { quoteWire, type VoidQuote } from './quote.js';
import { VOID_STATUS as S } from './statuses.js';
import type { QueryVoidOrdersRequest, QueryVoidOrdersResponse, VoidOrderWire } from './wire.js';

/** A void as queryVoidOrders.do answers it: `quote` is its offer's, or its own for a void stored before decision 0058. */
export function voidOrderToWire(row: Selectable<VoidOrdersTable> & { quote: unknown }): VoidOrderWire {
  return Object.assign(quoteWire(row.quote as VoidQuote), {
    voidCode: row.void_code,
    voidOfferId: row.offer_id,
    voidStatus: row.status,
    cancelReason: row.cancel_reason,
    actualRefundAmount: row.actual_refund_minor === null ? null : toAmount(Number(row.actual_refund_minor), row.currency),
    createdTime: row.created_at.toISOString(),
    updatedTime: row.updated_at.toISOString(),
    completedDate: row.completed_on,
  });
}

export async function queryVoids(deps: VoidDeps, caller: VoidCaller, req: QueryVoidOrdersRequest): Promise<QueryVoidOrdersResponse> {
  let orderNo: string;
  if (!req.orderNo && !(req.airlinePNR && req.carrier)) {
    if (!req.voidCode) throw new ApiError(S.INVALID, 'invalid request: identify the void by voidCode, or the order by orderNo (or airlinePNR with carrier)');
    const row = await deps.db.selectFrom('void_orders').select('order_no').where('void_code', '=', req.voidCode).where('client_id', '=', caller.clientId).executeTakeFirst();
    if (!row) throw new ApiError(S.ORDER_NOT_FOUND, 'void not found; check the voidCode');
    orderNo = row.order_no;
  } else {
    orderNo = (await findCallerOrder(deps, caller, req)).order_no;
  }
  // the quote: the used offer's (decision 0058), a void stored before holds its own in `details`
  let q = deps.db
    .selectFrom('void_orders as v')
    .innerJoin('void_offers as o', 'o.offer_id', 'v.offer_id')
    .selectAll('v')
    .select(sql<unknown>`case when v.details ? 'orderNo' then v.details else o.quote end`.as('quote'))
    .where('v.order_no', '=', orderNo)
    .where('v.client_id', '=', caller.clientId);
  if (req.voidCode) q = q.where('v.void_code', '=', req.voidCode);
  const rows = await q.orderBy('v.created_at', 'desc').orderBy('v.void_code', 'desc').execute();
  return { status: S.OK, msg: 'success', voidOrders: rows.map(voidOrderToWire) };
}
