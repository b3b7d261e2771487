// The SDK in a browser (Debian's Chromium): the built package, loaded as ES modules by a page of the
// service's own origin, calls the service with the page's fetch, surfaces a business failure as a typed
// error, and verifies a webhook signature with the browser's Web Crypto (decision 0027 "Node 20+ and
// browsers"). Skipped, saying why, where Chromium is not installed (test/support/browser.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeTestApp, type TestApp } from '../src/test-support/app.js';
import { refundWorld } from '../src/test-support/refund-world.js';
import { TEST_CLIENTS } from '../src/test-support/world.js';
import { browserMissing, launchChromium } from './support/browser.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const missing = browserMissing();
let t: TestApp;
let base: string;
let built: string;

before(async () => {
  if (missing) return;
  built = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-client-browser-'));
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'packages/client/tsconfig.json'), '--outDir', built], { stdio: 'pipe' });
  t = await makeTestApp({ world: refundWorld() });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  if (missing) return;
  await t.close();
  fs.rmSync(built, { recursive: true, force: true });
});

test('the built SDK runs in Chromium: calls, typed errors, webhook verification with Web Crypto', { skip: missing ?? false, timeout: 120_000 }, async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // The package's files, served at the service's origin (so the page's fetch needs no CORS)
    await page.route(`${base}/__sdk/**`, async (route) => {
      const file = path.join(built, new URL(route.request().url()).pathname.replace('/__sdk/', ''));
      if (!file.startsWith(built) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      return route.fulfill({ status: 200, contentType: 'text/javascript', body: fs.readFileSync(file, 'utf8') });
    });
    await page.goto(`${base}/healthz`);

    const secret = 'whsec_browser-test-secret';
    const body = JSON.stringify({ eventId: 'e-1', type: 'order.refund', cid: TEST_CLIENTS.alpha.id, time: new Date().toISOString(), sequence: 1, data: { refundCode: '1', refundStatus: 0 } });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    const args = { clientId: TEST_CLIENTS.alpha.id, clientSecret: TEST_CLIENTS.alpha.secret, secret, body, timestamp, signature };
    // A string: the page imports the package by URL, which the test's own compiler cannot resolve.
    type Result = { queryStatus: number; orders: number; failure: { isPostbookError: boolean; status: number; httpStatus: number; requestId: string } | null; eventId: string; tampered: string | null };
    const result = await page.evaluate<Result>(`(async (a) => {
      const sdk = await import('/__sdk/index.js');
      const client = new sdk.PostbookClient({ baseUrl: location.origin, clientId: a.clientId, clientSecret: a.clientSecret });
      const query = await client.refunds.query({ airlinePNR: 'DEP001', carrier: 'XS' });
      let failure = null;
      try {
        await client.refunds.quote({ airlinePNR: 'NOSUCH', carrier: 'XS', refundRequestList: [{ lastName: 'NOBODY', firstName: 'TEST', refundReason: '1',
          segments: [{ depDate: '20300101', flightNo: 'XS101', depAirport: 'HND', arrAirport: 'SGN' }] }] });
      } catch (e) {
        failure = { isPostbookError: e instanceof sdk.PostbookError, status: e.status, httpStatus: e.httpStatus, requestId: e.requestId };
      }
      const headers = new Headers({ 'x-service-webhook-timestamp': a.timestamp, 'x-service-webhook-signature': a.signature });
      const event = await sdk.verifyWebhook({ secret: a.secret, headers, body: a.body });
      let tampered = null;
      try { await sdk.verifyWebhook({ secret: a.secret, headers, body: a.body.replace('"refundStatus":0', '"refundStatus":2') }); } catch (e) { tampered = e.reason; }
      return { queryStatus: query.status, orders: query.refundOrders.length, failure, eventId: event.eventId, tampered };
    })(${JSON.stringify(args)})`);

    assert.equal(result.queryStatus, 0);
    assert.equal(result.orders, 0);
    assert.ok(result.failure, 'the 801 was thrown');
    assert.deepEqual({ ...result.failure, requestId: typeof result.failure.requestId }, { isPostbookError: true, status: 801, httpStatus: 200, requestId: 'string' });
    assert.equal(result.eventId, 'e-1');
    assert.equal(result.tampered, 'bad-signature');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
});

// decision 0048: a page of another origin listed in CORS_ORIGINS calls the service with the SDK; the request id
// and a refusal (401) reach it as the service answered them. Without CORS_ORIGINS the browser blocks the call.
test('a page of another origin: with CORS_ORIGINS the SDK works across origins, without it the browser refuses', { skip: missing ?? false, timeout: 120_000 }, async () => {
  // The agent's page and the package's files from a server of their own on loopback (a page the test fulfils
  // counts as a public one, which Chromium's local-network rules keep from calling loopback at all).
  const agentServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://agent');
    if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>agent</title>');
    const file = path.join(built, url.pathname.replace('/__sdk/', ''));
    if (!url.pathname.startsWith('/__sdk/') || !file.startsWith(built) || !fs.existsSync(file)) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(file, 'utf8'));
  });
  await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
  const agent = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}`;
  const allowed = await makeTestApp({ world: refundWorld(), env: { CORS_ORIGINS: agent } });
  const allowedBase = await allowed.app.listen({ port: 0, host: '127.0.0.1' });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${agent}/`);
    type Outcome = { ok: boolean; status?: number; name?: string; httpStatus?: number; requestId?: string | null };
    const run = (baseUrl: string, secret: string) =>
      page.evaluate<Outcome>(`(async (a) => {
        const sdk = await import('/__sdk/index.js');
        const client = new sdk.PostbookClient({ baseUrl: a.baseUrl, clientId: a.clientId, clientSecret: a.secret, rateLimit: { retries: 0 } });
        try {
          const answer = await client.refunds.query({ airlinePNR: 'DEP001', carrier: 'XS' });
          return { ok: true, status: answer.status };
        } catch (e) {
          return { ok: false, name: e.name, status: e.status, httpStatus: e.httpStatus, requestId: e.requestId };
        }
      })(${JSON.stringify({ clientId: TEST_CLIENTS.alpha.id, baseUrl, secret })})`);

    assert.deepEqual(await run(allowedBase, TEST_CLIENTS.alpha.secret), { ok: true, status: 0 });
    const refused = await run(allowedBase, 'not-the-secret');
    assert.equal(refused.name, 'PostbookError', 'a 401 the page can read, not "Failed to fetch"');
    assert.equal(refused.httpStatus, 401);
    assert.match(String(refused.requestId), /^[0-9a-f-]{36}$/, 'the request id exposed');
    // The service without CORS_ORIGINS: the browser blocks the answer
    const blocked = await run(base, TEST_CLIENTS.alpha.secret);
    assert.equal(blocked.ok, false);
    assert.equal(blocked.name, 'TransportError');
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await allowed.close();
    await new Promise((resolve) => agentServer.close(resolve));
  }
});
