// Content coding of answers that are kept as bytes (the seat maps, extractPnr.do's kept answers): these are
// gzipped once and the bytes kept with them, instead of being compressed again for every caller by
// @fastify/compress (a fresh deflate state per answer: 35–55 µs more for extractPnr.do's, decision 0040).
import { constants as zlibConstants } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BoundedMap } from '../bounded-map.js';

/** acceptsGzip's answers by header text: callers send one of a few values again and again (bounded: any value may come). */
const GZIP_ACCEPTED = new BoundedMap<string, boolean>(256);
/** Longer headers are read each time (none kept). */
const MAX_KEPT_HEADER_CHARS = 200;

/** Whether an Accept-Encoding header allows gzip (q > 0, by name or by `*`). */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.length > MAX_KEPT_HEADER_CHARS ? readsGzip(header) : GZIP_ACCEPTED.getOrMake(header, readsGzip);
}

function readsGzip(header: string): boolean {
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

/** The codings postbook answers in besides identity (@fastify/compress's `encodings`). */
export const ANSWER_CODINGS = ['gzip', 'deflate'] as const;

/**
 * An Accept-Encoding header with `*` written out as the codings it stands for, or the header itself when it has
 * none. `*` matches only the codings the header does not name (RFC 9110 §12.5.3): `gzip;q=0, *` allows deflate,
 * not gzip. @fastify/compress reads `*` as gzip whatever else the header says, so a caller that refused gzip got
 * it; given this header instead, it negotiates as the RFC says. Only headers with `*` pay for the parse.
 */
export function explicitCodings(header: string): string {
  if (!header.includes('*')) return header;
  const named = new Set<string>();
  const kept: string[] = [];
  let star: string | null = null;
  for (const part of header.split(',')) {
    const entry = part.trim();
    if (!entry) continue;
    const [rawName, ...params] = entry.split(';');
    const name = rawName!.trim().toLowerCase();
    if (name === '*') {
      const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
      star = q === undefined ? '' : `;${q}`;
      continue;
    }
    named.add(name === 'x-gzip' ? 'gzip' : name);
    kept.push(entry);
  }
  if (star !== null) for (const coding of ANSWER_CODINGS) if (!named.has(coding)) kept.push(`${coding}${star}`);
  return kept.join(', ');
}

/**
 * Whether this request's answer goes out gzipped: the caller accepts gzip and has not asked for none
 * (`x-no-compression`, as @fastify/compress reads it).
 */
export function wantsGzip(request: FastifyRequest): boolean {
  return acceptsGzip(request.headers['accept-encoding']) && request.headers['x-no-compression'] === undefined;
}

/** Answers shorter than this go out uncompressed (@fastify/compress's `threshold`, and the kept answers'). */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/** zlib's options for answers compressed one by one (@fastify/compress's, and the answer lane's): the fastest level. */
export const ANSWER_ZLIB_OPTIONS = { level: zlibConstants.Z_BEST_SPEED };

/**
 * Answers up to this size are compressed by @fastify/compress at once (`gzipSync` with ANSWER_ZLIB_OPTIONS, a length
 * given) on any host: its `syncThreshold` is 4–64 KB by the host's cores, 4 KB at the least; larger ones may be
 * streamed (chunked). The answer lane writes only what @fastify/compress would write at once.
 */
export const SYNC_COMPRESS_MAX_BYTES = 4096;

/**
 * Adds Accept-Encoding to the answer's Vary, keeping what is there (CORS_ORIGINS's `Origin`: a plain `header()`
 * replaced it, a review found); without one, sets it alone as before.
 */
export function varyOnEncoding(reply: FastifyReply): FastifyReply {
  const given = reply.getHeader('vary');
  if (given === undefined) return reply.header('vary', 'accept-encoding');
  const text = Array.isArray(given) ? given.join(', ') : String(given);
  return /(^|,)\s*accept-encoding\s*(,|$)/i.test(text) ? reply : reply.header('vary', `${text}, accept-encoding`);
}
