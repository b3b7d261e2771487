// The seat map viewer's reads: the live booking-chain sessions and (sandbox) the world's flights to pick
// from, and a segment's seat map — for a session through seatMapOf, the very read (and cache) that
// seatAvailability.do serves; for a sandbox flight straight from the airline connector. The answer is the
// connector's cabin shape (decks, columns, exit rows, seats free or occupied with their prices).
import type { Kysely } from 'kysely';
import { ConnectorError, type SeatMapCabin } from '../airline/connector.js';
import type { World } from '../airline/sandbox/world.js';
import { bookingOf, callOpts, type BookingDeps } from '../booking/airline-calls.js';
import { seatMapOf } from '../booking/seat-availability.js';
import type { ChainItinerary } from '../booking/sessions.js';
import { ApiError } from '../errors.js';
import type { Database } from '../store/schema.js';
import { ActionRefused } from './actions.js';

export interface SeatSources {
  sessions: Array<{ id: string; kind: string; clientId: string; expiresAt: string; segments: Array<{ index: number; label: string; cabinClass: number }> }>;
  flights: Array<{ id: string; label: string }>;
}

/** The 50 newest live verify sessions and offers: newest first through their partial index (migration 0037). */
export function liveSeatSessions(db: Kysely<Database>, now: Date) {
  return db
    .selectFrom('booking_sessions')
    .select(['id', 'kind', 'client_id', 'itinerary', 'expires_at'])
    .where('kind', 'in', ['verify', 'offer'])
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .limit(50);
}

export async function seatSources(db: Kysely<Database>, world: World | null, now: Date): Promise<SeatSources> {
  const rows = await liveSeatSessions(db, now).execute();
  return {
    sessions: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      clientId: r.client_id,
      expiresAt: new Date(r.expires_at).toISOString(),
      segments: (r.itinerary as ChainItinerary).segments.map((s) => ({ index: s.index, label: `${s.flightNumber} ${s.depAirport}-${s.arrAirport} ${s.depLocal}`, cabinClass: s.cabinClass })),
    })),
    flights: world
      ? [...world.flights.values()]
          .filter((f) => f.current.dep.toMillis() > now.getTime())
          .sort((a, b) => a.current.dep.toMillis() - b.current.dep.toMillis())
          .map((f) => ({ id: f.id, label: `${f.flightNumber} ${f.from}-${f.to} ${f.current.dep.toFormat('yyyy-MM-dd HH:mm')}` }))
      : [],
  };
}

export interface SeatMapView {
  title: string;
  cabins: SeatMapCabin[];
}

/** A session's segment: the seatAvailability.do read (the seat-map cache, the session's fare family). */
export async function sessionSeatMap(deps: BookingDeps, sessionId: string, segmentIndex: number, cabinClass: number | null): Promise<SeatMapView> {
  const row = await deps.db.selectFrom('booking_sessions').select(['itinerary']).where('id', '=', sessionId).executeTakeFirst();
  if (!row) throw new ActionRefused(404, 'no such session');
  const segment = (row.itinerary as ChainItinerary).segments.find((s) => s.index === segmentIndex);
  if (!segment) throw new ActionRefused(404, `the session has no segment ${segmentIndex}`);
  const map = await seatMapOf(deps, segment, cabinClass ?? segment.cabinClass);
  if ('ok' in map) throw new ActionRefused(409, map.message);
  return { title: `${segment.flightNumber} ${segment.depAirport}-${segment.arrAirport} ${segment.depLocal}`, cabins: map.cabins };
}

/** A sandbox world flight, from the airline connector, in its lowest-price fare family. */
export async function flightSeatMap(deps: Pick<BookingDeps, 'airlines'>, world: World, flightId: string, cabinClass: number): Promise<SeatMapView> {
  const f = world.flights.get(flightId);
  if (!f) throw new ActionRefused(404, 'no such flight');
  try {
    const booking = bookingOf(deps.airlines, f.carrier);
    // The flight's lowest-price fare family, as the sandbox airline prices it (its first listed; STANDARD when none is).
    const family = f.source.fareFamilies?.[0] ?? 'STANDARD';
    const ref = { carrier: f.carrier, flightNumber: f.flightNumber, depDate: f.current.dep.toFormat('yyyyMMdd'), depAirport: f.from, arrAirport: f.to };
    const answer = await booking.seatMap(f.carrier, ref, cabinClass, family, callOpts());
    if (!answer.ok) throw new ActionRefused(409, answer.message);
    return { title: `${f.flightNumber} ${f.from}-${f.to} ${f.current.dep.toFormat('yyyy-MM-dd HH:mm')}`, cabins: answer.cabins };
  } catch (err) {
    if (err instanceof ApiError) throw new ActionRefused(409, err.msg);
    if (err instanceof ConnectorError) throw new ActionRefused(409, `the airline did not answer (${err.kind})`);
    throw err;
  }
}
