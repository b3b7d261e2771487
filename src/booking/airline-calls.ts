// What every step of the booking chain (search … pay.do, seatAvailability.do) shares to reach the airline:
// its dependencies, the connector of a carrier, the time budget of a call, and the mapping of airline
// failures to the chain's status. Airline calls are never made inside a transaction.
import type { Kysely } from 'kysely';
import { ConnectorError, type AirlineDirectory, type BookingConnector } from '../airline/connector.js';
import { AIRLINE_TIMEOUT_MS } from '../airline/deadline.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Rates } from '../refunds/engine/index.js';
import type { Database } from '../store/schema.js';
import type { LookToBook } from './look-to-book.js';
import type { SeatMapCache } from './seat-cache.js';
import type { ChainSessions } from './sessions.js';
import { BOOKING_STATUS as S } from './statuses.js';

export interface BookingDeps {
  db: Kysely<Database>;
  airlines: AirlineDirectory;
  clock: Clock;
  seatMaps: SeatMapCache;
  /** The chain's sessions (store + this process's memory). */
  sessions: ChainSessions;
  lookToBook: LookToBook;
  /** Conversion rates the refund engine reads the airline's rule amounts with (getOffers.do penalties); none: {}. */
  rates?: Rates;
  /** Where the chain's recoveries are told (an order.do booking released after its order failed); none: silent. */
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
  /** Draws order.do's order number (newOrderNo when absent; a test gives one that repeats a number already taken). */
  newOrderNo?: () => string;
}

/**
 * verify.do's and getLuggage.do's `maxResponseTime` when the caller sends none: the original interface's documented
 * default (5000 ms), not our longest wait (decisions 0021, 0024).
 */
export const DEFAULT_MAX_RESPONSE_MS = 5_000;

/** The time budget of one airline call of the chain: the caller's (verify.do maxResponseTime) when shorter. */
export const callOpts = (budgetMs?: number | null) => ({ signal: AbortSignal.timeout(Math.min(budgetMs ?? AIRLINE_TIMEOUT_MS, AIRLINE_TIMEOUT_MS)) });

/**
 * A payment 'paying', or an order.do's booking attempt, older than this is no longer under way in its request (its
 * airline call timed out long before): the expiry sweep settles it (./expiry.ts).
 */
export const STALE_CALL_MS = AIRLINE_TIMEOUT_MS + 60_000;

export function bookingOf(airlines: AirlineDirectory, carrier: string, closedStatus: number = S.NOT_BOOKABLE): BookingConnector {
  const c = airlines.forCarrier(carrier.toUpperCase());
  if (!c?.booking) throw new ApiError(closedStatus, `airline ${carrier} cannot be booked through this service`);
  return c.booking;
}

/**
 * Airline failures become the calling step's status: 299 (the verify family's "other" code) unless the step
 * names its own for a time-out (search.do 112, verify.do 205) or another failure (search.do 113).
 */
export async function airline<T>(work: () => Promise<T>, statuses: { timeout?: number; other?: number } = {}): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ConnectorError) {
      const status = err.kind === 'timeout' ? (statuses.timeout ?? statuses.other ?? S.AIRLINE_ERROR) : (statuses.other ?? S.AIRLINE_ERROR);
      throw new ApiError(status, `airline error: ${err.kind}`);
    }
    throw err;
  }
}
