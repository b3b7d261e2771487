// Order expiry (plan §7, §8.8; docs/decisions/0023): an unpaid order whose payment deadline (tktLimitTime) has
// passed by the service clock lapses — booking_orders 'expired' and orders.status -3 in one transaction, with a
// job that releases the airline's hold in the same commit. The release (BookingConnector.release) frees the
// seats and bumps their flights' seat inventory versions, so a cached seat map (decision 0014) shows them free
// at the next request. Both steps are durable jobs of src/jobs: a sweep that re-queues itself every few seconds
// (it reads the sandbox clock each time, so moving that clock expires orders at the next sweep) and one
// release job per expired order, retried until the airline answers. A restart resumes both. The sweep also settles
// a payment a pay.do left 'paying' (its process died during ticketing, or the airline did not answer in time:
// settleStalePayments) and an order.do's booking that no order names (decision 0046: settleStaleAttempts).
import type { Kysely } from 'kysely';
import { ConnectorError, type AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database, PaymentMethod } from '../store/schema.js';
import { callOpts, STALE_CALL_MS } from './airline-calls.js';
import { backToUnpaid, recordIssued } from './pay.js';
import { attemptBackoffMs, settleStaleAttempts } from './attempts.js';
import { RecurringJob, type RecurringQueue } from '../jobs/recurring.js';

/** Runs each step after the one before has ended, whatever its outcome; answers every outcome. */
async function allInTurn(steps: Array<() => Promise<unknown>>): Promise<PromiseSettledResult<unknown>[]> {
  const outcomes: PromiseSettledResult<unknown>[] = [];
  for (const step of steps) {
    try {
      outcomes.push({ status: 'fulfilled', value: await step() });
    } catch (reason) {
      outcomes.push({ status: 'rejected', reason });
    }
  }
  return outcomes;
}

export const JOB_EXPIRY_SWEEP = 'booking-expiry-sweep';
export const JOB_RELEASE_HOLD = 'booking-release-hold';
/** Declared on the service's job queue: one waiting sweep at a time; one waiting release per order. */
export const ORDER_EXPIRY_QUEUES = { [JOB_EXPIRY_SWEEP]: { policy: 'short' }, [JOB_RELEASE_HOLD]: { policy: 'short' } } as const;

const BATCH = 100;
/**
 * Real time from a sweep's start in which its airline-calling parts (stale payments, booking attempts, releases),
 * one after the other, may start calls: the job expires after 60 s (src/jobs), and the last call started may take
 * two airline time-outs (15 s each: an attempt's booking asked again, then its release) — 50 s at most. It was 15 s
 * for each part (found by a review: three parts could outrun the job's expiry, a second sweep then running beside
 * the first).
 */
const AIRLINE_BUDGET_MS = 20_000;

/** The part of the job queue expiry uses (src/jobs implements it). */
export type ExpiryQueue = RecurringQueue;

export interface ExpiryDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  queue: ExpiryQueue;
  /** Seconds between two sweeps. */
  sweepSeconds: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

const orderNoOf = (data: unknown): string => {
  const orderNo = (data as { orderNo?: unknown } | null)?.orderNo;
  if (typeof orderNo !== 'string') throw new Error('release job without orderNo');
  return orderNo;
};

export class OrderExpiry {
  private readonly recurring: RecurringJob;
  /** Sweeps run by this process: which airline part goes first. */
  private turn = 0;

  constructor(private readonly deps: ExpiryDeps) {
    // The successor is queued whatever the run's outcome (./recurring.ts), and each part runs even when one
    // before it failed (the store's error in one part left the other two undone until the next sweep).
    this.recurring = new RecurringJob({
      queue: deps.queue,
      job: JOB_EXPIRY_SWEEP,
      everySeconds: deps.sweepSeconds,
      pollingIntervalSeconds: 1,
      run: () => this.runSweep(),
    });
  }

  /** One sweep, as its job runs it: the expiry, then the airline parts within one budget. */
  async runSweep(): Promise<void> {
    const until = Date.now() + AIRLINE_BUDGET_MS;
    // The airline parts share the budget, the first of them another at each sweep: none waits for good behind the
    // others' silent airlines.
    const parts = [() => this.settleStalePayments(until), () => this.settleStaleAttempts(until), () => this.retryReleases(until)];
    const first = this.turn++ % parts.length;
    const outcomes = await allInTurn([() => this.sweep(), ...parts.slice(first), ...parts.slice(0, first)]);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Registers both workers and queues the first sweep (dropped when one already waits, e.g. after a restart). */
  async startWorkers(): Promise<void> {
    await this.deps.queue.work(JOB_RELEASE_HOLD, { batchSize: 4, pollingIntervalSeconds: 1 }, async (data) => void (await this.release(orderNoOf(data))));
    await this.recurring.start();
  }

  /** No more sends from this process (its queue stops the workers). */
  stopWorkers(): void {
    this.recurring.stop();
  }

  /** Expires every unpaid order past its deadline now; answers their order numbers. */
  async sweep(): Promise<string[]> {
    const expired: string[] = [];
    for (;;) {
      const now = this.deps.clock.now();
      const due = await this.deps.db
        .selectFrom('booking_orders')
        .select('order_no')
        .where('pay_state', '=', 'unpaid')
        .where('payment_deadline', '<=', now)
        .orderBy('payment_deadline')
        .limit(BATCH)
        .execute();
      for (const { order_no } of due) if (await this.expire(order_no, now)) expired.push(order_no);
      if (due.length < BATCH) return expired;
    }
  }

  /** One order: unpaid → expired (-3) and its release job, in one transaction; false when a payment took it first. */
  private async expire(orderNo: string, now: Date): Promise<boolean> {
    const done = await this.deps.db.transaction().execute(async (trx) => {
      // The release job asks the airline at once; the sweep asks again from an airline call's time on, until the
      // airline answers (retryReleases), should the job not settle it
      const moved = await trx
        .updateTable('booking_orders')
        .set({ pay_state: 'expired', release_next_try_at: new Date(now.getTime() + STALE_CALL_MS), release_tries: 0 })
        .where('order_no', '=', orderNo)
        .where('pay_state', '=', 'unpaid')
        .where('payment_deadline', '<=', now)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      await trx.updateTable('orders').set({ status: '-3', updated_at: now }).where('order_no', '=', orderNo).execute();
      await this.deps.queue.send(JOB_RELEASE_HOLD, { orderNo }, { trx, singletonKey: orderNo });
      return true;
    });
    if (done) this.deps.log.info({ orderNo }, 'unpaid order expired');
    return done;
  }

  /**
   * Payments left 'paying' for longer than a pay.do can take (its process died during the airline's ticketing, or
   * its last write failed): each is settled as pay.do would have — the airline asked to issue again under the same
   * idempotency key (the order number: tickets it issued already come back, none twice), then the tickets recorded
   * and the order paid; an airline that refuses puts the order back to unpaid (0), where the deadline applies, and
   * so does a carrier with no booking connector any more. An airline that does not answer leaves it (and that
   * carrier's other payments) for the next sweep, and the sweep reads on past that carrier's payments (found by a
   * review: the 100 oldest, all of one silent airline, kept every other airline's waiting); the calls stop after
   * AIRLINE_BUDGET_MS of the sweep (`until`, real time). Answers the orders settled (paid or back to unpaid).
   */
  async settleStalePayments(until = Date.now() + AIRLINE_BUDGET_MS): Promise<string[]> {
    const settled: string[] = [];
    /** Carriers that did not answer in this sweep: asked again at the next one, not once per payment now. */
    const silent = new Set<string>();
    /** Payments read in this sweep: a page after another never takes one again (one left 'paying' by a race). */
    const seen = new Set<string>();
    for (;;) {
      const page = await this.stalePayments([...silent], [...seen]);
      for (const p of page) seen.add(p.order_no);
      await this.settlePayments(page, settled, silent, until);
      // a short page is the last; a full one of payments all settled or all silent is read past
      if (page.length < BATCH || Date.now() > until) return settled;
    }
  }

  /** The oldest stale payments (BATCH at most) of carriers not known silent in this sweep, but the ones already read. */
  private stalePayments(silent: string[], seen: string[]) {
    const now = this.deps.clock.now();
    let q = this.deps.db
      .selectFrom('booking_orders')
      .innerJoin('orders', 'orders.order_no', 'booking_orders.order_no')
      .select(['booking_orders.order_no', 'booking_orders.payment_method', 'booking_orders.paying_since', 'orders.carrier', 'orders.airline_pnr'])
      .where('booking_orders.pay_state', '=', 'paying')
      .where('booking_orders.paying_since', '<=', new Date(now.getTime() - STALE_CALL_MS));
    if (silent.length > 0) q = q.where('orders.carrier', 'not in', silent);
    if (seen.length > 0) q = q.where('booking_orders.order_no', 'not in', seen);
    return q.orderBy('booking_orders.paying_since').limit(BATCH).execute();
  }

  private async settlePayments(
    stale: ReadonlyArray<{ order_no: string; payment_method: string | null; paying_since: Date | number | null; carrier: string; airline_pnr: string | null }>,
    settled: string[],
    silent: Set<string>,
    until: number,
  ): Promise<void> {
    for (const p of stale) {
      if (Date.now() > until) break;
      if (silent.has(p.carrier)) continue;
      const booking = this.deps.airlines.forCarrier(p.carrier)?.booking;
      if (!booking || !p.airline_pnr) {
        // no airline to ask (the carrier left the world or the configuration): it cannot be ticketed through here
        if (await backToUnpaid(this.deps.db, p.order_no, this.deps.clock.now(), p.paying_since === null ? undefined : new Date(p.paying_since))) {
          this.deps.log.warn({ orderNo: p.order_no, carrier: p.carrier }, 'stale payment settled: the carrier has no booking connector now; back to unpaid');
          settled.push(p.order_no);
        }
        continue;
      }
      const method = (p.payment_method ?? 'deposit') as PaymentMethod;
      try {
        const record = await booking.issueTickets(p.carrier, p.airline_pnr, { method, idempotencyKey: p.order_no }, callOpts());
        if (await recordIssued(this.deps.db, p.order_no, record, method, this.deps.clock.now())) {
          this.deps.log.info({ orderNo: p.order_no }, 'stale payment settled: ticketed');
          settled.push(p.order_no);
        }
      } catch (err) {
        if (err instanceof ConnectorError && !err.retryable) {
          if (await backToUnpaid(this.deps.db, p.order_no, this.deps.clock.now(), p.paying_since === null ? undefined : new Date(p.paying_since))) {
            this.deps.log.warn({ orderNo: p.order_no, reason: err.kind }, 'stale payment settled: the airline did not ticket; back to unpaid');
            settled.push(p.order_no);
          }
        } else if (err instanceof ConnectorError) {
          silent.add(p.carrier);
          this.deps.log.warn({ orderNo: p.order_no, reason: err.kind }, 'stale payment: the airline did not answer; will try again');
        } else {
          // Ours (recording the tickets failed): this payment only, tried again at the next sweep — the airline
          // answered, so its other stale payments go on (a review saw one such payment, always the oldest, hold
          // every later one of its airline for good).
          // the error's code or name only: a store's message may quote the row's values
          const code = (err as { code?: unknown } | null)?.code;
          const reason = typeof code === 'string' ? code : err instanceof Error ? err.name : 'error';
          this.deps.log.warn({ orderNo: p.order_no, reason }, 'stale payment: recording the tickets failed; will try again');
        }
      }
    }
  }

  /** order.do bookings whose order was never written (decision 0046): each released at the airline; answers their order numbers. */
  settleStaleAttempts(until = Date.now() + AIRLINE_BUDGET_MS): Promise<string[]> {
    return settleStaleAttempts(this.deps, until - Date.now(), BATCH);
  }

  /**
   * Releases the airline's hold of an expired order (idempotent: the airline answers 'released' again) and answers
   * whether it is settled: released, refused for good, or nothing to release. An airline that does not answer backs
   * the order off (attemptBackoffMs: 1, 2, 4 … minutes, at most an hour) for the sweep to ask again.
   */
  async release(orderNo: string): Promise<boolean> {
    const order = await this.deps.db
      .selectFrom('orders')
      .innerJoin('booking_orders', 'booking_orders.order_no', 'orders.order_no')
      .select(['orders.carrier', 'orders.airline_pnr', 'booking_orders.pay_state', 'booking_orders.release_tries'])
      .where('orders.order_no', '=', orderNo)
      .executeTakeFirst();
    if (!order) return true;
    // whatever its state now: an order paid after it expired (a slow card payment) has nothing to release either
    const settled = async () => {
      await this.deps.db.updateTable('booking_orders').set({ release_next_try_at: null }).where('order_no', '=', orderNo).execute();
      return true;
    };
    const booking = this.deps.airlines.forCarrier(order.carrier)?.booking;
    if (order.pay_state !== 'expired' || !order.airline_pnr || !booking) return settled();
    try {
      const outcome = await booking.release(order.carrier, order.airline_pnr, callOpts());
      if (outcome === 'ticketed') this.deps.log.warn({ orderNo }, 'expired order is ticketed at the airline; hold not released');
    } catch (err) {
      if (err instanceof ConnectorError && !err.retryable && err.kind === 'rejected') {
        this.deps.log.warn({ orderNo, reason: err.kind }, 'airline refused to release the hold of an expired order');
        return settled();
      }
      const tries = order.release_tries + 1;
      const next = new Date(this.deps.clock.now().getTime() + attemptBackoffMs(tries));
      await this.deps.db.updateTable('booking_orders').set({ release_tries: tries, release_next_try_at: next }).where('order_no', '=', orderNo).where('pay_state', '=', 'expired').execute();
      this.deps.log.warn({ orderNo, tries, reason: err instanceof ConnectorError ? err.kind : 'error', nextTryAt: next.toISOString() }, 'airline did not release the hold of an expired order; asked again later');
      return false;
    }
    return settled();
  }

  /**
   * Expired orders whose hold is not released yet and due (the job did not settle it: the airline did not answer,
   * or the job never ran), oldest due first, within the sweep's airline budget (`until`); a carrier that does not answer is not
   * asked again in this sweep. Answers the order numbers settled.
   */
  async retryReleases(until = Date.now() + AIRLINE_BUDGET_MS): Promise<string[]> {
    const settled: string[] = [];
    /** Carriers that did not answer in this sweep: their other orders are read past (a review of this change: the
     * 100 oldest of one silent airline held every other airline's releases), and asked at the next sweep. */
    const silent = new Set<string>();
    for (;;) {
      let q = this.deps.db
        .selectFrom('booking_orders')
        .innerJoin('orders', 'orders.order_no', 'booking_orders.order_no')
        .select(['booking_orders.order_no', 'orders.carrier'])
        .where('booking_orders.release_next_try_at', '<=', this.deps.clock.now());
      if (silent.size > 0) q = q.where('orders.carrier', 'not in', [...silent]);
      const due = await q.orderBy('booking_orders.release_next_try_at').limit(BATCH).execute();
      for (const { order_no, carrier } of due) {
        if (Date.now() > until) return settled;
        if (silent.has(carrier)) continue;
        // settled, or backed off: either way no longer due in this sweep
        if (await this.release(order_no)) settled.push(order_no);
        else silent.add(carrier);
      }
      if (due.length < BATCH) return settled;
    }
  }
}
