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
   * The insert of a status poll job due now, for a refund the airline holds (status 1 or 3), as a CTE (only when
   * `onlyIf` holds): re-queues the poll of a refund whose poll job gave up (the console's retry). At most one
   * poll job of a refund waits (a second insert while one waits writes nothing); a poll of a refund that moved
   * on meanwhile does nothing.
   */
  pollJobSql(refundCode: string, onlyIf?: RawBuilder<unknown>): RawBuilder<unknown>;
  /** SQL yielding the refund's newest poll job still in the job queue, or no row (never polled, or archived). */
  pollJobStateSql(refundCode: string): RawBuilder<RefundJobState>;
  /** After a pollJobSql statement committed: poll workers of this process look at once. */
  polled(): void;
}

/** A job of the refund lifecycle as the job queue holds it. */
export interface RefundJobState {
  /** created (waiting), retry (an attempt failed, another is due at start_after), active, completed, cancelled, failed (gave up). */
  state: string;
  /** Attempts that failed so far, and how many retries the job has. */
  retry_count: number;
  retry_limit: number;
  start_after: Date | string;
  /** What the last failed attempt threw (pg-boss keeps `{ message }`), or null. */
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
