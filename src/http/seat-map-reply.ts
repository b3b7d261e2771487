// seatAvailability.do writes its answer as bytes from the seat map cache (decision 0014), gzipped when the
// caller accepts it; this is the HTTP half of that, kept out of the route table.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SeatMapCache, Serialize } from '../booking/seat-cache.js';
import type { SeatAvailabilityAnswer } from '../booking/seat-availability.js';
import { varyOnEncoding, wantsGzip } from './encoding.js';
import { keepSerializer, type AnswerSerializers } from './lane.js';
import { SEAT_MAP_ROUTE } from './lane-routes.js';

/**
 * Sends a seat map answer. The bytes are made by this route's own serializer (reply.serialize, the response
 * schema) when the cache built them.
 */
export function sendSeatMap(seatMaps: SeatMapCache, serializers: AnswerSerializers, request: FastifyRequest, reply: FastifyReply, answer: SeatAvailabilityAnswer): FastifyReply {
  const gzip = wantsGzip(request);
  // The route's compiled serializer (its 200 schema), kept for the answer lane (lane-routes.ts) and
  // for this route's later maps (no closure a request)
  const serialize = (keepSerializer(serializers, SEAT_MAP_ROUTE, reply) as Serialize | undefined) ?? ((body) => reply.serialize(body) as string);
  const out = seatMaps.bytes(answer.parts, gzip, serialize);
  // a reused buffer goes back once written out (after 'finish' the socket holds no reference to it)
  if (out.release) reply.raw.once('finish', out.release);
  varyOnEncoding(reply.type('application/json; charset=utf-8'));
  if (out.gzip) reply.header('content-encoding', 'gzip');
  reply.bodyStatus = 0; // only maps are answered as bytes
  return reply.send(out.bytes);
}
