// What the void commands need, passed in explicitly (as src/refunds/deps.ts for refunds).
import type { Kysely } from 'kysely';
import type { AirlineDirectory } from '../airline/connector.js';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';

/** What void.do tells the lifecycle (./lifecycle.ts implements it). */
export interface VoidScheduler {
  /** After the void's statement committed (the void written due now, decision 0045): this process's sweep looks at once. */
  submitted(): void;
}

export interface VoidDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  /** How long a voidOfferId can be submitted (the refund offers' setting, OFFER_TTL_MINUTES). */
  offerTtlMs: number;
  scheduler: VoidScheduler;
  /** Draws a void's code (newVoidCode when absent; a test gives one that repeats a code already taken). */
  newVoidCode?: (now: Date) => string;
}

export interface VoidCaller {
  clientId: string;
}
