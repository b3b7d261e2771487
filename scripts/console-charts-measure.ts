// How long the console's charts page takes to draw (docs/console.md "Performance"): the demo world with refunds
// completed over several days, an operator logged in through Chromium (test/support/browser.ts), then N visits of
// the charts page from the queue: the click to both charts' bars in the page, as the browser sees it (no round
// trip between this script and the browser in it) and as this script sees it. Builds the console first when
// stale. Usage: npx tsx scripts/console-charts-measure.ts [visits=10]
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { createOperator } from '../src/console/operators.js';
import { call, makeTestApp } from '../src/test-support/app.js';
import { ensureConsoleBuilt } from '../test/support/console-build.js';
import { launchChromium } from '../test/support/browser.js';

const visits = Number(process.argv[2] ?? 10);
ensureConsoleBuilt();
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../worlds/demo.yaml'), 'utf8')) as WorldFile;
const t = await makeTestApp({ world, workers: true });
const browser = await launchChromium();
try {
  const f = (id: string) => {
    const x = t.world.flights.get(id)!;
    return { depDate: x.current.dep.toFormat('yyyyMMdd'), flightNo: x.flightNumber, depAirport: x.from, arrAirport: x.to };
  };
  const r = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments: [f('XS101-out'), f('XS102-ret')] }] }, { client: { id: 'demo-agency', secret: 'demo-agency-secret-2026' } });
  if (r.body.status !== 0) throw new Error(JSON.stringify(r.body));
  // Until refunded (2): both charts have bars.
  for (let i = 0; i < 200; i++) {
    const s = await t.store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', String(r.body.refundCode)).executeTakeFirstOrThrow();
    if (s.status === 2) break;
    t.clock.advance(12_000);
    await new Promise((res) => setTimeout(res, 200));
  }
  await createOperator(t.store.db, { login: 'mia.measure', password: 'a-long-console-password-2026', role: 'viewer' }, new Date());
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  const page = await (await browser.newContext({ viewport: { width: 1366, height: 768 } })).newPage();
  await page.goto(`${base}/console`);
  await page.getByLabel('Login').fill('mia.measure');
  await page.getByLabel('Password').fill('a-long-console-password-2026');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForSelector('h1 >> text=Refund queue');
  await page.waitForTimeout(3_000); // the idle prefetch of the chunks
  const inBrowser: number[] = [];
  const outside: number[] = [];
  for (let i = 0; i < visits; i++) {
    await page.getByRole('link', { name: 'Refund queue' }).click();
    await page.waitForSelector('h1 >> text=Refund queue');
    await page.waitForTimeout(300);
    const t0 = Date.now();
    // In the browser: from the click to both charts' bars in the document.
    // (A string: tsx would wrap a function's inner functions in a helper the page does not have.)
    const measured = page.evaluate<number>(`new Promise((resolve) => {
      const start = performance.now();
      document.querySelector('a[href$="/charts"]').click();
      const check = () => {
        if (document.querySelector('[data-testid=chart-time-to-refund] svg .recharts-bar-rectangle') && document.querySelector('[data-testid=chart-per-day] svg .recharts-bar-rectangle')) resolve(performance.now() - start);
        else requestAnimationFrame(check);
      };
      check();
    })`);
    inBrowser.push(Math.round(await measured));
    outside.push(Date.now() - t0);
  }
  // The data alone: the charts call as the page makes it.
  const fetches: number[] = [];
  for (let i = 0; i < visits; i++) {
    fetches.push(Math.round(await page.evaluate<number>(`(async () => { const s = performance.now(); await (await fetch('/console/api/charts?days=30')).json(); return performance.now() - s; })()`)));
  }
  console.log(`the charts data alone (GET /console/api/charts?days=30): median ${[...fetches].sort((a, b) => a - b)[Math.floor(fetches.length / 2)]} ms [${fetches.join(' ')}]`);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`charts page, ${visits} visits: in the browser median ${med(inBrowser)} ms [${inBrowser.join(' ')}]; as the script sees it median ${med(outside)} ms`);
} finally {
  await browser.close();
  await t.close();
}
