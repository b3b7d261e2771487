// Content coding of answers that are kept as bytes (the seat maps, extractPnr.do's kept answers): these are
// gzipped once and the bytes kept with them, instead of being compressed again for every caller by
// @fastify/compress (a fresh deflate state per answer: 35–55 µs more for extractPnr.do's, decision 0040).
import type { FastifyRequest } from 'fastify';

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
 * Whether this request's answer goes out gzipped: the caller accepts gzip and has not asked for none
 * (`x-no-compression`, as @fastify/compress reads it).
 */
export function wantsGzip(request: FastifyRequest): boolean {
  return acceptsGzip(request.headers['accept-encoding']) && request.headers['x-no-compression'] === undefined;
}

/** Answers shorter than this go out uncompressed (@fastify/compress's `threshold`, and the kept answers'). */
export const COMPRESS_THRESHOLD_BYTES = 1024;
