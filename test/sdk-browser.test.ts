// The SDK in a browser (Debian's Chromium): the built package, loaded as ES modules by a page of the
// service's own origin, calls the service with the page's fetch, surfaces a business failure as a typed
// error, and verifies a webhook signature with the browser's Web Crypto (decision 0027 "Node 20+ and
// browsers"). Skipped, saying why, where Chromium is not installed (test/support/browser.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
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
