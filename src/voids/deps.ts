// What the void commands need, passed in explicitly (as src/refunds/deps.ts for refunds).
import type { Kysely, RawBuilder } from 'kysely';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';

/** Schedules the void's first job inside the statement that writes the void (./lifecycle.ts implements it). */
export interface VoidScheduler {
  /** The insert of the void's submission job, as a CTE of that statement, written only when `onlyIf` holds. */
  submissionJobSql(voidCode: string, onlyIf: RawBuilder<unknown>): RawBuilder<unknown>;
  /** After that statement committed: this process's workers look at once. */
  submitted(): void;
}

export interface VoidDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  /** How long a voidOfferId can be submitted (the refund offers' setting, OFFER_TTL_MINUTES). */
  offerTtlMs: number;
  scheduler: VoidScheduler;
}

export interface VoidCaller {
  clientId: string;
}
