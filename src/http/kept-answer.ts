// Answers shared by every request of one version of their data are serialized once (issue 7: "the record's
// wire answer is built once per record version"). extractPnr.do hands out one deep-frozen answer object per
// airline record version (src/pnr/extract.ts); its JSON text is made the first time by the route's own
// serializer (reply.serialize: the response schema, the same bytes as any other answer) and kept, as UTF-8
// bytes, by the object's identity, so a repeated extract skips serialization and the serialization hooks. For
// a caller that accepts gzip those bytes are gzipped once too and kept beside them, as the seat maps' are
// (decision 0014): compressed per answer by @fastify/compress, they cost 35–55 µs more (decision 0040).
import { constants as zlibConstants, gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESS_THRESHOLD_BYTES, varyOnEncoding, wantsGzip } from './encoding.js';

export interface Kept {
  /** The JSON text as UTF-8. */
  body: Buffer;
  /** The body gzipped, made for the first caller that accepts it; null while none has. */
  gzip: Buffer | null;
}

const kept = new WeakMap<object, Kept>();

/** Kept bodies gzipped so far in this process (a test reads it: once per kept answer, not once per caller). */
export const keptAnswerStats = { gzipped: 0 };

/** The kept bytes of a frozen answer serialized before (by sendKept), or undefined. */
export function keptOf(answer: object): Kept | undefined {
  return kept.get(answer);
}

/**
 * The bytes to send of a kept answer: its gzip when the caller accepts gzip and the body is long enough for
 * @fastify/compress to have compressed it (made once, for every later caller: the smallest bytes, decision 0040),
 * else its JSON.
 */
export function keptBytes(entry: Kept, gzip: boolean): { bytes: Buffer; gzip: boolean } {
  if (!gzip || entry.body.length < COMPRESS_THRESHOLD_BYTES) return { bytes: entry.body, gzip: false };
  if (entry.gzip === null) {
    entry.gzip = gzipSync(entry.body, { level: zlibConstants.Z_BEST_COMPRESSION });
    keptAnswerStats.gzipped++;
  }
  return { bytes: entry.gzip, gzip: true };
}

/**
 * Sends `answer` as its kept JSON bytes when it is a frozen (shared, unchanging) object — their kept gzip when
 * the caller accepts gzip and they are long enough for @fastify/compress to have compressed them; otherwise
 * returns it for Fastify to serialize as usual. From a handler: `return sendKept(request, reply, answer)`. The
 * answer lane writes the same bytes with the same headers (lane.ts, lane-routes.ts).
 */
export function sendKept<T extends { status: number }>(
  request: FastifyRequest,
  reply: FastifyReply,
  answer: T,
): T | FastifyReply {
  if (!Object.isFrozen(answer)) return answer;
  let entry = kept.get(answer);
  if (entry === undefined) {
    entry = { body: Buffer.from(reply.serialize(answer) as string), gzip: null };
    kept.set(answer, entry);
  }
  reply.bodyStatus = answer.status; // the metrics' body status (no preSerialization hook for a text)
  reply.type('application/json; charset=utf-8');
  const out = keptBytes(entry, wantsGzip(request));
  // Content-Encoding set: @fastify/compress leaves the bytes as they are.
  if (out.gzip) return varyOnEncoding(reply).header('content-encoding', 'gzip').send(out.bytes);
  return reply.send(out.bytes);
}
