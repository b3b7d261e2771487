// docs/architecture.md "Wire conventions": the error model, gzip, request ids, header prefix.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync, gzipSync } from 'node:zlib';
import { authHeaders, call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import type { AirlineRecord } from '../airline/connector.js';

const body = {
  airlinePnr: 'TST001',
  carrier: 'XS',
  passengers: [{ firstName: PLANTED.names[1], lastName: PLANTED.names[0] }],
  contact: { email: PLANTED.emails[0] },
  routing: { fromSegments: [] },
};

describe('wire conventions', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('a body that is not JSON: HTTP 400, status 901', async () => {
    const res = await call(t.app, '/extractPnr.do', '{"airlinePnr": ');
    assert.equal(res.http, 400);
    assert.equal(res.body.status, 901);
    assert.match(String(res.body.msg), /not valid JSON/);
    const empty = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers: { ...authHeaders(), 'content-type': 'application/json' }, payload: '' });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().status, 901);
  });

  test('a JSON value that is not an object is a validation failure of the family (100)', async () => {
    const res = await call(t.app, '/extractPnr.do', '[1,2]');
    assert.equal(res.http, 200);
    assert.equal(res.body.status, 100);
  });

  test('a content type other than JSON: HTTP 415, status 901', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers: { ...authHeaders(), 'content-type': 'text/plain' }, payload: 'hello' });
    assert.equal(res.statusCode, 415);
    assert.deepEqual(Object.keys(res.json()), ['status', 'msg']);
    assert.equal(res.json().status, 901);
  });

  test('a body over the limit: HTTP 413 with a status body', async () => {
    const huge = JSON.stringify({ ...body, requestSource: 'x'.repeat(t.config.bodyLimitBytes + 10) });
    const res = await call(t.app, '/extractPnr.do', huge);
    assert.equal(res.http, 413);
    assert.equal(res.body.status, 413);
  });

  test('a body in a coding we do not read: HTTP 415, status 901 (not 500); a coding in capitals is read (found by a review)', async () => {
    for (const coding of ['zstd', 'compress', 'gzip, identity']) {
      const res = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers: { ...authHeaders(), 'content-type': 'application/json', 'content-encoding': coding }, payload: JSON.stringify(body) });
      assert.equal(res.statusCode, 415, `${coding}: ${res.body}`);
      assert.equal(res.json().status, 901);
      assert.match(res.json().msg, /Content-Encoding must be one of gzip, deflate, br or identity/);
    }
    const res = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers: { ...authHeaders(), 'content-type': 'application/json', 'content-encoding': 'GZIP' }, payload: gzipSync(JSON.stringify(body)) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().status, 0);
  });

  test('a path that is not a valid URL: the status body with the request id, not the framework\'s own (found by a review)', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/%' });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(Object.keys(res.json()), ['status', 'msg']);
    assert.equal(res.json().status, 404);
    assert.ok(res.headers['x-request-id']);
    assert.match(res.json().msg, /not a valid URL path/);
  });

  test('an unknown endpoint: HTTP 404 with a status body', async () => {
    const res = await call(t.app, '/nope.do', {});
    assert.equal(res.http, 404);
    assert.equal(res.body.status, 404);
  });

  test('an internal failure: HTTP 500, status 9999, no internals, the request id to quote', async () => {
    class Broken extends SandboxConnector {
      override readRecord(): Promise<AirlineRecord | null> {
        return Promise.reject(new TypeError('secret internal detail at /srv/postbook/x.ts:42'));
      }
    }
    const b = await makeTestApp({ connectors: (w) => [new Broken(w)] });
    try {
      const res = await call(b.app, '/extractPnr.do', body, { headers: { 'x-request-id': 'trace-me-123' } });
      assert.equal(res.http, 500);
      assert.equal(res.body.status, 9999);
      assert.doesNotMatch(res.raw, /secret internal detail|x\.ts|TypeError|stack/);
      assert.match(String(res.body.msg), /trace-me-123/);
      assert.equal(res.headers['x-request-id'], 'trace-me-123');
    } finally {
      await b.close();
    }
  });

  test('gzip when the caller accepts it; plain otherwise', async () => {
    const headers = { ...authHeaders(), 'content-type': 'application/json', 'accept-encoding': 'gzip' };
    const res = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers, payload: JSON.stringify(body) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-encoding'], 'gzip');
    const decoded = JSON.parse(gunzipSync(res.rawPayload).toString('utf8'));
    assert.equal(decoded.status, 0);
    const plain = await call(t.app, '/extractPnr.do', body);
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body.status, 0);
    // decision 0040: an answer compressed for its caller alone at zlib's fastest level (the gzip header's XFL
    // byte: 4), a kept one at its best (2: made once for every later caller)
    const doc = await t.app.inject({ method: 'GET', url: '/openapi.json', headers: { 'accept-encoding': 'gzip' } });
    assert.equal(doc.headers['content-encoding'], 'gzip');
    assert.equal(doc.rawPayload[8], 4);
    assert.equal(res.rawPayload[8], 2);
  });

  test('every response carries a request id; a sane caller id is kept, a weird one replaced', async () => {
    const a = await call(t.app, '/extractPnr.do', body);
    assert.match(String(a.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    const b = await call(t.app, '/extractPnr.do', body, { headers: { 'x-request-id': 'abc.DEF-1' } });
    assert.equal(b.headers['x-request-id'], 'abc.DEF-1');
    const c = await call(t.app, '/extractPnr.do', body, { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.notEqual(c.headers['x-request-id'], 'bad id with spaces');
  });

  test('Accept of */* or none is fine', async () => {
    for (const accept of ['*/*', undefined]) {
      const headers: Record<string, string> = { ...authHeaders(), 'content-type': 'application/json; charset=utf-8' };
      if (accept) headers.accept = accept;
      const res = await t.app.inject({ method: 'POST', url: '/extractPnr.do', headers, payload: JSON.stringify(body) });
      assert.equal(res.json().status, 0);
    }
  });

  test('HEADER_PREFIX: another brand word replaces "service" in the auth headers', async () => {
    const b = await makeTestApp({ env: { HEADER_PREFIX: 'acme' } });
    try {
      const branded = await call(b.app, '/extractPnr.do', body, { client: null, headers: authHeaders(undefined, 'acme') });
      assert.equal(branded.body.status, 0);
      const neutral = await call(b.app, '/extractPnr.do', body);
      assert.equal(neutral.http, 401);
      assert.match(String(neutral.body.msg), /x-acme-client-id/);
    } finally {
      await b.close();
    }
  });

  test('health, metrics and the OpenAPI document need no credentials', async () => {
    const health = await t.app.inject({ method: 'GET', url: '/health' });
    assert.equal(health.json().status, 'ok');
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.match(metrics.body, /postbook_http_request_duration_seconds/);
    const openapi = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    const doc = openapi.json();
    assert.ok(doc.paths['/extractPnr.do'].post);
    assert.ok(doc.paths['/pnr/claim.do'].post);
  });

  test('GET / points to the OpenAPI document, without credentials', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /application\/json/);
    assert.equal(res.json().openapi, '/openapi.json');
    const doc = await t.app.inject({ method: 'GET', url: res.json().openapi });
    assert.equal(doc.statusCode, 200);
  });

  test('a path written as a route pattern (/:x(, /console/*) is an unknown path: 404, not HTTP 500 or 405 (found by a review)', async () => {
    for (const [method, url] of [['POST', '/:x('], ['GET', '/:a(a)b:c('], ['POST', '/console/*'], ['GET', '/refund.do/:id']] as const) {
      const res = await t.app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: method === 'GET' ? undefined : '{}' });
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
      assert.equal(res.json().status, 404);
    }
  });

  test('a wrong method on an endpoint: HTTP 405, an Allow header and a status body', async () => {
    for (const url of ['/refund.do', '/seatAvailability.do', '/pnr/claim.do', '/order.do']) {
      // no credentials needed to learn the method
      const res = await t.app.inject({ method: 'GET', url: `${url}?x=1` });
      assert.equal(res.statusCode, 405, url);
      assert.equal(res.headers.allow, 'POST', url);
      assert.deepEqual(Object.keys(res.json()), ['status', 'msg']);
      assert.equal(res.json().status, 405);
      assert.match(res.json().msg, /GET is not allowed on .*; use POST/);
    }
    for (const method of ['PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const) {
      const res = await t.app.inject({ method, url: '/refundQuotation.do' });
      assert.equal(res.statusCode, 405, method);
      assert.equal(res.headers.allow, 'POST', method);
    }
    const health = await t.app.inject({ method: 'POST', url: '/health', headers: { 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(health.statusCode, 405);
    assert.equal(health.headers.allow, 'GET, HEAD');
    assert.equal(health.json().status, 405);
    // a path no method has is still 404
    const none = await t.app.inject({ method: 'GET', url: '/nope.do' });
    assert.equal(none.statusCode, 404);
    assert.equal(none.json().status, 404);
  });
});
