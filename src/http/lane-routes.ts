// The routes the answer lane writes (lane.ts, decision 0050): each is its route's own work, split where the route's
// rate pool counts — what the work needs, then the bytes the route would send.
import type { RatePool } from '../ratelimit/pools.js';
import type { BookingDeps } from '../booking/airline-calls.js';
import { seatAvailability, type SeatAvailabilityAnswer } from '../booking/seat-availability.js';
import { SeatAvailabilityRequest } from '../booking/seat-wire.js';
import type { AirlineDirectory } from '../airline/connector.js';
import { extractPnr } from '../pnr/extract.js';
import { ExtractPnrRequest, type ExtractPnrResponse } from '../pnr/wire.js';
import { keptBytes, keptOf } from './kept-answer.js';
import type { LaneRoute } from './lane.js';

export const SEAT_MAP_ROUTE = '/seatAvailability.do';
export const EXTRACT_PNR_ROUTE = '/extractPnr.do';

/**
 * seatAvailability.do's served maps: bytes of the seat map cache (decision 0014), made by the route's serializer
 * (kept by the cache once the route has answered: seat-map-reply.ts), counted in look-to-book once the pool has
 * counted the request — as the route does (routes.ts).
 */
export function seatMapLaneRoute(booking: BookingDeps, pool: RatePool): LaneRoute<SeatAvailabilityRequest, SeatAvailabilityAnswer> {
  return {
    url: SEAT_MAP_ROUTE,
    body: SeatAvailabilityRequest,
    pool,
    ready: () => booking.seatMaps.serializer != null,
    prepare: (client, request) => seatAvailability(booking, client.clientId, request, client.settings),
    async write(client, answer, gzip) {
      const out = booking.seatMaps.bytes(answer.parts, gzip, booking.seatMaps.serializer!);
      try {
        await booking.lookToBook.recordSeatRequest(client.clientId);
      } catch (error) {
        out.release?.();
        throw error;
      }
      return { bytes: out.bytes, gzip: out.gzip, vary: true, bodyStatus: 0, release: out.release };
    },
  };
}

/**
 * extractPnr.do's kept answers (kept-answer.ts): one frozen answer per airline record version, its bytes made by the
 * route the first time it sent them. An answer the route has not sent yet (a record's new version) or one that is
 * not kept (a connector without immutable records) is the route's to write: the lane hands it over with the answer.
 */
export function extractPnrLaneRoute(airlines: AirlineDirectory, pool: RatePool): LaneRoute<ExtractPnrRequest, ExtractPnrResponse> {
  return {
    url: EXTRACT_PNR_ROUTE,
    body: ExtractPnrRequest,
    pool,
    ready: () => true,
    prepare: (_client, request) => extractPnr(airlines, request),
    async write(_client, answer, gzip) {
      const entry = keptOf(answer);
      if (entry === undefined) return null;
      const out = keptBytes(entry, gzip);
      // as sendKept's: Vary only beside the gzip it chose (@fastify/compress adds none to what it leaves alone)
      return { bytes: out.bytes, gzip: out.gzip, vary: out.gzip, bodyStatus: answer.status };
    },
  };
}
