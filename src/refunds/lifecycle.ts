// The refund lifecycle (docs/architecture.md "Refund lifecycle"): workers carry each refund order through its statuses.
// deposit: 0 → 1 → 3 → 2, and 0 or 1 → 4; pass-through virtual card and refund claims: 0 → 1 → 5, 0 or 1 → 4,
// 0 or 1 → 6. Every transition is a history row with its time and cause. The airline is called outside any
// transaction, with the refundCode as idempotency key; a transition only happens from the expected status,
// so a retried or duplicated call never moves a refund twice. The airline calls a refund waits for — its
// submission at 0, the looks while the airline holds it (1, 3) — are due times in the refund's own row, which
// one recurring sweep job reads (decisions 0034, 0035).
import { CompiledQuery, sql, type Kysely, type RawBuilder, type Selectable, type Transaction } from 'kysely';
import { storableText } from '../store/text.js';
import { DateTime } from 'luxon';
import {
  ConnectorError,
  type AirlineConnector,
  type AirlineDirectory,
  type AirlineRefundReceipt,
  type AirlineRefundSubmission,
} from '../airline/connector.js';
import type { Clock } from '../clock.js';
import { MAX_LANES, retryWaitSql, type RetryLimits } from '../jobs/queue.js';
import type { Database, RefundOrdersTable } from '../store/schema.js';
import type { StoreKind } from '../store/store.js';
import { preparedQuery } from '../store/prepared.js';
import { unindexed } from '../store/unindexed.js';
import type { RefundPollState, RefundScheduler } from './deps.js';
import { executePrepared } from './statements.js';
import { forgetKeptOrder } from './kept-offers.js';
import type { Rates } from './engine/index.js';
import { airlineAmountIn, refundNet } from './net.js';
import { refundQuote } from './pricing.js';
import { moveRefund, type TransitionPatch } from './transition.js';
import { CANCEL_REASON, REFUND_ORDER_STATUS as RS } from './statuses.js';

/** The part of the job queue the lifecycle uses (src/jobs implements it). */
export interface LifecycleQueue {
  send(name: string, data: object, opts?: { trx?: Transaction<Database>; startAfterSeconds?: number; singletonKey?: string }): Promise<unknown>;
  work(name: string, opts: { batchSize?: number; pollingIntervalSeconds?: number }, handler: (data: unknown, job: { expireInSeconds: number; signal: AbortSignal }) => Promise<void>): Promise<unknown>;
  workBatch(name: string, opts: { batchSize?: number; pollingIntervalSeconds?: number; lanes?: number }, handler: (jobs: Array<{ data: unknown }>) => Promise<unknown[]>): Promise<unknown>;
  insertSql(name: string, data: object, opts?: { startAfterSeconds?: number; singletonKey?: string; onlyIf?: RawBuilder<unknown> }): RawBuilder<unknown>;
  insertManySql(name: string, rows: RawBuilder<unknown>, opts?: { startAfterSeconds?: number }): RawBuilder<unknown>;
  wake(name: string): void;
}

export interface LifecycleDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  queue: LifecycleQueue;
  /** Seconds between two looks at a refund the airline is processing. */
  pollSeconds: number;
  /**
   * How a failed look is retried (JOB_POLL's limits, JOB_* configuration): retryLimit failed looks after the first
   * and the sweep gives up (next_poll_at null: an agent retries in the console); retryDelaySeconds between two,
   * doubled each time with retryBackoff.
   */
  pollRetry: RetryLimits;
  /** The same for a failed submission (JOB_SUBMIT's limits). */
  submitRetry: RetryLimits;
  /** Budget of one airline call. */
  airlineTimeoutMs: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Conversion rates for the net at the airline's answer (the world's rates); none: {}. */
  rates?: Rates;
  /** The store `db` is, which shapes the sweep (SWEEP_SHAPES); PostgreSQL's shape when absent. */
  storeKind?: StoreKind;
  /** Batches a sweep keeps in flight (REFUND_SWEEP_LANES): the store's shape's lanes when absent. */
  sweepLanes?: number;
}

/** One job per submission, as builds before decision 0035 queued them: still worked, no longer sent. */
export const JOB_SUBMIT = 'refund-submit';
/** One job per look at a refund, as builds before decision 0034 queued them: still worked, no longer sent. */
export const JOB_POLL = 'refund-poll';
/**
 * The due airline calls (submissions at 0, looks at 1 and 3): one recurring job (one waiting at a time), every
 * POLL_SWEEP_SECONDS. Named when it only looked (decision 0034); the name is the queue's, kept.
 */
export const JOB_POLL_SWEEP = 'refund-poll-sweep';
export const POLL_SWEEP_SECONDS = 1;
/**
 * How a sweep works through the due calls, by store (decision 0065): `page`, the refunds a batch reads and calls about
 * (its submissions in one call per carrier when the connector takes batches, its looks concurrently), and `lanes`, the
 * batches in flight at once unless REFUND_SWEEP_LANES says otherwise. On PostgreSQL four batches of 25 (decision 0063;
 * three before): while one waits on the airline or on its statements, the next is read and sent, each on a backend of
 * its own. The embedded store runs one statement at a time, so a lane overlaps nothing there but airline calls, and every
 * batch pays its statements' fixed cost: one batch of 100 — the same refunds in flight, so the same calls open at an
 * airline, with a quarter of the statements. A larger page on PostgreSQL drains faster too, but with its four lanes it
 * would quadruple the calls open at once.
 */
export const SWEEP_SHAPES: Readonly<Record<StoreKind, { readonly page: number; readonly lanes: number }>> = {
  postgres: { page: 25, lanes: 4 },
  pglite: { page: 100, lanes: 1 },
};
/** However many sweeps failed in a row: every this many seconds each process queues one (dropped when one waits). */
const POLL_SWEEP_BACKSTOP_MS = 60_000;
/**
 * A sweep stops starting batches after this long and leaves the rest, still due, to its successor a second later;
 * less when its job's time limit is short (sweepBudgetMs): it must end, its last airline calls answered, inside
 * that limit, after which the queue would count the attempt failed and start the sweep again beside it.
 */
const POLL_SWEEP_BUDGET_MS = 30_000;
/** Kept between a sweep's last airline call's deadline and its job's time limit: the outcomes' statements. */
const POLL_SWEEP_MARGIN_MS = 5_000;

/**
 * How long a sweep whose job may run `expireInSeconds` starts batches: POLL_SWEEP_BUDGET_MS, or less so that a
 * batch started last (an airline call of up to `airlineTimeoutMs`, then its statements) ends in time; at least 1 s.
 */
export function sweepBudgetMs(expireInSeconds: number, airlineTimeoutMs: number): number {
  return Math.max(1_000, Math.min(POLL_SWEEP_BUDGET_MS, expireInSeconds * 1000 - airlineTimeoutMs - POLL_SWEEP_MARGIN_MS));
}
/**
 * How the workers of each step fetch (the bench's backlog measure gives a no-op worker the same). A backlog of
 * submission jobs is worked as the sweep works its due submissions: batches of the store's page, `sweepLanes` at a
 * time (WorkOptions.lanes; the store's shape's lanes here, the bench's yardstick). On PostgreSQL a 2·10⁴ backlog reached
 * status 1 at 3,112–3,673/s against 1,820–2,811/s with one lane (BENCHMARKS.md, three lanes then).
 */
export function submitWorker(kind: StoreKind): { batchSize: number; pollingIntervalSeconds: number; lanes: number } {
  const shape = SWEEP_SHAPES[kind];
  return { batchSize: shape.page, pollingIntervalSeconds: 0.5, lanes: shape.lanes };
}
export const POLL_WORKER = { batchSize: 10, pollingIntervalSeconds: 0.5 };

interface JobData {
  refundCode: string;
}

/**
 * A sweep's next batch of due calls: $1 the sweep's start, after ($2, $3), the last (next_poll_at, refund_code)
 * of the batch before ('-infinity' and '' first), at most $4 (the sweep's page). An ordered scan of
 * refund_orders_step_due (src/store/hot-path-indexes.test.ts), whose predicate it repeats. Planned at each run
 * (not a named statement): a generic plan made while the refunds were few could walk the table.
 */
export const STEP_DUE_SQL = `select refund_code, next_poll_at::text as due_at, status from refund_orders
   where status in (${RS.PROCESSING}, ${RS.AIRLINE_PROCESSING}, ${RS.AIRLINE_REFUNDING}) and next_poll_at <= $1::timestamptz
     and (next_poll_at, refund_code) > ($2::timestamptz, $3::text)
   order by next_poll_at, refund_code
   limit $4`;

/** The refund `refundCode` if it is at one of `statuses`: found by its key, the status only checked (`unindexed`). */
const refundAt = (refundCode: string, statuses: readonly number[]) =>
  sql`refund_code = ${refundCode} and ${unindexed('status')} in (${sql.join(statuses.map((s) => sql.lit(s)))})`;
/** The refund `refundCode` if the airline holds it (1 or 3). */
const heldByAirline = (refundCode: string) => refundAt(refundCode, [RS.AIRLINE_PROCESSING, RS.AIRLINE_REFUNDING]);
/** The refund `refundCode` if it waits for its submission (0). */
const awaitingSubmission = (refundCode: string) => refundAt(refundCode, [RS.PROCESSING]);

/**
 * Another lifecycle's sweep of due airline calls run by the sweep job (addDueSweep): starts work for at most
 * `budgetMs` and while `goOn()`; answers how many it called the airline about.
 */
export type DueSweep = (budgetMs: number, goOn: () => boolean) => Promise<number>;

/** A refund whose airline call is due, as the sweep reads it. */
interface DueStep {
  refund_code: string;
  /**
   * next_poll_at as PostgreSQL writes it, to the microsecond: the cursor of the next batch. A Date (milliseconds)
   * fell short of a due time written by the store's own clock (migrations 0027 and 0028 set `now()`): the next
   * batch then began again with refunds of the batches still in flight and called the airline about them twice
   * (a batch of one read the same refund until its call ended).
   */
  due_at: string;
  status: number;
}

function codeOf(data: unknown): string {
  const code = (data as JobData | null)?.refundCode;
  if (typeof code !== 'string') throw new Error('refund job without refundCode');
  return code;
}

type Loaded = Awaited<ReturnType<ReturnType<RefundLifecycle['loadQuery']>['executeTakeFirstOrThrow']>>;

/** A refund the airline took: its id there, and the history row's cause. */
interface AcceptedRefund {
  refundCode: string;
  airlineRefundId: string;
  cause: string;
}

/** A refund as 0 → 1 reads it (RefundLifecycle.loadBatch). */
export interface ToSubmit extends Pick<Selectable<RefundOrdersTable>, 'refund_code' | 'status' | 'reason' | 'currency' | 'quote_type' | 'estimated_refund_minor'> {
  carrier: string;
  airline_pnr: string | null;
  source: string;
  ticket_nos: string[];
  paid_minor: number;
}

export class RefundLifecycle {
  /** Batches a sweep keeps in flight, and the lanes of the submission jobs' workers (REFUND_SWEEP_LANES). */
  readonly sweepLanes: number;
  /**
   * Refunds a sweep reads and calls about per batch: the store's page (a test lowers it to sweep many batches of a few
   * refunds).
   */
  sweepPage: number;

  private readonly storeKind: StoreKind;

  constructor(private readonly deps: LifecycleDeps) {
    this.storeKind = deps.storeKind ?? 'postgres';
    const shape = SWEEP_SHAPES[this.storeKind];
    this.sweepPage = shape.page;
    const lanes = deps.sweepLanes ?? shape.lanes;
    // 0 lanes would wait for a batch in flight that never starts: the sweep would hang (a review)
    if (!(Number.isInteger(lanes) && lanes >= 1 && lanes <= MAX_LANES)) throw new Error(`RefundLifecycle: sweepLanes must be an integer from 1 to ${MAX_LANES}, got ${lanes}`);
    this.sweepLanes = lanes;
  }

  readonly scheduler: RefundScheduler = {
    // The refund's submission due now, its failures forgotten: the next sweep sends it.
    submitNowSql: (refundCode) => this.dueNowSql(awaitingSubmission(refundCode)),
    // No statement: this process's sweep worker, if it has one, fetches at once (a sweep waiting to start runs on time).
    submitted: () => this.deps.queue.wake(JOB_POLL_SWEEP),
    // The refund due now, its failures forgotten: the next sweep looks at it.
    pollNowSql: (refundCode, onlyIf) => this.dueNowSql(onlyIf ? sql`${heldByAirline(refundCode)} and ${onlyIf}` : heldByAirline(refundCode)),
    pollStateSql: (refundCode) => {
      const limit = this.deps.pollRetry.retryLimit;
      return sql<RefundPollState>`
        select case when next_poll_at is null then 'failed' when poll_failures > 0 then 'retry' else 'created' end as state,
          least(poll_failures, ${limit}::int) as retry_count, ${limit}::int as retry_limit, coalesce(next_poll_at, updated_at) as start_after,
          case when poll_error is null then null else json_build_object('message', poll_error) end as output
        from refund_orders
        where ${heldByAirline(refundCode)}`;
    },
    polled: () => void this.scheduleSweep(0).catch((err: unknown) => this.deps.log.warn({ err: String(err) }, 'refund poll sweep not queued')),
  };

  /** The refunds `where` selects: their next airline call due now, its failures forgotten; yields their codes. */
  private dueNowSql(where: RawBuilder<unknown>): RawBuilder<unknown> {
    return sql`
      update refund_orders set next_poll_at = ${this.deps.clock.now()}::timestamptz, poll_failures = 0, poll_error = null
      where ${where}
      returning refund_code`;
  }

  async startWorkers(): Promise<void> {
    // Submission jobs queued by a build before decision 0035: one handler call per fetched batch (see submitBatch).
    await this.deps.queue.workBatch(JOB_SUBMIT, Object.assign(submitWorker(this.storeKind), { lanes: this.sweepLanes }), async (jobs) => {
      const codes: Array<string | Error> = jobs.map((j) => {
        try {
          return codeOf(j.data);
        } catch (err) {
          return err as Error;
        }
      });
      const outcomes = await this.submitBatch(codes.filter((c): c is string => typeof c === 'string'));
      return codes.map((c) => (typeof c === 'string' ? outcomes.get(c) : c));
    });
    // The submissions and the looks: a sweep over the refunds' own due times, which queues its successor when done.
    this.stopping = false;
    await this.deps.queue.work(JOB_POLL_SWEEP, { pollingIntervalSeconds: 0.5 }, async (_data, job) => {
      try {
        this.sweeping = this.sweepAll(sweepBudgetMs(job.expireInSeconds, this.deps.airlineTimeoutMs), job.signal);
        await this.sweeping;
      } finally {
        this.sweeping = null;
        // Also when this process stops (the store closes after its handlers end): another process takes it.
        await this.scheduleSweep(POLL_SWEEP_SECONDS);
      }
    });
    // Poll jobs queued by a build before decision 0034: one look each, as the sweep takes it.
    await this.deps.queue.work(JOB_POLL, POLL_WORKER, (data) => this.look(codeOf(data)));
    await this.scheduleSweep(0);
    // Should the chain of sweeps break (every attempt of one failed, the store down for minutes), it starts again.
    this.backstop ??= setInterval(() => void this.scheduleSweep(0).catch(() => undefined), POLL_SWEEP_BACKSTOP_MS);
    this.backstop.unref();
  }

  private backstop: NodeJS.Timeout | undefined;

  /** Further sweeps the sweep job runs beside the refunds' (addDueSweep). */
  private readonly dueSweeps: DueSweep[] = [];

  /**
   * Has the sweep job also run `sweep` (the voids' due airline calls, src/workers.ts): beside the refunds' sweep,
   * with the same budget, so that neither waits for the other's backlog, and one at a time in the whole deployment
   * as the refunds' is. `goOn()` turns false once the job's attempt is aborted or this process pauses or stops.
   */
  addDueSweep(sweep: DueSweep): void {
    this.dueSweeps.push(sweep);
  }

  /** The refunds' sweep and the added ones side by side; the first failure is thrown once all have ended. */
  private async sweepAll(budgetMs: number, signal: AbortSignal): Promise<number> {
    if (this.paused) return 0;
    const goOn = () => !this.stopping && !this.paused && !signal.aborted;
    const outcomes = await Promise.allSettled([this.sweep(budgetMs, signal), ...this.dueSweeps.map((sweep) => sweep(budgetMs, goOn))]);
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
    return outcomes.reduce((n, o) => n + (o.status === 'fulfilled' ? o.value : 0), 0);
  }

  private stopping = false;

  private paused = false;

  /** The sweep this process runs now, if any. */
  private sweeping: Promise<number> | null = null;

  /**
   * From now on a sweep this process fetches calls nobody and ends (its successor is still queued); answers once a
   * running one has ended after its batches in flight. The airline calls wait in their rows until resumeSweeps().
   * The bench pauses the sweeps of the embedded store's own process while its backlog measure drains the same
   * table with workers of its own.
   */
  async pauseSweeps(): Promise<void> {
    this.paused = true;
    await this.sweeping?.catch(() => undefined);
  }

  resumeSweeps(): void {
    this.paused = false;
  }

  /** Stops queueing sweeps from this process, and a running sweep after its batch (the job queue's workers stop with the queue). */
  stopWorkers(): void {
    this.stopping = true;
    clearInterval(this.backstop);
    this.backstop = undefined;
  }

  private scheduleSweep(afterSeconds: number): Promise<unknown> {
    return this.deps.queue.send(JOB_POLL_SWEEP, {}, { singletonKey: 'sweep', startAfterSeconds: afterSeconds });
  }

  /**
   * One sweep: every refund whose airline call was due when the sweep began — its submission at 0, a look at 1
   * or 3 — each once, `sweepPage` at a time in due order (read on refund_orders_step_due, after the last one of
   * the batch before), up to `sweepLanes` batches in flight, starting batches for at most `budgetMs`
   * (sweepBudgetMs), until its job's `signal` aborts or the workers stop. A batch's refunds at 0 are submitted
   * together (submitBatch), the others looked at concurrently. Answers how many refunds it called the airline
   * about. One runs at a time in the whole deployment: its queue is `stately` (src/jobs/queue.ts).
   */
  async sweep(budgetMs = POLL_SWEEP_BUDGET_MS, signal?: AbortSignal): Promise<number> {
    if (this.paused) return 0;
    const now = this.deps.clock.now();
    const until = performance.now() + budgetMs;
    const readDue = (after: [string, string]) =>
      this.deps.db.executeQuery<DueStep>(CompiledQuery.raw(STEP_DUE_SQL, [now, ...after, this.sweepPage])).then((r) => r.rows);
    const goOn = () => !this.stopping && !this.paused && !signal?.aborted && performance.now() <= until;
    let called = 0;
    // Batches in flight never reject: the first failure (a store error while recording an outcome) is kept and
    // thrown once they have all ended, failing the sweep's job as a sequential sweep would have.
    const inFlight = new Set<Promise<void>>();
    const failures: unknown[] = [];
    let next: Promise<DueStep[]> | null = readDue(['-infinity', '']);
    try {
      while (next) {
        const due: DueStep[] = await next;
        const last = due[due.length - 1];
        if (!last) break;
        // The page after this one is read while this one waits for a lane, so that a lane which frees up gets its
        // next batch at once instead of after a read (its rejection is seen when it is awaited).
        next = due.length === this.sweepPage && goOn() ? readDue([last.due_at, last.refund_code]) : null;
        next?.catch(() => undefined);
        if (inFlight.size >= this.sweepLanes) await Promise.race(inFlight);
        // Stopped, paused, out of budget or aborted while waiting for a lane (an airline call can take its whole
        // time-out): this page stays due for the next sweep. A review saw pages read just inside the budget start
        // an airline time-out later, past the job's expiry, while a second sweep sent the same refunds again.
        if (!goOn()) break;
        const toSubmit = due.filter((d) => d.status === RS.PROCESSING).map((d) => d.refund_code);
        const looks = due.filter((d) => d.status !== RS.PROCESSING).map((d) => this.look(d.refund_code));
        const batch = Promise.all([this.submitDue(toSubmit), ...looks]).then(
          () => undefined,
          (err: unknown) => void failures.push(err),
        );
        inFlight.add(batch);
        void batch.then(() => inFlight.delete(batch));
        called += due.length;
      }
    } finally {
      await Promise.all(inFlight);
    }
    if (failures.length > 0) throw failures[0];
    return called;
  }

  /** The due submissions of a sweep's batch (submitBatch); a failed one is counted in its row and retried later, or given up. */
  private async submitDue(refundCodes: string[]): Promise<void> {
    if (refundCodes.length === 0) return;
    let outcomes: Map<string, unknown>;
    try {
      outcomes = await this.submitBatch(refundCodes);
    } catch (err) {
      outcomes = new Map(refundCodes.map((c) => [c, err]));
    }
    for (const [refundCode, outcome] of outcomes) {
      if (outcome !== undefined) await this.stepFailed('submission', refundCode, outcome instanceof Error ? outcome.message : 'the submission failed');
    }
  }

  /** One look at a refund (pollStep); a failed one is counted in its row and retried later, or given up. */
  private async look(refundCode: string): Promise<void> {
    try {
      await this.pollStep(refundCode);
    } catch (err) {
      await this.stepFailed('look', refundCode, err instanceof Error ? err.message : String(err));
    }
  }

  /**
   * A failed submission or look: the refund's failures counted and its next attempt put off (the job queue's retry
   * delay for that step, doubled each time with back-off); past the retry limit, nobody calls the airline about it
   * again until an agent retries (the console).
   */
  private async stepFailed(step: 'submission' | 'look', refundCode: string, message: string): Promise<void> {
    const limits = step === 'look' ? this.deps.pollRetry : this.deps.submitRetry;
    const limit = limits.retryLimit;
    const res = await sql<{ next_poll_at: Date | null; poll_failures: number }>`
      update refund_orders set poll_failures = poll_failures + 1, poll_error = ${storableText(message, 1000)},
        next_poll_at = case when poll_failures >= ${limit}::int then null
                            else ${this.deps.clock.now()}::timestamptz + ${retryWaitSql(limits, sql.ref('poll_failures'))} end
      where ${step === 'look' ? heldByAirline(refundCode) : awaitingSubmission(refundCode)}
      returning next_poll_at, poll_failures`.execute(this.deps.db);
    const row = res.rows[0];
    if (!row) return;
    const what = step === 'look' ? 'refund status poll' : 'refund submission';
    if (row.next_poll_at === null) this.deps.log.warn({ refundCode, failures: row.poll_failures, err: message }, `${what} gave up; retry it in the console`);
    else this.deps.log.warn({ refundCode, failures: row.poll_failures, err: message }, `${what} failed; will retry`);
  }

  /** The refund's next look POLL seconds from now, its failures forgotten, if it is still at `status`. */
  private async scheduleLook(db: Kysely<Database> | Transaction<Database>, refundCode: string, status: number): Promise<void> {
    await db
      .updateTable('refund_orders')
      .set({ next_poll_at: this.nextLook(), poll_failures: 0, poll_error: null })
      .where('refund_code', '=', refundCode)
      .where(unindexed('status'), '=', status)
      .execute();
  }

  private nextLook(): Date {
    return new Date(this.deps.clock.now().getTime() + this.deps.pollSeconds * 1000);
  }

  private readonly afterCommit = new WeakMap<Transaction<Database>, Array<() => void>>();

  /** A transaction whose queued log lines are written after it commits. */
  private async inTransaction(fn: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
    const pending: Array<() => void> = [];
    await this.deps.db.transaction().execute(async (trx) => {
      this.afterCommit.set(trx, pending);
      await fn(trx);
    });
    for (const write of pending) write();
  }

  /** Moves a refund from `from` to `to` if it is still at `from` (./transition.ts); returns whether it moved. */
  async transition(trx: Transaction<Database>, refundCode: string, from: number, to: number, cause: string, patch: TransitionPatch = {}, opts: { ticketsRefunded?: boolean } = {}): Promise<boolean> {
    const move = await moveRefund(trx, this.deps.clock.now(), refundCode, from, to, cause, patch, opts);
    if (!move) return false;
    // Once the transaction commits (a rolled-back transition never happened): logged, and an order whose tickets
    // it freed has its kept contexts and offers dropped in this process, so that its next quote or submission
    // reads it at once instead of first finding its version moved.
    const { db, log } = this.deps;
    this.afterCommit.get(trx)?.push(() => {
      if (move.freedOrderNo !== null) forgetKeptOrder(db, move.freedOrderNo);
      log.info({ refundCode, from, to }, 'refund status changed');
    });
    return true;
  }

  private loadQuery() {
    return this.deps.db
      .selectFrom('refund_orders')
      .innerJoin('orders', 'orders.order_no', 'refund_orders.order_no')
      .select([
        'refund_orders.refund_code',
        'refund_orders.status',
        'refund_orders.path',
        'refund_orders.reason',
        'refund_orders.currency',
        'refund_orders.quote_type',
        'refund_orders.estimated_refund_minor',
        'refund_orders.service_fee_minor',
        'refund_orders.service_fee_currency',
        'refund_orders.details',
        'refund_orders.offer_id',
        'orders.carrier',
        'orders.airline_pnr',
        'orders.source',
      ])
  }

  private async load(refundCode: string): Promise<Loaded | undefined> {
    return this.loadQuery().where('refund_orders.refund_code', '=', refundCode).executeTakeFirst();
  }

  /**
   * The batch read of 0 → 1: what the airline is sent, with the tickets and their paid total read from the
   * refund's own columns (migration 0043; out of its details in the store for a refund stored before decision 0053:
   * no quote document is sent over and parsed for two fields). One text for any batch, a named prepared statement
   * calling the store's function `refund_load_batch` (migration 0023), which reads each refund and its order by key
   * whatever the statistics.
   */
  private static readonly loadBatch = preparedQuery<ToSubmit>('refund_load_batch', 'select * from refund_load_batch($1::text[])');

  /** The refunds of a 0 → 1 batch as that step reads them, on `db` (the store; a test passes a transaction). */
  async loadMany(refundCodes: string[], db: Kysely<Database> = this.deps.db): Promise<ToSubmit[]> {
    return (await db.executeQuery(RefundLifecycle.loadBatch([refundCodes]))).rows;
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.deps.airlineTimeoutMs);
  }

  /**
   * 0 → 1 for a batch of refunds: one read for all, the airline calls outside any transaction (one call per
   * carrier when its connector takes batches, else one per refund, concurrently), then one statement moving
   * every accepted refund that is still at 0, with its history row and its first look's due time. Returns each
   * refundCode's outcome: undefined when done (moved, or nothing left to do), the error when the airline call
   * should be retried.
   */
  async submitBatch(refundCodes: string[]): Promise<Map<string, unknown>> {
    const codes = [...new Set(refundCodes)];
    const outcomes = new Map<string, unknown>(codes.map((c) => [c, undefined]));
    if (codes.length === 0) return outcomes;
    const rows = new Map((await this.loadMany(codes)).map((r) => [r.refund_code, r]));
    const accepted: AcceptedRefund[] = [];
    // The refunds still to submit, by carrier (a connector serves its carriers one call at a time).
    const byCarrier = new Map<string, { connector: AirlineConnector; refunds: Array<{ refundCode: string; submission: AirlineRefundSubmission }> }>();
    for (const refundCode of codes) {
      const r = rows.get(refundCode);
      if (!r || r.status !== RS.PROCESSING) continue;
      const connector = this.deps.airlines.forCarrier(r.carrier);
      if (!connector) {
        // a failed submission like any other (decision 0035): counted in the row and tried again, not a refusal
        // (a worker may lack a carrier another process has, during a rollout)
        outcomes.set(refundCode, new Error(`no airline connection for ${r.carrier}`));
        continue;
      }
      let submission: AirlineRefundSubmission;
      try {
        submission = this.submissionOf(refundCode, r);
      } catch (err) {
        outcomes.set(refundCode, err);
        continue;
      }
      const group = byCarrier.get(r.carrier) ?? { connector, refunds: [] };
      group.refunds.push({ refundCode, submission });
      byCarrier.set(r.carrier, group);
    }
    await Promise.all(
      [...byCarrier].map(async ([carrier, { connector, refunds }]) => {
        const answers = await this.submitToAirline(connector, carrier, refunds.map((x) => x.submission));
        await Promise.all(
          refunds.map(async ({ refundCode }, i) => {
            const answer = answers[i]!;
            if (!(answer instanceof Error)) {
              const cause = `submitted to the airline (${answer.airlineRefundId}${answer.duplicate ? ', resent' : ''})`;
              accepted.push({ refundCode, airlineRefundId: storableText(answer.airlineRefundId), cause: storableText(cause) });
            } else if (answer instanceof ConnectorError && !answer.retryable) {
              await this.refuse(refundCode, `airline refused the submission: ${answer.message}`, outcomes);
            } else {
              this.deps.log.warn({ refundCode, err: answer.message }, 'refund submission failed; will retry');
              outcomes.set(refundCode, answer);
            }
          }),
        );
      }),
    );
    if (accepted.length > 0) await this.recordAccepted(this.deps.db, accepted);
    return outcomes;
  }

  /**
   * 0 → 1 for the refunds the airline accepted, those still at 0: one statement moving them, with their history
   * rows and their first look's due time (no job: the sweep reads it); answers the refundCodes moved. `db` is the
   * store (the statement is then its own transaction; a test passes a transaction).
   *
   * Each refund is found by its refundCode; the status guard is `unindexed` (src/store/unindexed.ts). Through the
   * status index it walked every refund at 0 for each batch: 30 ms a batch of 25 behind 5,000 queued refunds on
   * PGlite, growing with the backlog.
   */
  async recordAccepted(db: Kysely<Database>, accepted: readonly AcceptedRefund[]): Promise<string[]> {
    const now = this.deps.clock.now();
    const { rows: moved } = await executePrepared(
      db,
      sql<{ refund_code: string }>`
      with v as (
        select * from unnest(${sql.val(accepted.map((a) => a.refundCode))}::text[], ${sql.val(accepted.map((a) => a.airlineRefundId))}::text[],
          ${sql.val(accepted.map((a) => a.cause))}::text[]) as v(refund_code, airline_refund_id, cause)
      ),
      moved as (
        update refund_orders r set status = ${sql.lit(RS.AIRLINE_PROCESSING)}, updated_at = ${now}::timestamptz, airline_refund_id = v.airline_refund_id,
          next_poll_at = ${this.nextLook()}::timestamptz, poll_failures = 0, poll_error = null
        from v where r.refund_code = v.refund_code and ${unindexed('r.status')} = ${sql.lit(RS.PROCESSING)}
        returning r.refund_code, v.cause
      ),
      history as (
        insert into refund_status_history (refund_code, from_status, to_status, at, cause)
        select refund_code, ${sql.lit(RS.PROCESSING)}, ${sql.lit(RS.AIRLINE_PROCESSING)}, ${now}::timestamptz, cause from moved
      )
      select refund_code from moved`,
    );
    // Logged once committed (the statement is its own transaction).
    for (const m of moved) this.deps.log.info({ refundCode: m.refund_code, from: RS.PROCESSING, to: RS.AIRLINE_PROCESSING }, 'refund status changed');
    return moved.map((m) => m.refund_code);
  }

  /** 0 → 4 for a refund the airline will never take; should that transition fail, the refund's job is retried. */
  private async refuse(refundCode: string, cause: string, outcomes: Map<string, unknown>): Promise<void> {
    try {
      await this.inTransaction((trx) => this.transition(trx, refundCode, RS.PROCESSING, RS.REJECTED, cause, { cancel_reason: CANCEL_REASON.POLICY }));
    } catch (err) {
      outcomes.set(refundCode, err);
    }
  }

  /** What the airline is sent for a refund (the refundCode is its idempotency key). */
  private submissionOf(refundCode: string, r: ToSubmit): AirlineRefundSubmission {
    return {
      refundCode,
      pnr: r.airline_pnr ?? '',
      ticketNos: r.ticket_nos,
      reason: r.reason,
      currency: r.currency,
      paidMinor: r.paid_minor,
      quotedRefundMinor: r.quote_type === 'AccurateQuote' ? r.estimated_refund_minor : null,
      isClaim: r.source === 'claim',
    };
  }

  /**
   * The airline calls of 0 → 1 for refunds of one carrier: one answer per submission, in order, the receipt
   * or the error. One call when the connector takes batches, else one call per refund, concurrently.
   */
  private async submitToAirline(connector: AirlineConnector, carrier: string, submissions: AirlineRefundSubmission[]): Promise<Array<AirlineRefundReceipt | Error>> {
    const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
    const signal = this.signal();
    if (connector.submitRefunds) {
      try {
        const answers = await connector.submitRefunds(carrier, submissions, { signal });
        if (answers.length === submissions.length) return answers;
        const err = new Error(`airline connector ${connector.name} answered ${answers.length} outcomes for ${submissions.length} refunds`);
        return submissions.map(() => err);
      } catch (err) {
        return submissions.map(() => asError(err));
      }
    }
    return Promise.all(submissions.map((s) => connector.submitRefund(carrier, s, { signal }).catch(asError)));
  }

  /**
   * 1 → 3 → 2, 1 → 5, 1 → 4, 1 → 6: follow the airline's decision; a refund still under way gets its next look.
   * Throws when the airline could not be asked (the sweep counts the failure: pollFailed).
   */
  async pollStep(refundCode: string): Promise<void> {
    const r = await this.load(refundCode);
    if (!r || (r.status !== RS.AIRLINE_PROCESSING && r.status !== RS.AIRLINE_REFUNDING)) return;
    const connector = this.deps.airlines.forCarrier(r.carrier);
    if (!connector) throw new Error(`no airline connection for ${r.carrier}`);
    // A look that fails, retryable or not, decides nothing: the airline holds the refund, and only its answer moves
    // it (a review saw an error of the connection — a carrier a world reload dropped — move a refund 3 → 4, its
    // tickets then refundable again while the airline was paying; voids had the same fix). It throws: counted in
    // the row, looked at again, given up to an operator past the retry limit.
    const state = await connector.refundStatus(r.carrier, refundCode, { signal: this.signal() });
    // docs/refunds.md: only a refund the airline has not accepted (0, 1) can be rejected or withdrawn; one at 3 the
    // airline is refunding is left for an operator, the answer in its row
    if ((state.state === 'rejected' || state.state === 'withdrawn') && r.status === RS.AIRLINE_REFUNDING) {
      throw new Error(`the airline answers ${state.state} for a refund it accepted and is refunding: left at 3 for an operator`);
    }
    // The airline's amount in the refund's currency (a review: an amount in another currency was stored as if in
    // the refund's). No rate: the look fails, counted, until one is configured (the operator sees why in the console).
    const paidMinor = state.state === 'refunding' || state.state === 'refunded' ? airlineAmountIn(state.amountMinor, state.currency, r.currency, this.deps.rates ?? {}) : 0;
    switch (state.state) {
      case 'processing':
        await this.scheduleLook(this.deps.db, refundCode, r.status);
        return;
      case 'rejected':
        await this.inTransaction((trx) => this.transition(trx, refundCode, r.status, RS.REJECTED, 'rejected by the airline', { cancel_reason: state.cancelReason }));
        return;
      case 'withdrawn':
        await this.inTransaction((trx) =>
          this.transition(trx, refundCode, r.status, r.path === 'card' ? RS.WITHDRAWN : RS.REJECTED, 'withdrawn at the airline', { cancel_reason: state.cancelReason }),
        );
        return;
      case 'refunding':
        await this.inTransaction(async (trx) => {
          // Deposit refunds show "Airline refunding"; card refunds go straight to fulfilment when paid.
          const moved =
            r.path === 'deposit' && r.status === RS.AIRLINE_PROCESSING &&
            (await this.transition(trx, refundCode, RS.AIRLINE_PROCESSING, RS.AIRLINE_REFUNDING, 'accepted by the airline; refund under way', { actual_refund_minor: paidMinor }));
          await this.scheduleLook(trx, refundCode, moved ? RS.AIRLINE_REFUNDING : r.status);
        });
        return;
      case 'refunded': {
        const today = DateTime.fromJSDate(this.deps.clock.now(), { zone: 'UTC' }).toFormat('yyyyMMdd');
        // the airline's voucher code as jsonb holds it: JSON.stringify writes a NUL as \u0000, which jsonb refuses
        // (found by a review: the refund stayed at 1, looked at again until given up, though the airline paid)
        const details = Object.assign({}, r.details as object, { outcome: { voucherCode: state.voucherCode === null ? null : storableText(state.voucherCode) } });
        // docs/architecture.md "Refund arithmetic" step 9: the caller nets refund + post-ticketing refunds − fee; below zero → rejected.
        // The quote's post-ticketing refunds: the used offer's quote (decision 0053), read only here — a look that
        // finds the refund still under way needs none of it.
        const offer = await this.deps.db.selectFrom('refund_offers').select('quote').where('offer_id', '=', r.offer_id).executeTakeFirst();
        const net = refundNet({
          refund: { minor: paidMinor, currency: r.currency },
          post: refundQuote(r.details, offer?.quote).post ?? [],
          fee: { minor: Number(r.service_fee_minor), currency: r.service_fee_currency },
          rates: this.deps.rates ?? {},
        });
        if (!net.known) this.deps.log.warn({ refundCode, missingRate: net.missing }, 'refund net against the service fee not checked: no rate');
        // How the airline paid: its own rule at submission may differ from the quote's — a window boundary crossed in
        // between, a submission retried for hours (a review: the query answered cash back for a voucher the airline
        // issued, its code never shown). Kept whatever comes next, the refund below the fee included.
        const paid = { details: JSON.stringify(details), refund_method: paidMethod(state) };
        await this.inTransaction(async (trx) => {
          if (net.known && net.minor < 0) {
            // From 1 or 3 (DESIGN "Refund arithmetic" 9: at completion). The airline refunded the tickets: they stay
            // with this refund (ticketsRefunded), never quoted or submitted again.
            await this.transition(
              trx,
              refundCode,
              r.status,
              RS.REJECTED,
              'airline refund below the service fee',
              Object.assign({ cancel_reason: CANCEL_REASON.BELOW_SERVICE_FEE, actual_refund_minor: paidMinor }, paid),
              { ticketsRefunded: true },
            );
            return;
          }
          const patch = Object.assign({ actual_refund_minor: paidMinor, completed_on: today }, paid);
          if (r.path === 'deposit') {
            if (r.status === RS.AIRLINE_PROCESSING) await this.transition(trx, refundCode, RS.AIRLINE_PROCESSING, RS.AIRLINE_REFUNDING, 'accepted by the airline', { actual_refund_minor: paidMinor });
            await this.transition(trx, refundCode, RS.AIRLINE_REFUNDING, RS.REFUNDED, 'refunded by the airline; credited to the deposit', patch);
          } else {
            await this.transition(trx, refundCode, RS.AIRLINE_PROCESSING, RS.FULFILLED, 'refunded by the airline to the original payment', patch);
          }
        });
        return;
      }
    }
  }
}

/** How the airline paid a refund: as it says, else a voucher code means a voucher (AirlineRefundState). */
function paidMethod(state: { method?: 'CashBackToOriginalPayment' | 'Voucher'; voucherCode: string | null }): 'CashBackToOriginalPayment' | 'Voucher' {
  return state.method ?? (state.voucherCode === null ? 'CashBackToOriginalPayment' : 'Voucher');
}
