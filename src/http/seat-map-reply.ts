// seatAvailability.do writes its answer as bytes from the seat map cache (decision 0014), gzipped when the
// caller accepts it; this is the HTTP half of that, kept out of the route table.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SeatMapCache } from '../booking/seat-cache.js';
import type { SeatAvailabilityAnswer } from '../booking/seat-availability.js';

/** Whether an Accept-Encoding header allows gzip (q > 0, by name or by `*`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const allowed = q === undefined || Number(q.slice(2)) > 0;
    if (name === 'gzip') return allowed;
    if (name === '*') star = allowed;
  }
  return star;
}

/**
 * Sends a seat map answer. The bytes are made by this route's own serializer (reply.serialize, the response
 * schema) when the cache built them.
 */
export function sendSeatMap(seatMaps: SeatMapCache, request: FastifyRequest, reply: FastifyReply, answer: SeatAvailabilityAnswer): FastifyReply {
  const gzip = acceptsGzip(request.headers['accept-encoding']) && request.headers['x-no-compression'] === undefined;
  const out = seatMaps.bytes(answer.parts, gzip, (body) => reply.serialize(body) as string);
  // a reused buffer goes back once written out (after 'finish' the socket holds no reference to it)
  if (out.release) reply.raw.once('finish', out.release);
  reply.type('application/json; charset=utf-8').header('vary', 'accept-encoding');
  if (out.gzip) reply.header('content-encoding', 'gzip');
  reply.bodyStatus = 0; // only maps are answered as bytes
  return reply.send(out.bytes);
}
