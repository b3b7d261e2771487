// The void lifecycle (docs/voids.md "Statuses"): workers of the job queue carry each void order through its
// statuses, as the refund workers carry refunds (decision 0011: the airline is called outside any
// transaction with the voidCode as idempotency key; a transition happens only from the expected status, so a
// retried or duplicated job never moves a void twice; a crash leaves the job to be retried).
// deposit: 0 → 1 → 3 → 2; virtual card: 0 → 1 → 5; 0 or 1 → 4.
import type { Kysely, Transaction } from 'kysely';
import { DateTime } from 'luxon';
import { ConnectorError, type AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { JobInfo, JobQueue } from '../jobs/queue.js';
import { forgetKeptOrder } from '../refunds/kept-offers.js';
import { CANCEL_REASON } from '../refunds/statuses.js';
import type { Database } from '../store/schema.js';
import { unindexed } from '../store/unindexed.js';
import type { VoidScheduler } from './deps.js';
import { VOID_CANCEL_REASON, VOID_ORDER_STATUS as VS } from './statuses.js';

export const JOB_VOID_SUBMIT = 'void-submit';
export const JOB_VOID_POLL = 'void-poll';
/**
 * The void queues: one waiting job per void and step. A submission is tried 11 times (10 automatic retries,
 * backing off from 5 s); when the airline never answered, the void ends rejected (docs/voids.md).
 */
export const VOID_QUEUES = {
  [JOB_VOID_SUBMIT]: { policy: 'short', retryLimit: 10, retryDelaySeconds: 5, retryBackoff: true },
  [JOB_VOID_POLL]: { policy: 'short' },
} as const;

export interface VoidLifecycleDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  queue: Pick<JobQueue, 'send' | 'work' | 'insertSql' | 'wake'>;
  /** Seconds between two looks at a void the airline is processing. */
  pollSeconds: number;
  /** Budget of one airline call. */
  airlineTimeoutMs: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

type Patch = Partial<{ cancel_reason: string; airline_void_id: string; actual_refund_minor: number; completed_on: string }>;

function codeOf(data: unknown): string {
  const code = (data as { voidCode?: unknown } | null)?.voidCode;
  if (typeof code !== 'string') throw new Error('void job without voidCode');
  return code;
}

export class VoidLifecycle {
  constructor(private readonly deps: VoidLifecycleDeps) {}

  readonly scheduler: VoidScheduler = {
    submissionJobSql: (voidCode, onlyIf) => this.deps.queue.insertSql(JOB_VOID_SUBMIT, { voidCode }, { singletonKey: `void-submit-${voidCode}`, onlyIf }),
    submitted: () => this.deps.queue.wake(JOB_VOID_SUBMIT),
  };

  async startWorkers(): Promise<void> {
    await this.deps.queue.work(JOB_VOID_SUBMIT, { batchSize: 10, pollingIntervalSeconds: 0.5 }, (data, job) => this.submitStep(codeOf(data), job));
    await this.deps.queue.work(JOB_VOID_POLL, { batchSize: 10, pollingIntervalSeconds: 0.5 }, (data) => this.pollStep(codeOf(data)));
  }

  /**
   * Moves a void from `from` to `to` if it is still at `from`, with its history row; returns whether it moved.
   * Found by its voidCode; the status guard is `unindexed` (src/store/unindexed.ts), so no status index is ever
   * walked (src/voids/lifecycle-plans.test.ts). Public for that test; the steps call it through `moves`.
   */
  async transition(trx: Transaction<Database>, voidCode: string, from: number, to: number, cause: string, patch: Patch = {}): Promise<boolean> {
    return (await this.move(trx, voidCode, from, to, cause, patch)) !== null;
  }

  /** `transition`, answering the void's order when it moved (null when it did not). */
  private async move(trx: Transaction<Database>, voidCode: string, from: number, to: number, cause: string, patch: Patch): Promise<string | null> {
    const now = this.deps.clock.now();
    const moved = await trx
      .updateTable('void_orders')
      .set({ status: to, updated_at: now, ...patch })
      .where('void_code', '=', voidCode)
      .where(unindexed('status'), '=', from)
      .returning('order_no')
      .executeTakeFirst();
    if (!moved) return null;
    // The history row's trigger writes the order.void webhook event in this same transaction (migration 0011).
    await trx.insertInto('void_status_history').values({ void_code: voidCode, from_status: from, to_status: to, at: now, cause }).execute();
    return moved.order_no;
  }

  /**
   * Runs `fn` in a transaction and, once it committed (a rolled-back move never happened), logs its moves and
   * drops the order's kept contexts and offers in this process: every write of a void moves its order's
   * version (store migration 0016), so its next quote or submission here reads it at once.
   */
  private async moves(voidCode: string, fn: (move: (from: number, to: number, cause: string, patch?: Patch) => Promise<boolean>, trx: Transaction<Database>) => Promise<void>): Promise<void> {
    const done: Array<[number, number]> = [];
    let orderNo: string | null = null;
    await this.deps.db.transaction().execute(async (trx) => {
      await fn(async (from, to, cause, patch = {}) => {
        const moved = await this.move(trx, voidCode, from, to, cause, patch);
        if (moved === null) return false;
        done.push([from, to]);
        orderNo = moved;
        return true;
      }, trx);
    });
    if (orderNo !== null) forgetKeptOrder(this.deps.db, orderNo);
    for (const [from, to] of done) this.deps.log.info({ voidCode, from, to }, 'void status changed');
  }

  private load(voidCode: string) {
    return this.deps.db
      .selectFrom('void_orders')
      .innerJoin('orders', 'orders.order_no', 'void_orders.order_no')
      .select(['void_orders.status', 'void_orders.path', 'void_orders.currency', 'void_orders.void_amount_minor', 'void_orders.ticket_nos', 'orders.carrier', 'orders.airline_pnr'])
      .where('void_orders.void_code', '=', voidCode)
      .executeTakeFirst();
  }

  private async schedulePoll(voidCode: string, trx: Transaction<Database>): Promise<void> {
    await this.deps.queue.send(JOB_VOID_POLL, { voidCode }, { trx, startAfterSeconds: this.deps.pollSeconds, singletonKey: `void-poll-${voidCode}` });
  }

  /** 0 → 1 (sent, first poll scheduled in the same transaction), or 0 → 4 when the airline refuses for good. */
  async submitStep(voidCode: string, job?: Pick<JobInfo, 'attempt' | 'retryLimit'>): Promise<void> {
    const v = await this.load(voidCode);
    if (!v || v.status !== VS.PROCESSING) return;
    const connector = this.deps.airlines.forCarrier(v.carrier);
    const reject = (cause: string, reason: string) => this.moves(voidCode, (move) => move(VS.PROCESSING, VS.REJECTED, cause, { cancel_reason: reason }).then(() => undefined));
    let receipt;
    try {
      // No connection that voids in this process (a worker of a rollout that lacks the carrier): a failed attempt
      // like an airline that did not answer, tried again — not a refusal; the airline was never asked.
      if (!connector?.submitVoid) throw new Error(`no airline connection that voids for ${v.carrier}`);
      receipt = await connector.submitVoid(
        v.carrier,
        { voidCode, pnr: v.airline_pnr ?? '', ticketNos: v.ticket_nos, currency: v.currency, paidMinor: Number(v.void_amount_minor) },
        { signal: AbortSignal.timeout(this.deps.airlineTimeoutMs) },
      );
    } catch (err) {
      if (err instanceof ConnectorError && !err.retryable) return reject(`airline refused the void: ${err.message}`, CANCEL_REASON.POLICY);
      // The last automatic retry failed: the void ends rejected rather than waiting past its deadline.
      if (job && job.attempt > job.retryLimit) return reject(`airline unreachable after ${job.attempt} attempts: ${(err as Error).message}`, VOID_CANCEL_REASON.UNREACHABLE);
      this.deps.log.warn({ voidCode, err: (err as Error).message, attempt: job?.attempt }, 'void submission failed; will retry');
      throw err;
    }
    const cause = `submitted to the airline (${receipt.airlineVoidId}${receipt.duplicate ? ', resent' : ''})`;
    await this.moves(voidCode, async (move, trx) => {
      if (await move(VS.PROCESSING, VS.AIRLINE_PROCESSING, cause, { airline_void_id: receipt.airlineVoidId })) await this.schedulePoll(voidCode, trx);
    });
  }

  /** 1 → 3 → 2 (deposit), 1 → 5 (card), 1 → 4: follows the airline's decision. */
  async pollStep(voidCode: string): Promise<void> {
    const v = await this.load(voidCode);
    if (!v || (v.status !== VS.AIRLINE_PROCESSING && v.status !== VS.AIRLINE_VOIDING)) return;
    const connector = this.deps.airlines.forCarrier(v.carrier);
    if (!connector?.voidStatus) {
      // no connection that reads voids in this process: look again later (completing the job without a next
      // look left the void at 1 or 3 for good)
      this.deps.log.warn({ voidCode, carrier: v.carrier }, 'void status poll: no airline connection; will look again');
      await this.moves(voidCode, (_move, trx) => this.schedulePoll(voidCode, trx));
      return;
    }
    const state = await connector.voidStatus(v.carrier, voidCode, { signal: AbortSignal.timeout(this.deps.airlineTimeoutMs) }).catch((err: unknown) => {
      if (err instanceof ConnectorError && !err.retryable) return { state: 'rejected' as const, cancelReason: CANCEL_REASON.POLICY };
      // The airline did not answer: look again a poll interval on, for as long as it takes. Thrown into the job's
      // retries instead, a status outage of a few minutes failed the job for good and left the void at 1 or 3
      // (nothing else moves a void, and the console has no void retry).
      this.deps.log.warn({ voidCode, err: (err as Error).message }, 'void status poll failed; will look again');
      return { state: 'unanswered' as const };
    });
    if (state.state === 'unanswered') {
      await this.moves(voidCode, (_move, trx) => this.schedulePoll(voidCode, trx));
      return;
    }
    const today = DateTime.fromJSDate(this.deps.clock.now(), { zone: 'UTC' }).toFormat('yyyyMMdd');
    await this.moves(voidCode, async (move, trx) => {
      switch (state.state) {
        case 'processing':
          await this.schedulePoll(voidCode, trx);
          return;
        case 'rejected':
          await move(v.status, VS.REJECTED, 'rejected by the airline', { cancel_reason: state.cancelReason });
          return;
        case 'voiding':
          // Deposit voids show "Airline voiding" while the money comes; card voids complete when it is paid.
          if (v.path === 'deposit' && v.status === VS.AIRLINE_PROCESSING) await move(VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING, 'voided by the airline; refund under way', { actual_refund_minor: state.amountMinor });
          await this.schedulePoll(voidCode, trx);
          return;
        case 'voided': {
          const patch = { actual_refund_minor: state.amountMinor, completed_on: today };
          if (v.path === 'deposit') {
            if (v.status === VS.AIRLINE_PROCESSING) await move(VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING, 'voided by the airline', { actual_refund_minor: state.amountMinor });
            await move(VS.AIRLINE_VOIDING, VS.VOIDED, 'voided; refunded to the deposit', patch);
          } else {
            await move(VS.AIRLINE_PROCESSING, VS.COMPLETED, 'voided; refunded to the original payment', patch);
          }
          return;
        }
      }
    });
  }
}

