// What the refund commands need, passed in explicitly.
import type { Kysely, Transaction } from 'kysely';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import type { Rates } from './engine/index.js';

/** Schedules lifecycle work inside the caller's transaction, so a refund and its job commit together. */
export interface RefundScheduler {
  scheduleSubmission(trx: Transaction<Database>, refundCode: string): Promise<void>;
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
