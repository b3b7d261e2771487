// The `order.ticketed` webhook event (docs/webhooks.md "Events", decision 0022): written to the outbox
// (webhook_events) in the transaction that records an order of the booking chain as ticketed, so it is never lost
// and never sent for a rolled-back payment, and only for a client with a webhook URL at that moment (the rule of the
// refund and void triggers, migrations 0009 and 0011). Its data is a snapshot of the passengers' ticket parts as
// queryOrderDetails.do answers them (order-view.ts): the body is made from the row, the same bytes every attempt.
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { orderView } from './order-view.js';

/** Writes the event of `orderNo` having become ticketed (2) from `fromStatus`; none when its client has no URL. */
export async function writeTicketedEvent(trx: Transaction<Database>, orderNo: string, fromStatus: number, at: Date): Promise<void> {
  const order = await trx.selectFrom('orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();
  const client = await trx.selectFrom('clients').select('webhook_url').where('client_id', '=', order.client_id).executeTakeFirst();
  if (!client || client.webhook_url === null) return;
  const view = await orderView(trx, order);
  const paxTicketInfos = view.paxTicketInfos.map((p) => ({ name: p.name, passengerType: p.passengerType, ticketNos: p.ticketNos, airlinePNRs: p.airlinePNRs, ancillaries: p.ancillaries ?? [] }));
  await trx
    .insertInto('webhook_events')
    .values({
      client_id: order.client_id,
      type: 'order.ticketed',
      subject: orderNo,
      order_no: orderNo,
      from_status: fromStatus,
      to_status: view.orderStatus,
      cancel_reason: null,
      data: JSON.stringify({ paxTicketInfos }),
      occurred_at: at,
      next_attempt_at: at,
    })
    .execute();
}
