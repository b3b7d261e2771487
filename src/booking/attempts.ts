// order.do's airline booking between the call and the order row (decision 0046). The airline holds seats once it
// books; the order row, whose expiry releases them, is written after. An attempt row is written before the call
// and removed in the order's transaction, so a hold the service made is always named by one of the two: an order
// (released by the expiry when unpaid) or an attempt. A booking whose order could not be written is released at
// once; one that could not be released then, one whose call timed out (the airline may have booked) and one
// whose process died are settled by the expiry sweep once older than any airline call (settleStaleAttempts).
import { sql, type Kysely, type Transaction } from 'kysely';
import { ConnectorError, type AirlineDirectory, type BookingRequest } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { callOpts, STALE_CALL_MS } from './airline-calls.js';

type Db = Kysely<Database> | Transaction<Database>;

/** The sweep's wait after the airline did not answer an attempt's release: 1, 2, 4 … minutes, at most an hour. */
export const attemptBackoffMs = (tries: number) => Math.min(60_000 * 2 ** Math.max(0, tries - 1), 3_600_000);

/**
 * Written before the airline is called: the request as sent (its idempotency key is the order number). False, and
 * nothing written, when the number is taken already, by an order or by another attempt (two processes drew it in the
 * same millisecond, decision 0061): the caller draws another.
 */
export async function startAttempt(db: Db, request: BookingRequest, now: Date): Promise<boolean> {
  const written = await db
    .insertInto('booking_attempts')
    .columns(['order_no', 'client_id', 'carrier', 'request', 'started_at', 'next_try_at', 'recovering_since'])
    .expression(
      db
        .selectNoFrom((eb) => [
          eb.val(request.idempotencyKey).as('order_no'),
          eb.val(request.clientId).as('client_id'),
          eb.val(request.carrier).as('carrier'),
          eb.val(JSON.stringify(request)).as('request'),
          eb.val(now).as('started_at'),
          eb.val(new Date(now.getTime() + STALE_CALL_MS)).as('next_try_at'),
          eb.lit(null).as('recovering_since'),
        ])
        .where((eb) => eb.not(eb.exists(eb.selectFrom('orders').select('order_no').where('order_no', '=', request.idempotencyKey)))),
    )
    .onConflict((oc) => oc.column('order_no').doNothing())
    .executeTakeFirst();
  return written.numInsertedOrUpdatedRows === 1n;
}

/** Nothing was booked (the airline refused, or answered a new price): the attempt goes. */
export async function dropAttempt(db: Db, orderNo: string): Promise<void> {
  await db.deleteFrom('booking_attempts').where('order_no', '=', orderNo).execute();
}

/**
 * In the order's transaction: the attempt becomes the order. False when it was taken to be released first (the
 * expiry sweep: the call outlived an airline call's time), and the order must then not be recorded.
 */
export async function attemptBecomesOrder(trx: Transaction<Database>, orderNo: string): Promise<boolean> {
  const gone = await trx.deleteFrom('booking_attempts').where('order_no', '=', orderNo).where('recovering_since', 'is', null).executeTakeFirst();
  return Number(gone.numDeletedRows) === 1;
}

/**
 * Takes the attempt to release its booking: false when there is none (its order was recorded: an order's commit
 * whose answer was lost, or the sweep's read of an attempt whose order.do then finished), so nothing is released
 * that an order names. One statement on the row: the order's transaction (which removes only an attempt not
 * taken) and this one exclude each other on its lock. `again`: the sweep takes an attempt taken before (by a
 * sweep or an order.do that stopped before settling it); order.do's own release leaves one the sweep holds.
 */
export async function takeAttempt(db: Db, orderNo: string, now: Date, again: boolean): Promise<boolean> {
  let q = db
    .updateTable('booking_attempts')
    .set((eb) => ({ recovering_since: eb.fn.coalesce('recovering_since', eb.val(now)) }))
    .where('order_no', '=', orderNo);
  if (!again) q = q.where('recovering_since', 'is', null);
  return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
}

export interface AttemptDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/** What became of a taken attempt: settled (removed), or the airline did not answer (`kind`: the connector's). */
export type ReleaseOutcome = { settled: true } | { settled: false; kind: string };

/**
 * The airline's hold of a taken attempt released and the attempt removed: the booking asked again under the
 * attempt's idempotency key (the airline answers the booking it made, or books now: either way it is released
 * then; a booking it refuses made nothing). An airline that does not answer leaves the attempt (the caller backs
 * it off). Logs the order number, the airline's PNR and the failure's kind only: the request holds names, and a
 * connector's message may echo them.
 */
export async function releaseAttempt(deps: AttemptDeps, orderNo: string, carrier: string, request: BookingRequest): Promise<ReleaseOutcome> {
  const booking = deps.airlines.forCarrier(carrier)?.booking;
  if (!booking) {
    deps.log.warn({ orderNo, carrier }, 'an order.do booking without an order: the carrier has no booking connector now; nothing to release here');
    await dropAttempt(deps.db, orderNo);
    return { settled: true };
  }
  let pnr: string | null = null;
  try {
    const answer = await booking.book(request, callOpts());
    if (answer.ok) {
      pnr = answer.record.pnr;
      const outcome = await booking.release(carrier, pnr, callOpts());
      if (outcome === 'ticketed') deps.log.warn({ orderNo, pnr }, 'an order.do booking without an order is ticketed at the airline; not released');
      else deps.log.info({ orderNo, pnr }, 'an order.do booking without an order released at the airline');
    }
  } catch (err) {
    if (!(err instanceof ConnectorError) || err.retryable || err.kind !== 'rejected') {
      return { settled: false, kind: err instanceof ConnectorError ? err.kind : 'error' };
    }
    // Refused: a booking asked for made nothing; a release refused leaves a hold only the airline's side can end.
    if (pnr === null) deps.log.info({ orderNo }, 'an order.do booking without an order: the airline refused it; nothing held');
    else deps.log.warn({ orderNo, pnr }, 'an order.do booking without an order: the airline refused its release; release it at the airline');
  }
  await dropAttempt(deps.db, orderNo);
  return { settled: true };
}

/**
 * Attempts due (an airline call's time after they began, or their back-off over), oldest due first, within
 * `budgetMs` of real time: each taken (the order's transaction then refuses it) and its hold released. An airline
 * that does not answer backs the attempt off (attemptBackoffMs) and is not asked again in this sweep. Answers the
 * order numbers settled.
 */
export async function settleStaleAttempts(deps: AttemptDeps, budgetMs: number, batch: number): Promise<string[]> {
  const started = Date.now();
  const now = deps.clock.now();
  const settled: string[] = [];
  const silent = new Set<string>();
  /** Attempts read in this sweep: a later page never takes one again. */
  const seen = new Set<string>();
  // Page after page past the silent carriers' attempts, as the sweep's other parts (found by a review: the 100 oldest,
  // of one silent airline, kept every other airline's orderless holds waiting sweep after sweep).
  for (;;) {
    let q = deps.db.selectFrom('booking_attempts').select(['order_no', 'carrier', 'request', 'tries']).where('next_try_at', '<=', now);
    if (silent.size > 0) q = q.where('carrier', 'not in', [...silent]);
    if (seen.size > 0) q = q.where('order_no', 'not in', [...seen]);
    const due = await q.orderBy('next_try_at').limit(batch).execute();
    for (const a of due) {
      seen.add(a.order_no);
      if (Date.now() - started > budgetMs) return settled;
      if (silent.has(a.carrier)) continue;
      if (!(await takeAttempt(deps.db, a.order_no, now, true))) continue;
      const outcome = await releaseAttempt(deps, a.order_no, a.carrier, a.request as BookingRequest);
      if (outcome.settled) {
        settled.push(a.order_no);
        continue;
      }
      silent.add(a.carrier);
      const tries = a.tries + 1;
      const wait = attemptBackoffMs(tries);
      await deps.db
        .updateTable('booking_attempts')
        .set({ tries: sql<number>`tries + 1`, next_try_at: new Date(deps.clock.now().getTime() + wait) })
        .where('order_no', '=', a.order_no)
        .execute();
      deps.log.warn({ orderNo: a.order_no, carrier: a.carrier, reason: outcome.kind, tries, nextTryInS: wait / 1000 }, 'an order.do booking without an order: the airline did not answer its release; will try again');
    }
    if (due.length < batch) return settled;
  }
}
