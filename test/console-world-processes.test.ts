// docs/console.md "Sandbox": the world reloaded from the console of one process is the world of every process on the
// store. Two real processes on PostgreSQL: an API process (WORKERS=false) and a `postbook worker`. After the
// reload, a refund submitted through the API is decided by the worker's sandbox airline as the reloaded file says
// (rejected), not as the file it started with says (accepted).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import pg from 'pg';
import { ROOT, spawnNode, startServer, waitForLog } from './support/processes.js';
import { cleanUp, DATABASE_URL, freshDatabase, logged, post, sleep, tmpDir } from './support/crash.js';
import { PLANTED } from '../src/test-support/planted.js';

const DEMO = { 'content-type': 'application/json', 'x-service-client-id': 'demo-agency', 'x-service-client-secret': 'demo-agency-secret-2026' };
// A planted secret as the demo operators' password: the log check of the suite fails should it reach a log line.
const PASSWORD = PLANTED.secrets[0];

describe('console: the world of the API process is the world of a separate worker process', { skip: DATABASE_URL ? false : 'needs DATABASE_URL: two processes share one PostgreSQL' }, () => {
  after(cleanUp);

  test('reloaded on the API process; the worker follows and decides the next refund by the reloaded file', { timeout: 300_000 }, async () => {
    const dir = tmpDir();
    const file = path.join(dir, 'world.yaml');
    const world = YAML.parse(fs.readFileSync(path.join(ROOT, 'worlds/demo.yaml'), 'utf8')) as { name: string; bookings: Array<{ pnr: string; refundBehaviour?: object }> };
    fs.writeFileSync(file, YAML.stringify(world));
    const env = {
      DATABASE_URL: await freshDatabase(),
      SANDBOX: 'true',
      WORLD: file,
      WORKERS: 'false',
      REFUND_POLL_SECONDS: '1',
      CONSOLE_DEMO_PASSWORD: PASSWORD,
      WEBHOOK_SECRET_KEY: randomBytes(36).toString('base64'),
    };
    const api = await startServer(env);
    const worker = spawnNode(['src/cli.ts', 'worker'], env);
    await waitForLog(worker, 'postbook worker is ready');

    // The file changes: DEMO20's refunds are rejected within a second; the API process reloads it.
    const edited = structuredClone(world);
    edited.name = 'postbook demo world, reloaded';
    edited.bookings.find((b) => b.pnr === 'DEMO20')!.refundBehaviour = { decision: 'reject', cancelReason: 'travel already completed', processingSeconds: 1 };
    fs.writeFileSync(file, YAML.stringify(edited));
    const login = await fetch(`${api.url}/console/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'demo-admin', password: PASSWORD }) });
    assert.equal(login.status, 200, await login.clone().text());
    const cookie = String(login.headers.get('set-cookie')).split(';')[0]!;
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const reload = await fetch(`${api.url}/console/api/sandbox/world/reload`, { method: 'POST', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrfToken }, body: '{}' });
    assert.equal(reload.status, 200, await reload.text());

    const followed = await waitForLog(worker, 'sandbox world reloaded by another process', 30_000);
    assert.equal(followed.world, 'postbook demo world, reloaded');

    // DEMO20 through the API (README walk-through): the worker submits it and its airline decides.
    const order = await refundDemo20(api.url, (o) => assert.ok(![2, 3].includes(Number(o.refundStatus)), `accepted by the world the worker started with: ${JSON.stringify(o)}`));
    assert.equal(order.refundStatus, 4);
    assert.equal(order.cancelReason, 'travel already completed');
    assert.equal(logged(worker, 'refund status changed').filter((l) => l.from === 0 && l.to === 1).length, 1, 'the worker submitted it');
    assert.equal(logged(api, 'refund status changed').length, 0, 'WORKERS=false: the API process ran no refund step');
  });

  // A review: each process resolved the world's relative times at its own start, so a worker started days after the
  // API process (the sandbox clock moved in between, as days passing do) served every flight days later than the
  // API process, which took the refunds and voids naming them.
  test('a worker started later serves the days the API process serves: the world is recorded at the API process start', { timeout: 300_000 }, async () => {
    const env = { DATABASE_URL: await freshDatabase(), SANDBOX: 'true', WORLD: path.join(ROOT, 'worlds/demo.yaml'), WORKERS: 'false', REFUND_POLL_SECONDS: '1' };
    const api = await startServer(env);
    const moved = await fetch(`${api.url}/sandbox/clock`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer demo-admin-token-change-me' }, body: JSON.stringify({ advanceMinutes: 2 * 24 * 60 }) });
    const clock = (await moved.json()) as { now: string };
    assert.equal(moved.status, 200, JSON.stringify(clock));
    const worker = spawnNode(['src/cli.ts', 'worker'], env);
    const ready = await waitForLog(worker, 'postbook worker is ready');
    const db = new pg.Client({ connectionString: env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ loaded_at: Date; version: string }>('select loaded_at, version from sandbox_world');
      assert.equal(rows.length, 1, 'the API process recorded the world it started with');
      assert.equal(ready.worldTimesAt, rows[0]!.loaded_at.toISOString(), 'the worker resolved the world at the API process start');
      const lead = Date.parse(clock.now) - Date.parse(String(ready.worldTimesAt));
      assert.ok(lead > 47 * 3_600_000, `two days before the moved sandbox clock, not at the worker's start (${lead} ms)`);
    } finally {
      await db.end();
    }
  });
});

/** DEMO20's refund (README walk-through) submitted through the API at `url`, followed until it is decided (2 or 4). */
async function refundDemo20(url: string, seen: (order: Record<string, unknown>) => void = () => undefined): Promise<Record<string, unknown>> {
  const record = await post(url, '/extractPnr.do', { airlinePnr: 'DEMO20', carrier: 'XS', passengers: [{ firstName: 'RUI', lastName: 'REFUND' }], contact: { email: 'rui.refund@example.com' }, routing: { fromSegments: [] } }, DEMO);
  assert.equal(record.status, 0, JSON.stringify(record));
  const segments = [...record.routing.fromSegments, ...(record.routing.retSegments ?? [])].map((s: Record<string, string>) => ({
    depDate: s.depTime!.replace(/\D/g, '').slice(0, 8),
    flightNo: s.flightNumber,
    depAirport: s.depAirport,
    arrAirport: s.arrAirport,
  }));
  const submitted = await post(url, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments }] }, DEMO);
  assert.equal(submitted.status, 0, JSON.stringify(submitted));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const q = await post(url, '/queryRefundOrders.do', { refundCode: submitted.refundCode }, DEMO);
    const order = q.refundOrders[0] as Record<string, unknown>;
    seen(order);
    if (order.refundStatus === 2 || order.refundStatus === 4) return order;
    assert.ok(Date.now() < deadline, `not decided within 60 s: ${JSON.stringify(order)}`);
    await sleep(250);
  }
}
