// The void lifecycle (docs/voids.md "Statuses"): the lifecycle's sweep carries each void order through its
// statuses (decision 0045). A void's due airline call — its submission at 0, a look at 1 or 3 — is a time in its
// own row (`next_step_at`), read by the sweep that carries the refunds' (decisions 0034, 0035): one at a time in
// the whole deployment. The airline is called outside any transaction with the voidCode as idempotency key; a
// transition happens only from the expected status, so a call made twice never moves a void twice; a crash
// leaves the call due, and the next sweep makes it again.
// deposit: 0 → 1 → 3 → 2; virtual card: 0 → 1 → 5; 0 or 1 → 4.
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import { storableDeep, storableText } from '../store/text.js';
import { DateTime } from 'luxon';
import { ConnectorError, type AirlineDirectory, type AirlineVoidState } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import { retryWaitSql, type JobQueue, type RetryLimits } from '../jobs/queue.js';
import { forgetKeptOrder } from '../refunds/kept-offers.js';
import { airlineAmountIn } from '../refunds/net.js';
import type { Rates } from '../refunds/engine/index.js';
import type { Database } from '../store/schema.js';
import { unindexed } from '../store/unindexed.js';
import type { VoidScheduler } from './deps.js';
import { VOID_CANCEL_REASON, VOID_ORDER_STATUS as VS } from './statuses.js';

/** One job per submission, as builds before decision 0045 queued them: still worked (the void made due now), no longer sent. */
export const JOB_VOID_SUBMIT = 'void-submit';
/** One job per look, as builds before decision 0045 queued them: the same. */
export const JOB_VOID_POLL = 'void-poll';
/**
 * The void queues of builds before decision 0045. The submission queue's limits are still a void submission's
 * (the sweep reads them, `limitsOf`): tried 11 times (10 retries, backing off from 5 s), then rejected when the
 * airline never answered (docs/voids.md).
 */
export const VOID_QUEUES = {
  [JOB_VOID_SUBMIT]: { policy: 'short', retryLimit: 10, retryDelaySeconds: 5, retryBackoff: true },
  [JOB_VOID_POLL]: { policy: 'short' },
} as const;

/** Voids a sweep reads at once and calls the airline about concurrently. */
const VOID_SWEEP_PAGE = 25;

/**
 * A sweep's next page of due voids: $1 the sweep's start, after ($2, $3), the last (next_step_at, void_code) of the
 * page before ('-infinity' and '' first), at most $4. An ordered scan of void_orders_step_due, whose predicate it
 * repeats (src/store/hot-path-indexes.test.ts).
 */
export const VOID_STEP_DUE_SQL = `select void_code, next_step_at::text as due_at, status from void_orders
   where status in (${VS.PROCESSING}, ${VS.AIRLINE_PROCESSING}, ${VS.AIRLINE_VOIDING}) and next_step_at <= $1::timestamptz
     and (next_step_at, void_code) > ($2::timestamptz, $3::text)
   order by next_step_at, void_code
   limit $4`;

/** The statuses a void ends at: nothing is due for it any more. */
const FINAL: ReadonlySet<number> = new Set([VS.VOIDED, VS.REJECTED, VS.COMPLETED, VS.WITHDRAWN]);

export interface VoidLifecycleDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  /** Works the void jobs older builds queued (JOB_VOID_SUBMIT, JOB_VOID_POLL). */
  queue: Pick<JobQueue, 'work'>;
  /** Wakes this process's sweep worker (the refund lifecycle's: its sweep carries the voids). */
  wakeSweep(): void;
  /** Seconds between two looks at a void the airline is processing. */
  pollSeconds: number;
  /** How a failed submission is retried (JOB_VOID_SUBMIT's limits): past retryLimit failures the void ends rejected. */
  submitRetry: RetryLimits;
  /** Budget of one airline call. */
  airlineTimeoutMs: number;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** The world's conversion rates: an airline's amount in another currency than the void's is converted. */
  rates?: Rates;
}

type Patch = Partial<{ cancel_reason: string; airline_void_id: string; actual_refund_minor: number; completed_on: string }>;

/** A void whose airline call is due, as the sweep reads it; due_at to the microsecond, the next page's cursor. */
interface DueVoid {
  void_code: string;
  due_at: string;
  status: number;
}

function codeOf(data: unknown): string {
  const code = (data as { voidCode?: unknown } | null)?.voidCode;
  if (typeof code !== 'string') throw new Error('void job without voidCode');
  return code;
}

export class VoidLifecycle {
  constructor(private readonly deps: VoidLifecycleDeps) {}

  /** Voids a sweep reads and calls about per page: VOID_SWEEP_PAGE (a test lowers it to sweep many pages). */
  sweepPage = VOID_SWEEP_PAGE;

  readonly scheduler: VoidScheduler = {
    // void.do wrote the void due now: this process's sweep worker fetches at once (a sweep waiting to start runs on time)
    submitted: () => this.deps.wakeSweep(),
  };

  /** Works the void jobs older builds queued: each makes its void due now, and the sweep takes it. */
  async startWorkers(): Promise<void> {
    for (const name of [JOB_VOID_SUBMIT, JOB_VOID_POLL]) await this.deps.queue.work(name, { batchSize: 10, pollingIntervalSeconds: 0.5 }, (data) => this.dueNow(codeOf(data)));
  }

  private async dueNow(voidCode: string): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.db
      .updateTable('void_orders')
      .set({ next_step_at: now })
      .where('void_code', '=', voidCode)
      .where(unindexed('status'), 'in', [VS.PROCESSING, VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING])
      .where((eb) => eb.or([eb('next_step_at', 'is', null), eb('next_step_at', '>', now)]))
      .execute();
    this.deps.wakeSweep();
  }

  /**
   * One sweep: every void whose airline call was due when it began — its submission at 0, a look at 1 or 3 —
   * each once, `sweepPage` at a time in due order (each page's calls concurrently), starting pages for at most
   * `budgetMs` and while `goOn()`. A call that fails is counted in the void's row and made again later (a
   * submission at most its retry limit); a store error leaves the call due for the next sweep and is thrown once
   * the page has ended. Answers how many voids it called the airline about. Run by the refund lifecycle's sweep
   * job (src/workers.ts), one at a time in the whole deployment.
   */
  async sweep(budgetMs: number, goOn: () => boolean = () => true): Promise<number> {
    const now = this.deps.clock.now();
    const until = performance.now() + budgetMs;
    let after: [string, string] = ['-infinity', ''];
    let called = 0;
    for (;;) {
      const { rows: due } = await this.deps.db.executeQuery<DueVoid>(CompiledQuery.raw(VOID_STEP_DUE_SQL, [now, ...after, this.sweepPage]));
      const last = due.at(-1);
      // stopped, paused or aborted while the page was read: it stays due for the next sweep
      if (!last || !goOn()) break;
      const outcomes = await Promise.allSettled(due.map((d) => (d.status === VS.PROCESSING ? this.submitStep(d.void_code) : this.pollStep(d.void_code))));
      called += due.length;
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) throw failed.reason;
      if (due.length < this.sweepPage || !goOn() || performance.now() > until) break;
      after = [last.due_at, last.void_code];
    }
    return called;
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
      // the next step: a look a poll interval on at 1 and 3, nothing once final; its failures forgotten
      .set({ status: to, updated_at: now, next_step_at: FINAL.has(to) ? null : this.nextLook(), step_failures: 0, step_error: null, ...storableDeep(patch) })
      .where('void_code', '=', voidCode)
      .where(unindexed('status'), '=', from)
      .returning('order_no')
      .executeTakeFirst();
    if (!moved) return null;
    // The history row's trigger writes the order.void webhook event in this same transaction (migration 0011).
    await trx.insertInto('void_status_history').values({ void_code: voidCode, from_status: from, to_status: to, at: now, cause: storableText(cause) }).execute();
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

  private nextLook(): Date {
    return new Date(this.deps.clock.now().getTime() + this.deps.pollSeconds * 1000);
  }

  /** The void's next look a poll interval on, its failures forgotten, if it is still at `status`. */
  private async scheduleLook(db: Kysely<Database>, voidCode: string, status: number): Promise<void> {
    await db
      .updateTable('void_orders')
      .set({ next_step_at: this.nextLook(), step_failures: 0, step_error: null })
      .where('void_code', '=', voidCode)
      .where(unindexed('status'), '=', status)
      .execute();
  }

  /**
   * 0 → 1 (sent; its first look due a poll interval on), or 0 → 4 when the airline refuses for good. A call that
   * failed otherwise is counted and made again later (submissionFailed).
   */
  async submitStep(voidCode: string): Promise<void> {
    const v = await this.load(voidCode);
    if (!v || v.status !== VS.PROCESSING) return;
    const connector = this.deps.airlines.forCarrier(v.carrier);
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
      if (err instanceof ConnectorError && !err.retryable) {
        // A refusal for good (submitVoid is idempotent on the voidCode: a void the airline holds answers its receipt,
        // never a refusal). The airline's own text goes to the log; the client reads the reason it gave for callers,
        // else a fixed one (a review: the connector's text reached webhook data.message, and a deadline refusal
        // said "does not match airline policy").
        this.deps.log.warn({ voidCode, err: err.message }, 'the airline refused the void');
        const reason = err.reason ?? VOID_CANCEL_REASON.REFUSED;
        return this.moves(voidCode, (move) => move(VS.PROCESSING, VS.REJECTED, 'refused by the airline', { cancel_reason: reason }).then(() => undefined));
      }
      return this.submissionFailed(voidCode, v.carrier, err instanceof Error ? err.message : String(err));
    }
    const cause = `submitted to the airline (${receipt.airlineVoidId}${receipt.duplicate ? ', resent' : ''})`;
    await this.moves(voidCode, (move) => move(VS.PROCESSING, VS.AIRLINE_PROCESSING, cause, { airline_void_id: receipt.airlineVoidId }).then(() => undefined));
  }

  /**
   * A failed submission: counted in the void's row and tried again after the retry delay (doubled each time with
   * back-off). Past the retry limit the airline is asked whether it holds the void — an attempt that timed out may
   * have reached it, its answer lost (a review: such a void was rejected as "not voided" while the airline had
   * voided and paid, and the order then refunded too). Holding it: the void goes on to 1 and is looked at. Not
   * knowing it: the void ends rejected rather than waiting past its deadline. No answer to that either: the void
   * stays at 0 and is tried again, the waits capped (docs/voids.md).
   */
  private async submissionFailed(voidCode: string, carrier: string, message: string): Promise<void> {
    const { retryLimit } = this.deps.submitRetry;
    const { rows } = await sql<{ step_failures: number }>`
      update void_orders set step_failures = step_failures + 1, step_error = ${storableText(message, 1000)},
        next_step_at = ${this.deps.clock.now()}::timestamptz + ${retryWaitSql(this.deps.submitRetry, sql.ref('step_failures'))}
      where void_code = ${voidCode} and ${unindexed('status')} = ${sql.lit(VS.PROCESSING)}
      returning step_failures`.execute(this.deps.db);
    const failures = rows[0]?.step_failures ?? 0;
    if (failures === 0) return;
    if (failures <= retryLimit) {
      this.deps.log.warn({ voidCode, err: message, attempt: failures }, 'void submission failed; will retry');
      return;
    }
    const held = await this.airlineView(carrier, voidCode);
    if (held === 'unanswered') {
      this.deps.log.error({ voidCode, err: message, attempt: failures }, 'void submission failed again, and the airline does not say whether it holds the void: left at 0, tried again');
      return;
    }
    // The cause reaches the client (webhook data.message): the attempts' own error text (a network address, a
    // store's words) goes to the log lines instead — found by a review.
    await this.moves(voidCode, async (move) => {
      if (held === 'unknown') await move(VS.PROCESSING, VS.REJECTED, `airline unreachable after ${failures} attempts`, { cancel_reason: VOID_CANCEL_REASON.UNREACHABLE });
      else if (held.state === 'rejected') await move(VS.PROCESSING, VS.REJECTED, 'rejected by the airline', { cancel_reason: held.cancelReason });
      else await move(VS.PROCESSING, VS.AIRLINE_PROCESSING, `the airline holds the void (an attempt's answer was lost; ${failures} attempts)`);
    });
    this.deps.log.warn({ voidCode, err: message, attempt: failures, airline: held === 'unknown' ? 'unknown void' : held.state }, 'void submission failed for the last time; the airline asked');
  }

  /**
   * What the airline says of a void: its state; 'unknown' when it does not know the voidCode (a refusal for good of
   * voidStatus); 'unanswered' when it could not say — or this process has no connection that reads the carrier's
   * voids (an earlier attempt, by a process that had one, may have reached the airline: as a look, decided by none).
   */
  private async airlineView(carrier: string, voidCode: string): Promise<AirlineVoidState | 'unknown' | 'unanswered'> {
    const connector = this.deps.airlines.forCarrier(carrier);
    if (!connector?.voidStatus) return 'unanswered';
    try {
      return await connector.voidStatus(carrier, voidCode, { signal: AbortSignal.timeout(this.deps.airlineTimeoutMs) });
    } catch (err) {
      return err instanceof ConnectorError && !err.retryable ? 'unknown' : 'unanswered';
    }
  }

  /**
   * A look the airline did not answer (or made without a connection that reads voids): made again a poll interval
   * on, however long the outage — the airline holds the void, so it is never given up. Counted in the row.
   */
  private async lookFailed(voidCode: string, status: number, message: string): Promise<void> {
    this.deps.log.warn({ voidCode, err: message }, 'void status poll failed; will look again');
    await this.deps.db
      .updateTable('void_orders')
      .set((eb) => ({ next_step_at: this.nextLook(), step_failures: eb('step_failures', '+', 1), step_error: storableText(message, 1000) }))
      .where('void_code', '=', voidCode)
      .where(unindexed('status'), '=', status)
      .execute();
  }

  /** 1 → 3 → 2 (deposit), 1 → 5 (card), 1 → 4: follows the airline's decision; a void still under way gets its next look. */
  async pollStep(voidCode: string): Promise<void> {
    const v = await this.load(voidCode);
    if (!v || (v.status !== VS.AIRLINE_PROCESSING && v.status !== VS.AIRLINE_VOIDING)) return;
    const connector = this.deps.airlines.forCarrier(v.carrier);
    if (!connector?.voidStatus) return this.lookFailed(voidCode, v.status, `no airline connection that reads voids for ${v.carrier}`);
    // A look that fails, retryable or not, decides nothing: the airline holds the void, and only its answer moves
    // it (a review saw an error of the connection — a carrier a world reload dropped — move a void 3 → 4, its
    // tickets then refundable again although the airline voided them). Looked at again, counted in the row.
    const state = await connector
      .voidStatus(v.carrier, voidCode, { signal: AbortSignal.timeout(this.deps.airlineTimeoutMs) })
      .catch((err: unknown) => ({ state: 'unanswered' as const, message: err instanceof Error ? err.message : String(err) }));
    if (state.state === 'unanswered') return this.lookFailed(voidCode, v.status, state.message);
    // docs/voids.md: only a void not yet voiding (0, 1) can be rejected; one at 3 waits for an operator
    if (state.state === 'rejected' && v.status === VS.AIRLINE_VOIDING) return this.lookFailed(voidCode, v.status, 'the airline answers rejected for a void it was voiding: left at 3 for an operator');
    if (state.state === 'processing') return this.scheduleLook(this.deps.db, voidCode, v.status);
    // In the void's currency (a review, of refunds: stored as if in it); without a rate a failed look, counted.
    let paidMinor = 0;
    if (state.state === 'voiding' || state.state === 'voided') {
      try {
        paidMinor = airlineAmountIn(state.amountMinor, state.currency, v.currency, this.deps.rates ?? {});
      } catch (err) {
        return this.lookFailed(voidCode, v.status, (err as Error).message);
      }
    }
    const today = DateTime.fromJSDate(this.deps.clock.now(), { zone: 'UTC' }).toFormat('yyyyMMdd');
    await this.moves(voidCode, async (move, trx) => {
      switch (state.state) {
        case 'rejected':
          await move(v.status, VS.REJECTED, 'rejected by the airline', { cancel_reason: state.cancelReason });
          return;
        case 'voiding': {
          // Deposit voids show "Airline voiding" while the money comes; card voids complete when it is paid.
          const moved = v.path === 'deposit' && v.status === VS.AIRLINE_PROCESSING && (await move(VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING, 'voided by the airline; refund under way', { actual_refund_minor: paidMinor }));
          // a move schedules the next look itself
          if (!moved) await this.scheduleLook(trx, voidCode, v.status);
          return;
        }
        case 'voided': {
          const patch = { actual_refund_minor: paidMinor, completed_on: today };
          if (v.path === 'deposit') {
            if (v.status === VS.AIRLINE_PROCESSING) await move(VS.AIRLINE_PROCESSING, VS.AIRLINE_VOIDING, 'voided by the airline', { actual_refund_minor: paidMinor });
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
