// Client authentication for spec endpoints, admin-token authentication for sandbox admin endpoints.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthBusy, WAITING_VERIFICATIONS, type AuthenticatedClient, type ClientAuthenticator } from '../clients/auth.js';
import { digest, sameDigest } from '../clients/secrets.js';
import { ApiError, COMMON } from '../errors.js';
import { credentialHeaders, credentialOf } from './credentials.js';
import { laneClientOf } from './lane.js';

declare module 'fastify' {
  interface FastifyRequest {
    client: AuthenticatedClient | null;
  }
}

export function clientAuthHook(authenticator: ClientAuthenticator, headerPrefix: string) {
  const names = credentialHeaders(headerPrefix);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    // verified by the answer lane when it took the request, before it handed it over (lane.ts)
    const verified = laneClientOf(request.raw);
    if (verified) {
      request.client = verified;
      return;
    }
    const credential = credentialOf(request.headers, names);
    if (credential === 'missing') throw new ApiError(COMMON.UNAUTHORIZED, `unauthorized: send the ${names.id} and ${names.secret} headers`, 401);
    if (credential === 'oversized') throw new ApiError(COMMON.UNAUTHORIZED, 'unauthorized: client id or secret is wrong', 401);
    let client;
    try {
      client = await authenticator.authenticate(credential.id, credential.secret, request.raw.socket);
    } catch (err) {
      if (!(err instanceof AuthBusy)) throw err;
      // The rate pools' 429 body, both spellings (DESIGN "Wire conventions"; a review: only status and msg), the
      // pool named "auth": the original's clients read code/message/retryAfter
      const retryAfter = err.retryAfterSeconds;
      return reply
        .code(429)
        .header('retry-after', String(retryAfter))
        .type('application/json; charset=utf-8')
        .serializer(JSON.stringify)
        .send({ status: COMMON.AUTH_BUSY, msg: err.message, code: COMMON.AUTH_BUSY, message: err.message, limitType: 'auth', limit: WAITING_VERIFICATIONS, retryAfter });
    }
    if (!client) throw new ApiError(COMMON.UNAUTHORIZED, 'unauthorized: client id or secret is wrong', 401);
    request.client = client;
  };
}

/** Bearer-token routes (/sandbox admin, /metrics with METRICS_TOKEN): 401 unless the token matches; a null token refuses all. */
export function bearerAuthHook(token: string | null, what: string) {
  const expected = token ? digest(token) : null;
  return async (request: FastifyRequest, _reply: FastifyReply) => {
    const header = request.headers.authorization;
    const given = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : null;
    if (!expected || given === null || !sameDigest(digest(given), expected)) {
      throw new ApiError(COMMON.UNAUTHORIZED, `unauthorized: send Authorization: Bearer <${what}>`, 401);
    }
  };
}

/** The authenticated client of a spec endpoint (the hook guarantees it). */
export function callerOf(request: FastifyRequest): AuthenticatedClient {
  if (!request.client) throw new Error('route is missing client authentication');
  return request.client;
}
