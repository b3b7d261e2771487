// GET /docs in a real browser (Debian's Chromium): the reference renders every endpoint of /openapi.json
// from the service's own assets, with no request leaving the machine; a screenshot goes to
// test-results/docs.png.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { makeTestApp, type TestApp } from '../src/test-support/app.js';
import { browserMissing, launchChromium, resultPath } from './support/browser.js';

const missing = browserMissing();
let t: TestApp;
let base: string;
before(async () => {
  if (missing) return;
  t = await makeTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  if (!missing) await t.close();
});

test('/docs renders every documented operation in Chromium, from local assets only', { skip: missing ?? false, timeout: 120_000 }, async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, object>; webhooks: Record<string, object> }>();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/docs`);
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
    const shown = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent ?? ''));
    // every path, and every webhook payload (OpenAPI 3.1 `webhooks`, shown by its event type)
    assert.deepEqual([...new Set(shown)].sort(), [...Object.keys(doc.paths), ...Object.keys(doc.webhooks)].sort());
    assert.deepEqual(elsewhere, [], 'the page fetched something from outside the service');
    assert.deepEqual(errors, []);
    const file = resultPath('docs.png');
    await page.screenshot({ path: file, fullPage: false });
    assert.ok(fs.statSync(file).size > 20_000, 'the screenshot shows a rendered page');
  } finally {
    await browser.close();
  }
});
