// Cross-origin calls from the browser pages of the origins CORS_ORIGINS lists (decision 0048): the preflight
// answered, Access-Control-Allow-Origin on every answer of the API (errors included: a 401 or 429 a browser
// could not read reached the SDK as "Failed to fetch"), and the request id and Retry-After exposed. Never for
// the operator console, whose cookie session stays same-origin. Unset: no CORS header anywhere (the default).
import type { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyRequest } from 'fastify';

/** How long a browser may keep a preflight's answer (seconds). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function corsDelegator(origins: readonly string[]): (req: FastifyRequest, cb: (err: Error | null, options?: FastifyCorsOptions) => void) => void {
  const api: FastifyCorsOptions = {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'POST'],
    // The request's own headers are allowed (the SDK's, plus a caller's tracing headers); none grants anything
    // by itself: the client id and secret still authenticate every call.
    exposedHeaders: ['x-request-id', 'retry-after'],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
  };
  const none: FastifyCorsOptions = { origin: false };
  return (req, cb) => cb(null, req.url === '/console' || req.url.startsWith('/console/') || req.url.startsWith('/console?') ? none : api);
}
