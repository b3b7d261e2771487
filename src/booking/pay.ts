// pay.do: deposit or pass-through virtual card; the airline issues the tickets and the order becomes
// ticketed ("2"). A card number is checked, its last four digits kept, and nothing else of it stored or
// logged. The airline call happens outside any transaction: the order is marked "1" (ticketing) first.
import { ConnectorError } from '../airline/connector.js';
import type { PaymentMethod } from '../store/schema.js';
import { ApiError } from '../errors.js';
import { findClientOrder, insertTicketsFromRecord } from '../orders/orders.js';
import { bookingOf, callOpts, type BookingDeps } from './airline-calls.js';
import { BOOKING_STATUS as S } from './statuses.js';
import type { PayRequest } from './wire.js';

const METHODS: Record<number, PaymentMethod> = { 1: 'deposit', 3: 'virtualCard', 4: 'ownAccount', 5: 'merchant' };
const SUPPORTED = new Set([1, 3]);

/** Luhn check of a 12–19 digit card number (spaces and dashes allowed). */
export function validCardNumber(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return null;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0 ? digits : null;
}

export async function payOrder(deps: BookingDeps, clientId: string, req: PayRequest) {
  const now = deps.clock.now();
  const order = await findClientOrder(deps.db, clientId, req.orderNo);
  if (!order) throw new ApiError(S.ORDER_NOT_FOUND, 'order does not exist');
  const booking = await deps.db.selectFrom('booking_orders').selectAll().where('order_no', '=', order.order_no).executeTakeFirst();
  if (order.status === '2' || order.status === '1' || booking?.pay_state === 'paid') throw new ApiError(S.PAY_ALREADY_PAID, 'order already paid');
  if (!booking || order.status !== '0') throw new ApiError(S.PAY_STATE, 'the order state does not allow payment');
  if (booking.pay_state === 'paying') throw new ApiError(S.PAY_IN_PROGRESS, 'payment in progress');
  if (new Date(booking.payment_deadline).getTime() < now.getTime()) throw new ApiError(S.PAY_DEADLINE_PASSED, 'payment deadline passed; order again');
  const method = METHODS[req.paymentMethod];
  if (!method) throw new ApiError(S.PAY_BAD_PARAMETERS, 'paymentMethod must be 1, 3, 4 or 5');
  if (!SUPPORTED.has(req.paymentMethod)) throw new ApiError(S.PAY_METHOD_UNSUPPORTED, `payment method ${req.paymentMethod} is not supported`);
  let last4: string | null = null;
  if (method === 'virtualCard') {
    const digits = req.creditCard ? validCardNumber(req.creditCard.cardNumber) : null;
    if (!digits) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardNumber is missing or not a valid card number');
    last4 = digits.slice(-4);
  }

  // Intent first: only one payment of the order gets past this line.
  const claimed = await deps.db
    .updateTable('booking_orders')
    .set({ pay_state: 'paying', payment_method: method, card_last4: last4 })
    .where('order_no', '=', order.order_no)
    .where('pay_state', '=', 'unpaid')
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) === 0) throw new ApiError(S.PAY_IN_PROGRESS, 'payment in progress');
  await deps.db.updateTable('orders').set({ status: '1', updated_at: now }).where('order_no', '=', order.order_no).execute();

  let record;
  try {
    record = await bookingOf(deps.airlines, order.carrier).issueTickets(order.carrier, order.airline_pnr!, { method, idempotencyKey: order.order_no }, callOpts());
  } catch (err) {
    await deps.db.updateTable('booking_orders').set({ pay_state: 'unpaid', payment_method: null, card_last4: null }).where('order_no', '=', order.order_no).execute();
    await deps.db.updateTable('orders').set({ status: '0', updated_at: deps.clock.now() }).where('order_no', '=', order.order_no).execute();
    if (err instanceof ConnectorError) throw new ApiError(S.AIRLINE_ERROR, `the airline could not issue the tickets (${err.kind}); the order is still unpaid, pay again`);
    throw err;
  }

  const done = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await insertTicketsFromRecord(trx, order.order_no, record);
    await trx.updateTable('orders').set({ status: '2', payment_method: method, ticketed_at: done, updated_at: done }).where('order_no', '=', order.order_no).execute();
    await trx.updateTable('booking_orders').set({ pay_state: 'paid', paid_at: done }).where('order_no', '=', order.order_no).execute();
  });
  await deps.lookToBook.recordPaidOrder(clientId);

  return {
    status: 0,
    msg: 'success',
    orderNo: order.order_no,
    orderStatus: '2',
    pnrCode: record.pnr,
    cardLast4: last4,
    paxTicketInfos: record.passengers.map((p) => ({
      name: `${p.lastName}/${p.firstName}`,
      passengerType: p.type === 'ADT' ? 0 : p.type === 'CHD' ? 1 : 2,
      ticketNos: record.tickets.filter((t) => t.paxRef === p.ref).map((t) => t.ticketNo),
    })),
  };
}
