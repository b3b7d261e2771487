// order.do's airline booking between the call and the order row (decision 0046). The airline holds seats once it
// books; the order row, whose expiry releases them, is written after. An attempt row is written before the call
// and removed in the order's transaction, so a hold the service made is always named by one of the two: an order
// (released by the expiry when unpaid) or an attempt. A booking whose order could not be written is released at
// once; one that could not be released then, one whose call timed out (the airline may have booked) and one
// whose process died are settled by the expiry sweep once older than any airline call (settleStaleAttempts).
import type { Kysely, Transaction } from 'kysely';
import { ConnectorError, type AirlineDirectory, type BookingRequest } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { callOpts } from './airline-calls.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Written before the airline is called: the request as sent, its idempotency key the order number. */
export async function startAttempt(db: Db, request: BookingRequest, now: Date): Promise<void> {
  await db
    .insertInto('booking_attempts')
    .values({ order_no: request.idempotencyKey, client_id: request.clientId, carrier: request.carrier, request: JSON.stringify(request), started_at: now, recovering_since: null })
    .execute();
}

/** Nothing was booked (the airline refused, or answered a new price): the attempt goes. */
export async function dropAttempt(db: Db, orderNo: string): Promise<void> {
  await db.deleteFrom('booking_attempts').where('order_no', '=', orderNo).execute();
}

/**
 * In the order's transaction: the attempt becomes the order. False when the expiry sweep took it first (the call
 * outlived an airline call's time; the sweep releases its hold), and the order must then not be recorded.
 */
export async function attemptBecomesOrder(trx: Transaction<Database>, orderNo: string): Promise<boolean> {
  const gone = await trx.deleteFrom('booking_attempts').where('order_no', '=', orderNo).where('recovering_since', 'is', null).executeTakeFirst();
  return Number(gone.numDeletedRows) === 1;
}

export interface AttemptDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * The airline's hold of an attempt released and the attempt removed: the booking asked again under the attempt's
 * idempotency key (the airline answers the booking it made, or books now: either way it is then released; a
 * booking it refuses made nothing). Answers true when settled; false when the airline did not answer (the
 * attempt stays for the next sweep). Logs the order number and the outcome only: the request holds names.
 */
export async function releaseAttempt(deps: AttemptDeps, orderNo: string, carrier: string, request: BookingRequest): Promise<boolean> {
  const booking = deps.airlines.forCarrier(carrier)?.booking;
  try {
    if (booking) {
      const answer = await booking.book(request, callOpts());
      if (answer.ok) {
        const outcome = await booking.release(carrier, answer.record.pnr, callOpts());
        if (outcome === 'ticketed') deps.log.warn({ orderNo }, 'an order.do booking without an order is ticketed at the airline; not released');
        else deps.log.info({ orderNo }, 'an order.do booking without an order released at the airline');
      }
    } else deps.log.warn({ orderNo, carrier }, 'an order.do booking without an order: the carrier has no booking connector now; nothing to release');
  } catch (err) {
    if (!(err instanceof ConnectorError) || err.retryable || err.kind !== 'rejected') {
      deps.log.warn({ orderNo, err: err instanceof Error ? err.message : String(err) }, 'an order.do booking without an order: the airline did not answer; will try again');
      return false;
    }
    deps.log.warn({ orderNo, reason: err.kind }, 'an order.do booking without an order: the airline refused; nothing held');
  }
  await dropAttempt(deps.db, orderNo);
  return true;
}

/**
 * Attempts older than `staleMs` (no order.do is under way for them any more): each is taken (the order's
 * transaction then refuses it) and its hold released. Answers the order numbers settled.
 */
export async function settleStaleAttempts(deps: AttemptDeps, staleMs: number, batch: number): Promise<string[]> {
  const now = deps.clock.now();
  const stale = await deps.db
    .selectFrom('booking_attempts')
    .select(['order_no', 'carrier', 'request'])
    .where('started_at', '<=', new Date(now.getTime() - staleMs))
    .orderBy('started_at')
    .limit(batch)
    .execute();
  const settled: string[] = [];
  for (const a of stale) {
    const taken = await deps.db
      .updateTable('booking_attempts')
      .set((eb) => ({ recovering_since: eb.fn.coalesce('recovering_since', eb.val(now)) }))
      .where('order_no', '=', a.order_no)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) continue; // its order was recorded meanwhile
    if (await releaseAttempt(deps, a.order_no, a.carrier, a.request as BookingRequest)) settled.push(a.order_no);
  }
  return settled;
}
