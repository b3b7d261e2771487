// What every step of the booking chain (search … pay.do, seatAvailability.do) shares to reach the airline:
// its dependencies, the connector of a carrier, the time budget of a call, and the mapping of airline
// failures to the chain's status. Airline calls are never made inside a transaction.
import type { Kysely } from 'kysely';
import { ConnectorError, type AirlineDirectory, type BookingConnector } from '../airline/connector.js';
import { AIRLINE_TIMEOUT_MS } from '../airline/deadline.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
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
}

/** The time budget of one airline call of the chain. */
export const callOpts = () => ({ signal: AbortSignal.timeout(AIRLINE_TIMEOUT_MS) });

export function bookingOf(airlines: AirlineDirectory, carrier: string): BookingConnector {
  const c = airlines.forCarrier(carrier.toUpperCase());
  if (!c?.booking) throw new ApiError(S.NOT_BOOKABLE, `airline ${carrier} cannot be booked through this service`);
  return c.booking;
}

/** Airline failures become 299 (the verify family's "other" code); everything else passes through. */
export async function airline<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ConnectorError) throw new ApiError(S.AIRLINE_ERROR, `airline error: ${err.kind}`);
    throw err;
  }
}
