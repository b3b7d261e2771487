// The security cases every spec endpoint must pass (spec 5; docs/architecture.md "Security"), in one shared helper.
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { call } from './app.js';
import { TEST_CLIENTS } from './world.js';

export async function assertAuthenticationRequired(app: FastifyInstance, url: string, validBody: unknown): Promise<void> {
  const cases: Array<[string, Record<string, string> | undefined, { id: string; secret: string } | null]> = [
    ['no credentials', undefined, null],
    ['wrong secret', undefined, { id: TEST_CLIENTS.alpha.id, secret: 'not-the-secret-000000' }],
    ['unknown client', undefined, { id: 'no-such-client', secret: TEST_CLIENTS.alpha.secret }],
    ['another client’s secret', undefined, { id: TEST_CLIENTS.alpha.id, secret: TEST_CLIENTS.beta.secret }],
    ['id without secret', { 'x-service-client-id': TEST_CLIENTS.alpha.id }, null],
    ['empty secret', { 'x-service-client-id': TEST_CLIENTS.alpha.id, 'x-service-client-secret': '' }, null],
  ];
  for (const [name, headers, client] of cases) {
    const res = await call(app, url, validBody, { client, ...(headers ? { headers } : {}) });
    // spec 5 + docs/architecture.md "Wire conventions": 900 unauthorized, HTTP 401
    assert.equal(res.http, 401, `${url} ${name}: HTTP`);
    assert.equal(res.body.status, 900, `${url} ${name}: status`);
    assert.equal(typeof res.body.msg, 'string', `${url} ${name}: msg`);
    assert.ok(res.headers['x-request-id'], `${url} ${name}: request id`);
  }
  // The same call with the right credentials is not refused for authentication.
  const ok = await call(app, url, validBody);
  assert.notEqual(ok.http, 401, `${url}: valid credentials are accepted`);
}
