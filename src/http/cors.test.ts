// CORS_ORIGINS (decision 0048): the preflight answered for a listed origin, Access-Control-Allow-Origin on every
// answer of the API (a refusal included), the request id and Retry-After exposed; nothing for an origin not
// listed, nothing for the operator console, nothing at all when unset. The real browser: test/sdk-browser.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { authHeaders, makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { loadConfig } from '../config.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { seatSegments, verifyFlights } from '../test-support/booking.js';

const AGENT = 'https://agent.example.com';
const preflight = (t: TestApp, url: string, origin = AGENT) =>
  t.app.inject({
    method: 'OPTIONS',
    url,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-service-client-id,x-service-client-secret,idempotency-key' },
  });
const query = (t: TestApp, origin: string, secret: string = TEST_CLIENTS.alpha.secret) =>
  t.app.inject({ method: 'POST', url: '/queryRefundOrders.do', headers: { origin, 'content-type': 'application/json', ...authHeaders({ ...TEST_CLIENTS.alpha, secret }) }, payload: { airlinePNR: 'NOSUCH', carrier: 'XS' } });

describe('CORS_ORIGINS set', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: bookingWorld(), env: { CORS_ORIGINS: `${AGENT}, http://localhost:5173` } });
  });
  after(() => t.close());

  test('a listed origin: the preflight allows POST and the headers asked for, kept 10 minutes', async () => {
    const res = await preflight(t, '/queryRefundOrders.do');
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], AGENT);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    assert.match(String(res.headers['access-control-allow-headers']), /x-service-client-secret/);
    assert.equal(res.headers['access-control-max-age'], '600');
    assert.equal(res.headers['access-control-allow-credentials'], undefined, 'no cookies cross origin');
  });

  test('every answer carries the origin and exposes the request id and Retry-After, a 401 included', async () => {
    for (const [secret, http] of [[TEST_CLIENTS.alpha.secret, 200], ['not-the-secret', 401]] as const) {
      const res = await query(t, AGENT, secret);
      assert.equal(res.statusCode, http);
      assert.equal(res.headers['access-control-allow-origin'], AGENT, String(http));
      assert.match(String(res.headers['access-control-expose-headers']), /x-request-id.*retry-after/);
      assert.match(String(res.headers.vary), /origin/i, 'caches keep answers per origin');
    }
    assert.equal((await query(t, 'http://localhost:5173')).headers['access-control-allow-origin'], 'http://localhost:5173');
  });

  test('an origin not listed, and the console, get no CORS header', async () => {
    assert.equal((await query(t, 'https://evil.example')).headers['access-control-allow-origin'], undefined);
    assert.equal((await preflight(t, '/queryRefundOrders.do', 'https://evil.example')).headers['access-control-allow-origin'], undefined);
    for (const url of ['/console/api/login', '/console/api/session', '/console', '/%63onsole/api/login', '/console%2Fapi/login']) {
      assert.equal((await preflight(t, url)).headers['access-control-allow-origin'], undefined, url);
    }
    for (const url of ['/console/api/login', '/%63onsole/api/login']) {
      const login = await t.app.inject({ method: 'POST', url, headers: { origin: AGENT, 'content-type': 'application/json' }, payload: { login: 'nobody', password: 'nothing-at-all' } });
      assert.equal(login.headers['access-control-allow-origin'], undefined, url);
    }
  });

  test('an OPTIONS that is no preflight is answered as without CORS (the envelope), not with a plain-text 400', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/queryRefundOrders.do', headers: { origin: AGENT } });
    assert.notEqual(res.statusCode, 204);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.equal(typeof res.json().status, 'number');
  });

  test("answers that set their own Vary (seat maps, kept extract answers) keep Origin in it", async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    for (const gzip of [false, true]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/seatAvailability.do',
        headers: { origin: AGENT, 'content-type': 'application/json', ...(gzip ? { 'accept-encoding': 'gzip' } : {}), ...authHeaders(TEST_CLIENTS.alpha) },
        payload: { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], AGENT);
      const vary = String(res.headers.vary).toLowerCase();
      assert.ok(vary.includes('origin') && vary.includes('accept-encoding'), `gzip ${gzip}: ${vary}`);
    }
  });
});

describe('CORS_ORIGINS unset (the default)', () => {
  test('no CORS header on an answer or a preflight', async () => {
    const t = await makeTestApp();
    try {
      assert.equal((await query(t, AGENT)).headers['access-control-allow-origin'], undefined);
      const res = await preflight(t, '/queryRefundOrders.do');
      assert.equal(res.headers['access-control-allow-origin'], undefined);
      assert.notEqual(res.statusCode, 204);
    } finally {
      await t.close();
    }
  });

  test('config: origins only (no path, no slash at the end), * in sandbox mode only', () => {
    assert.deepEqual(loadConfig({ CORS_ORIGINS: ' https://a.example , http://127.0.0.1:8081' }).corsOrigins, ['https://a.example', 'http://127.0.0.1:8081']);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, ['*']);
    for (const bad of ['https://a.example/', 'https://a.example/app', 'a.example', 'ftp://a.example']) {
      assert.throws(() => loadConfig({ CORS_ORIGINS: bad }), /CORS_ORIGINS must be origins/, bad);
    }
    assert.throws(() => loadConfig({ CORS_ORIGINS: '*', SANDBOX: 'false' }), /sandbox mode only/);
  });
});
