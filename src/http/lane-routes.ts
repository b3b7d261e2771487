// The routes the answer lane writes (lane.ts, decision 0050): each is its route's own work (once the route's pool has
// counted the request), then the bytes the route would send.
import { gzipSync } from 'node:zlib';
import type { RatePool } from '../ratelimit/pools.js';
import type { BookingDeps } from '../booking/airline-calls.js';
import { seatAvailability, type SeatAvailabilityAnswer } from '../booking/seat-availability.js';
import { SeatAvailabilityRequest } from '../booking/seat-wire.js';
import type { AirlineDirectory } from '../airline/connector.js';
import { extractPnr } from '../pnr/extract.js';
import { ExtractPnrRequest, type ExtractPnrResponse } from '../pnr/wire.js';
import type { RefundDeps } from '../refunds/deps.js';
import { quoteRefund } from '../refunds/quote.js';
import { RefundQuotationRequest, type RefundQuotationResponse } from '../refunds/wire.js';
import type { Serialize } from '../booking/seat-cache.js';
import { keptBytes, keptOf } from './kept-answer.js';
import { ANSWER_ZLIB_OPTIONS, COMPRESS_THRESHOLD_BYTES, SYNC_COMPRESS_MAX_BYTES } from './encoding.js';
import type { AnswerSerializers, LaneRoute } from './lane.js';

export const SEAT_MAP_ROUTE = '/seatAvailability.do';
export const EXTRACT_PNR_ROUTE = '/extractPnr.do';
export const REFUND_QUOTATION_ROUTE = '/refundQuotation.do';

/**
 * seatAvailability.do's served maps: bytes of the seat map cache (decision 0014), made by the route's serializer
 * (kept once the route has answered: keepSerializer in seat-map-reply.ts), counted in look-to-book once the pool has
 * counted the request — as the route does (routes.ts).
 */
export function seatMapLaneRoute(booking: BookingDeps, pool: RatePool, serializers: AnswerSerializers): LaneRoute<SeatAvailabilityRequest, SeatAvailabilityAnswer> {
  return {
    url: SEAT_MAP_ROUTE,
    body: SeatAvailabilityRequest,
    pool,
    ready: () => serializers.has(SEAT_MAP_ROUTE),
    prepare: (client, request) => seatAvailability(booking, client.clientId, request, client.settings),
    async write(client, answer, gzip) {
      const out = booking.seatMaps.bytes(answer.parts, gzip, serializers.get(SEAT_MAP_ROUTE) as Serialize);
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

/**
 * refundQuotation.do: a quote is made for each request (its offer recorded, decision 0030), so the lane does the
 * route's whole work in `prepare` and writes the answer with the route's own serializer (kept once the route has
 * answered: keepSerializer), gzipped as @fastify/compress gzips it (1 KB or more, at once up to 4 KB: encoding.ts)
 * for a caller that names no other coding it answers in.
 * No rate pool (spec 8 counts none for refunds). A larger answer for a gzip caller is the route's to write: handed
 * over with the quote made, so no second offer is recorded.
 */
export function refundQuotationLaneRoute(refunds: RefundDeps, serializers: AnswerSerializers): LaneRoute<RefundQuotationRequest, RefundQuotationResponse> {
  return {
    url: REFUND_QUOTATION_ROUTE,
    body: RefundQuotationRequest,
    pool: null,
    ready: () => serializers.has(REFUND_QUOTATION_ROUTE),
    // @fastify/compress picks the route's coding by q-value among gzip and deflate: a caller naming deflate is the
    // route's to answer, whichever it prefers
    takes: (accept) => accept === undefined || !/deflate/i.test(accept),
    prepare: (client, request) => quoteRefund(refunds, { clientId: client.clientId, settings: client.settings }, request),
    async write(_client, answer, gzip) {
      const bytes = Buffer.from(serializers.get(REFUND_QUOTATION_ROUTE)!(answer));
      if (!gzip || bytes.length < COMPRESS_THRESHOLD_BYTES) return { bytes, gzip: false, vary: false, bodyStatus: answer.status };
      if (bytes.length > SYNC_COMPRESS_MAX_BYTES) return null;
      return { bytes: gzipSync(bytes, ANSWER_ZLIB_OPTIONS), gzip: true, vary: true, bodyStatus: answer.status };
    },
  };
}
