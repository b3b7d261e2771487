// pay.do (plan §3.8, §8.7; docs/decisions/0023): deposit (the default when paymentMethod is absent, as the
// UAT collection sends it) or pass-through card; the airline issues the tickets and the order becomes ticketed
// (2). A card is checked (Luhn, expiry by the service clock, CVV 3–4 digits, holder names) and handed to the
// airline with its paymentLimit; its last four digits are kept, and nothing else of it stored or logged. The
// airline call happens outside any transaction: the order is
// marked 1 (ticketing) first; an airline that refuses to issue puts it back to unpaid (0) and answers 411. A
// payment whose airline call timed out (406: it may have issued) or whose process died during the call is settled
// by the expiry sweep (./expiry.ts, decision 0023 amended).
import type { Kysely } from 'kysely';
import { DateTime } from 'luxon';
import { ConnectorError, type AirlineRecord, type IssuePayment, type PassThroughCard } from '../airline/connector.js';
import type { Database, PaymentMethod } from '../store/schema.js';
import { ApiError } from '../errors.js';
import { formatMinor, isExact, toMinor } from '../money/money.js';
import { findClientOrder, insertTicketsFromRecord } from '../orders/orders.js';
import { bookingOf, callOpts, STALE_CALL_MS, type BookingDeps } from './airline-calls.js';
import { orderView } from './order-view.js';
import { PAYABLE_METHODS } from './routing.js';
import { BOOKING_STATUS as S } from './statuses.js';
import { writeTicketedEvent } from './ticketed-event.js';
import type { CreditCard, PayRequest } from './wire-order.js';

const METHODS: Record<number, PaymentMethod> = { 1: 'deposit', 3: 'virtualCard', 4: 'ownAccount', 5: 'merchant' };
const METHOD_NUMBERS = new Map<string, number>(Object.entries(METHODS).map(([no, method]) => [method, Number(no)]));
/** What every answer advertises (routing.ts PAYABLE_METHODS): 4 and 5 are known methods, answered 403. */
const SUPPORTED = new Set<number>(PAYABLE_METHODS);

/** "" and null are absent (decision 0021). */
const given = (v: string | number | null | undefined) => (v === undefined || v === null || String(v).trim() === '' ? null : String(v).trim());

/**
 * Luhn check of a 12–19 digit card number (spaces and dashes allowed). No issuer's number begins with 0 (ISO/IEC
 * 7812's first digit): refused, which also refuses the all-zero number that passes Luhn (review).
 */
export function validCardNumber(text: string): string | null {
  const digits = text.replace(/[\s-]/g, '');
  if (!/^[1-9]\d{11,18}$/.test(digits)) return null;
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

/** The card's checks, each answered 400 with the field named; the card as the airline is handed it. */
function checkCard(card: CreditCard | null | undefined, now: Date): PassThroughCard {
  if (!card) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard is required for paymentMethod 3');
  const number = given(card.cardNumber);
  if (!number) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardNumber is required');
  const digits = validCardNumber(number);
  if (!digits) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardNumber is not a valid card number');
  const cvv = given(card.cardCVV);
  if (!cvv || !/^\d{3,4}$/.test(cvv)) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardCVV must be 3 or 4 digits');
  const month = given(card.cardExpireMonth);
  const yearText = given(card.cardExpireYear);
  if (!month || !/^\d{1,2}$/.test(month) || Number(month) < 1 || Number(month) > 12) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardExpireMonth must be 01-12');
  if (!yearText || !/^(\d{2}|\d{4})$/.test(yearText)) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardExpireYear must be yy or yyyy');
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  // A card is valid through the last day of its expiry month (UTC, by the service clock).
  const endOfMonth = DateTime.utc(year, Number(month), 1).endOf('month');
  if (endOfMonth.toMillis() < now.getTime()) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard has expired');
  const holderFirstName = given(card.cardHolderFirstName);
  const holderLastName = given(card.cardHolderLastName);
  if (!holderFirstName || !holderLastName) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.cardHolderFirstName and cardHolderLastName are required');
  return {
    number: digits,
    cvv,
    expiryMonth: Number(month),
    expiryYear: year,
    holderFirstName,
    holderLastName,
    billing: {
      country: given(card.cardHolderCountry),
      province: given(card.cardHolderProvince),
      city: given(card.cardHolderCity),
      postCode: given(card.cardHolderPostCode),
      address: given(card.cardHolderAddress),
    },
    reusable: card.reusable ?? null,
  };
}

/**
 * creditCard.paymentLimit: the most the card may be charged, in the order's currency (the airline's, "vendor
 * currency"); absent or null: no limit. A limit below the order's own total cannot pay it: 400 before the airline
 * is asked. The airline is handed the limit, and refuses a fare that grew above it at issue (411).
 */
function checkLimit(limit: number | null | undefined, order: { currency: string; total_minor: number }): IssuePayment['limit'] {
  if (limit === undefined || limit === null) return undefined;
  if (!Number.isFinite(limit) || limit <= 0) throw new ApiError(S.PAY_BAD_PARAMETERS, 'creditCard.paymentLimit must be a positive amount');
  if (!isExact(limit, order.currency)) throw new ApiError(S.PAY_BAD_PARAMETERS, `creditCard.paymentLimit has more decimals than ${order.currency} allows`);
  const minor = toMinor(limit, order.currency);
  if (minor < Number(order.total_minor)) {
    throw new ApiError(
      S.PAY_BAD_PARAMETERS,
      `creditCard.paymentLimit ${formatMinor(minor, order.currency)} ${order.currency} is below the order's total ${formatMinor(Number(order.total_minor), order.currency)} ${order.currency}; nothing was charged`,
    );
  }
  return { currency: order.currency, minor };
}

/**
 * The tickets the airline issued for an order being paid, recorded with the order paid (2), in one transaction
 * and only while its payment is still 'paying': pay.do and the expiry sweep's recovery (src/booking/expiry.ts) may
 * both settle one, and the second finds it done. Answers whether this call recorded them. The order.ticketed
 * webhook event is written in the same transaction (./ticketed-event.ts).
 *
 * `issuedToThisCall` (pay.do holding the airline's answer that it issued): also when the sweep, taking the call for
 * lost, moved the payment back to unpaid (or the order lapsed since) — the airline issued and charged, and its
 * answer is the truth (found by a review: a card payment outliving the sweep's limit was issued and charged while
 * the order read 0 and then -3). `last4` is then written again (the move back cleared it).
 */
export async function recordIssued(
  db: Kysely<Database>,
  orderNo: string,
  record: AirlineRecord,
  method: PaymentMethod,
  at: Date,
  issuedToThisCall?: { last4: string | null },
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const moved = await trx
      .updateTable('booking_orders')
      .set({ pay_state: 'paid', paid_at: at, paying_since: null, release_next_try_at: null, ...(issuedToThisCall ? { payment_method: method, card_last4: issuedToThisCall.last4 } : {}) })
      .where('order_no', '=', orderNo)
      .where('pay_state', 'in', issuedToThisCall ? ['paying', 'unpaid', 'expired'] : ['paying'])
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return false;
    const before = await trx.selectFrom('orders').select('status').where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    await insertTicketsFromRecord(trx, orderNo, record);
    await trx.updateTable('orders').set({ status: '2', payment_method: method, ticketed_at: at, updated_at: at }).where('order_no', '=', orderNo).execute();
    // the order.ticketed webhook event, in this transaction (decision 0022)
    await writeTicketedEvent(trx, orderNo, Number(before.status), at);
    return true;
  });
}

/**
 * An order whose payment the airline did not ticket back to unpaid (0), only while it is still 'paying' — and, given
 * `payingSince`, still the payment read then (the expiry sweep's: a later pay.do's live payment of the same order is
 * not put back by a sweep that read the earlier one; found by a review); answers whether it moved.
 */
export async function backToUnpaid(db: Kysely<Database>, orderNo: string, at: Date, payingSince?: Date): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    let q = trx
      .updateTable('booking_orders')
      .set({ pay_state: 'unpaid', paying_since: null, payment_method: null, card_last4: null })
      .where('order_no', '=', orderNo)
      .where('pay_state', '=', 'paying');
    if (payingSince) q = q.where('paying_since', '=', payingSince);
    const moved = await q.executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 0) return false;
    await trx.updateTable('orders').set({ status: '0', updated_at: at }).where('order_no', '=', orderNo).execute();
    return true;
  });
}

/**
 * 401: past the deadline. The order shows -3 once the expiry sweep has run (within seconds); until then it still
 * reads 0, so the answer says it lapses rather than that it is cancelled (a review: a query right after read 0).
 */
function deadlinePassed(lapsed: boolean): ApiError {
  return new ApiError(S.PAY_DEADLINE_PASSED, `the payment deadline (tktLimitTime) has passed; the order ${lapsed ? 'is cancelled (-3)' : 'lapses: it shows cancelled (-3) within seconds'}, order again`);
}

/**
 * What pay.do's Idempotency-Key compares of a request (its hash is stored): the body with the card's number cut to
 * its last four digits and its CVV left out — neither is kept, not even as a hash (an unkeyed hash of a card number
 * is no protection: its digits are few). Another card with the same last four digits under one key is the same
 * payment; a refused card (400, 411) leaves the key free, so a corrected one is paid under it.
 */
export function payFingerprint(body: unknown): unknown {
  const { creditCard, ...rest } = body as PayRequest;
  if (creditCard === null || creditCard === undefined || typeof creditCard !== 'object') return body;
  const { cardNumber, cardCVV: _cvv, ...card } = creditCard;
  // canonical JSON: the keys' order does not matter
  return { creditCard: { cardNumber: String(cardNumber ?? '').replace(/\D/g, '').slice(-4), ...card }, ...rest };
}

/** The success answer of an order paid: its tickets, as queryOrderDetails.do shows them. */
async function paidAnswer(deps: BookingDeps, orderNo: string, methodNo: number, last4: string | null) {
  const paid = await deps.db.selectFrom('orders').selectAll().where('order_no', '=', orderNo).executeTakeFirstOrThrow();
  const view = await orderView(deps.db, paid);
  return {
    status: 0,
    msg: 'success',
    orderNo,
    paymentMethod: methodNo,
    pnrCode: view.pnrCode,
    airlines: [paid.carrier],
    orderStatus: view.orderStatus,
    cardLast4: last4,
    paxTicketInfos: view.paxTicketInfos,
  };
}

/**
 * pay.do. `resumedFrom`: this request, under an Idempotency-Key, took the key over from an identical one that failed
 * or died before answering, at that instant (src/http/idempotency.ts): an order paid since is that request's
 * payment, answered as its success (not 404 "already paid", which told the caller whose answer was lost that its
 * payment had failed).
 */
export async function payOrder(deps: BookingDeps, clientId: string, req: PayRequest, resumedFrom: Date | null = null) {
  const now = deps.clock.now();
  const orderNo = given(req.orderNo);
  if (!orderNo) throw new ApiError(S.PAY_BAD_PARAMETERS, 'orderNo is required');
  // An order of another client is no order (800, the "order does not exist" of orderCommit.do and queries).
  const order = await findClientOrder(deps.db, clientId, orderNo);
  if (!order) throw new ApiError(S.ORDER_NOT_FOUND, 'order does not exist');
  const booking = await deps.db.selectFrom('booking_orders').selectAll().where('order_no', '=', order.order_no).executeTakeFirst();
  // A claimed order (pnr/claim.do) was never booked through order.do: nothing to pay here (decision 0023: 402; it
  // is ticketed, and answered 404 "already paid" before the check was first).
  if (!booking) throw new ApiError(S.PAY_STATE, 'the order state does not allow payment: it was not booked through order.do (a claimed order is paid at the airline)');
  if (order.status === '2' || booking.pay_state === 'paid') {
    const paidAt = booking.paid_at === null ? null : new Date(booking.paid_at);
    const method = booking.payment_method === null ? undefined : METHOD_NUMBERS.get(booking.payment_method);
    if (resumedFrom !== null && paidAt !== null && paidAt.getTime() >= resumedFrom.getTime() && method !== undefined) return paidAnswer(deps, order.order_no, method, booking.card_last4);
    throw new ApiError(S.PAY_ALREADY_PAID, 'order already paid');
  }
  if (booking.pay_state === 'paying' || order.status === '1') throw new ApiError(S.PAY_IN_PROGRESS, 'payment in progress; query the order before paying again');
  if (booking.pay_state === 'expired' || new Date(booking.payment_deadline).getTime() <= now.getTime()) throw deadlinePassed(booking.pay_state === 'expired');
  if (order.status !== '0') throw new ApiError(S.PAY_STATE, 'the order state does not allow payment');
  const methodText = given(req.paymentMethod);
  const methodNo = methodText === null ? 1 : /^\d$/.test(methodText) ? Number(methodText) : NaN;
  const method = METHODS[methodNo];
  if (!method) throw new ApiError(S.PAY_BAD_PARAMETERS, 'paymentMethod must be 1, 3, 4 or 5');
  if (!SUPPORTED.has(methodNo)) throw new ApiError(S.PAY_METHOD_UNSUPPORTED, `payment method ${methodNo} is not supported for this order`);
  const card = method === 'virtualCard' ? checkCard(req.creditCard, now) : undefined;
  const limit = card ? checkLimit(req.creditCard?.paymentLimit, order) : undefined;
  const last4 = card ? card.number.slice(-4) : null;

  // The airline's connection before the payment is claimed: a carrier without one (402) leaves the order as it is.
  const airline = bookingOf(deps.airlines, order.carrier, S.PAY_STATE);
  // Intent first: only one payment of the order gets past this line (and none once the expiry took it). The order
  // shows 1 (ticketing) in the same transaction: a process dying between the two left it 0 with its payment
  // options while pay.do answered 406 (review).
  const claimed = await deps.db.transaction().execute(async (trx) => {
    const taken = await trx
      .updateTable('booking_orders')
      .set({ pay_state: 'paying', paying_since: now, payment_method: method, card_last4: last4 })
      .where('order_no', '=', order.order_no)
      .where('pay_state', '=', 'unpaid')
      .where('payment_deadline', '>', now)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return false;
    await trx.updateTable('orders').set({ status: '1', updated_at: now }).where('order_no', '=', order.order_no).execute();
    return true;
  });
  if (!claimed) {
    const current = await deps.db.selectFrom('booking_orders').select(['pay_state', 'payment_deadline']).where('order_no', '=', order.order_no).executeTakeFirstOrThrow();
    if (current.pay_state === 'expired' || new Date(current.payment_deadline).getTime() <= now.getTime()) throw deadlinePassed(current.pay_state === 'expired');
    throw new ApiError(current.pay_state === 'paid' ? S.PAY_ALREADY_PAID : S.PAY_IN_PROGRESS, current.pay_state === 'paid' ? 'order already paid' : 'payment in progress; query the order before paying again');
  }

  let record;
  try {
    record = await airline.issueTickets(order.carrier, order.airline_pnr!, { method, idempotencyKey: order.order_no, card, limit }, callOpts());
  } catch (err) {
    // An airline that answered has not issued: back to unpaid. One that did not answer in time may have issued:
    // the payment stays in progress and the expiry sweep settles it once no call can still be under way (it asks
    // again under the same idempotency key: tickets issued once at most). An error of ours is left to it too.
    if (!(err instanceof ConnectorError)) throw err;
    if (err.kind === 'timeout') {
      const minutes = Math.ceil(STALE_CALL_MS / 60_000) + 1;
      throw new ApiError(
        S.PAY_IN_PROGRESS,
        `payment in progress: the airline did not answer in time (the tickets may be issued); the service settles the payment within about ${minutes} minutes (tickets issued once at most, or the order back to unpaid): query the order before paying again`,
      );
    }
    await backToUnpaid(deps.db, order.order_no, deps.clock.now());
    throw new ApiError(S.PAY_FAILED, `the airline could not issue the tickets (${err.kind}); nothing was charged and the order is still unpaid`);
  }

  if (await recordIssued(deps.db, order.order_no, record, method, deps.clock.now(), { last4 })) await deps.lookToBook.recordPaidOrder(clientId);
  else {
    // settled meanwhile by the expiry sweep's recovery (this call outlived its time): paid with the same tickets, or not
    const settled = await deps.db.selectFrom('booking_orders').select('pay_state').where('order_no', '=', order.order_no).executeTakeFirstOrThrow();
    if (settled.pay_state !== 'paid') throw new ApiError(S.PAY_IN_PROGRESS, 'payment in progress; query the order before paying again');
  }

  return paidAnswer(deps, order.order_no, methodNo, last4);
}
