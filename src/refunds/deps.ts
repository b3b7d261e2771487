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
