// The client-authentication hook's answers: a burst of new credentials it cannot check now is refused with the
// rate pools' 429 body (DESIGN "Wire conventions": both spellings, the pool, its limit and Retry-After).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { AuthBusy, WAITING_VERIFICATIONS, type ClientAuthenticator } from '../clients/auth.js';
import { clientAuthHook } from './auth.js';

test('authentication busy: HTTP 429 with Retry-After and the rate pools\' body, pool "auth" (found by a review: status and msg only)', async () => {
  const busy = { authenticate: () => Promise.reject(new AuthBusy('authentication is busy: too many new credentials at once; retry in 1 s', 1)) } as unknown as ClientAuthenticator;
  const app = Fastify();
  app.addHook('onRequest', clientAuthHook(busy, 'service'));
  app.post('/refund.do', async () => ({ status: 0 }));
  try {
    const res = await app.inject({ method: 'POST', url: '/refund.do', headers: { 'x-service-client-id': 'a', 'x-service-client-secret': 'b', 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(res.statusCode, 429);
    assert.equal(res.headers['retry-after'], '1');
    const msg = 'authentication is busy: too many new credentials at once; retry in 1 s';
    assert.deepEqual(res.json(), { status: 429, msg, code: 429, message: msg, limitType: 'auth', limit: WAITING_VERIFICATIONS, retryAfter: 1 });
  } finally {
    await app.close();
  }
});
