// What the refund commands need, passed in explicitly.
import type { Kysely, RawBuilder } from 'kysely';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import type { Rates } from './engine/index.js';

/**
 * The lifecycle's schedule as the refund commands and the console touch it. A new refund is written with its
 * submission due at once (`next_poll_at`, decision 0035), which the lifecycle's sweep reads: nothing more to queue.
 */
export interface RefundScheduler {
  /**
   * The refund's submission due now, its failed attempts forgotten, for a refund still at 0, as a CTE yielding
   * the refund when it is one: the console's retry of a refund whose submission failed or gave up.
   */
  submitNowSql(refundCode: string): RawBuilder<unknown>;
  /** After a statement that wrote refunds at 0 committed: this process's sweep worker, if any, fetches at once. */
  submitted(): void;
  /**
   * The refund's next look at the airline due now, its failed looks forgotten, for a refund the airline holds
   * (status 1 or 3), as a CTE yielding the refund when it is one (and `onlyIf` holds): the console's retry of a
   * refund whose looks gave up (decision 0034). A refund that moved on meanwhile is left as it is.
   */
  pollNowSql(refundCode: string, onlyIf?: RawBuilder<unknown>): RawBuilder<unknown>;
  /** SQL yielding the refund's poll schedule as a job's state (one row at 1 or 3, none otherwise). */
  pollStateSql(refundCode: string): RawBuilder<RefundPollState>;
  /** After a pollNowSql statement committed: the poll sweep looks soon. */
  polled(): void;
}

/**
 * The looks at a refund the airline holds, told as the state of a job (the console shows and rules on it): its
 * due time and failures are the refund's own columns (next_poll_at, poll_failures, poll_error; decision 0034).
 */
export interface RefundPollState {
  /** created (due at start_after), retry (a look failed, another is due at start_after), failed (gave up: nobody looks). */
  state: string;
  /** Looks that failed in a row (at most retry_limit), and how many retries follow a failed look. */
  retry_count: number;
  retry_limit: number;
  start_after: Date | string;
  /** The last failed look's `{ message }`, or null. */
  output: unknown;
}

export interface RefundDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  rates: Rates;
  /** How long a quote's refundOfferId can be submitted (default 30 min). */
  offerTtlMs: number;
  scheduler: RefundScheduler;
  /** Draws a refund's code (src/ids.ts newNumericId when absent; a test gives one that repeats a code already taken). */
  newRefundCode?: () => string;
}

export interface RefundCaller {
  clientId: string;
  settings: { refundServiceFee?: string; refundCriteria?: { minMinutesBeforeDeparture?: number } } & Record<string, unknown>;
}
