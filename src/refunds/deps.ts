// What the refund commands need, passed in explicitly.
import type { Kysely, RawBuilder } from 'kysely';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import type { Rates } from './engine/index.js';

/** Schedules lifecycle work inside the caller's statement, so a refund and its job commit together. */
export interface RefundScheduler {
  /** The insert of the refund's first job, as a CTE of the statement that writes the refund (only when `onlyIf` holds). */
  submissionJobSql(refundCode: string, onlyIf?: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The same for several refunds: `refundCodes` is SQL yielding a column `refund_code` (a CTE of the statement). */
  submissionJobsSql(refundCodes: RawBuilder<unknown>): RawBuilder<unknown>;
  /** After that statement committed: workers of this process look at once. */
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
}

export interface RefundCaller {
  clientId: string;
  settings: { refundServiceFee?: string; refundCriteria?: { minMinutesBeforeDeparture?: number } } & Record<string, unknown>;
}
