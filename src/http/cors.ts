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
  return (req, cb) => {
    // An OPTIONS that is no preflight (no Origin or no Access-Control-Request-Method) is answered as before
    // (404/405 in the envelope), not with the plugin's plain-text 400.
    const preflightLike = req.method !== 'OPTIONS' || (req.headers.origin !== undefined && req.headers['access-control-request-method'] !== undefined);
    cb(null, preflightLike && !forConsole(req) ? api : none);
  };
}

/**
 * Whether a request is for the console: by the route it matched, or (a preflight matches the catch-all OPTIONS
 * route) by its path decoded as the router decodes it (a review: `/%63onsole/api/login` passed a plain prefix test).
 */
function forConsole(req: FastifyRequest): boolean {
  const route = req.routeOptions.url;
  if (route !== undefined && route !== '*' && route !== '/*') return route === '/console' || route.startsWith('/console/');
  const raw = req.url.split('?')[0] ?? '';
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // not decodable: the router will not find a console route either
  }
  return path === '/console' || path.startsWith('/console/');
}
