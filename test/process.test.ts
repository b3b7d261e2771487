// The server as a process: start on the embedded defaults, one process per data folder, graceful
// shutdown, nothing lost across a restart or a kill -9, and clear refusals of bad configuration.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { killChildren, migratedDataDir, ROOT, spawnNode, startServer, waitForLog } from './support/processes.js';

const tmpDirs: string[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-proc-'));
  tmpDirs.push(d);
  return d;
}

/** The demo world with one airport in a time zone that does not exist, written into `dir`: its file. */
function brokenWorld(dir: string): string {
  const file = path.join(dir, 'broken.yaml');
  const demo = fs.readFileSync(path.join(ROOT, 'worlds/demo.yaml'), 'utf8');
  fs.writeFileSync(file, demo.replace('{ code: CDG, name: Paris Charles de Gaulle, timeZone: Europe/Paris }', '{ code: CDG, name: Paris, timeZone: Europe/Atlantis }'));
  return file;
}

function spawnServer(env: Record<string, string>) {
  return spawnNode(['src/server.ts'], env);
}

const DEMO_HEADERS = {
  'content-type': 'application/json',
  'x-service-client-id': 'demo-agency',
  'x-service-client-secret': 'demo-agency-secret-2026',
};

async function post(url: string, pathName: string, body: unknown) {
  const res = await fetch(url + pathName, { method: 'POST', headers: DEMO_HEADERS, body: JSON.stringify(body) });
  return { http: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The claim of the demo world's DEMO02 (one passenger, one segment whose schedule changed). */
function demoClaim() {
  // XS201 CDG→JFK departs "+5d 13:00" Paris time as booked; world days count from the UTC date.
  const day = DateTime.utc().plus({ days: 5 });
  const dep = DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour: 13 }, { zone: 'Europe/Paris' });
  return {
    mmb: { airlinePnr: 'DEMO02', email: 'carl.change@example.com' },
    passengers: [{ name: 'CHANGE/CARL' }],
    fromSegments: [{ carrier: 'XS', flightNumber: 'XS201', depAirport: 'CDG', arrAirport: 'JFK', depTime: dep.toFormat('yyyyMMddHHmm') }],
  };
}

after(async () => {
  killChildren();
  for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
});

// The tests share nothing (each its own folders and children) and mostly wait on their children: they run
// side by side.
describe('server process', { concurrency: true }, () => {
  test('starts on the embedded defaults, refuses a second process on the same folder, drains on SIGTERM', async () => {
    const dataDir = tmpDir();
    const first = await startServer({ DATA_DIR: dataDir });
    const health = await fetch(first.url + '/health');
    assert.deepEqual(await health.json(), { status: 'ok', store: 'pglite' });

    // A second server on the same DATA_DIR must refuse (PGlite would silently lose data).
    const second = spawnServer({ DATA_DIR: dataDir });
    const secondExit = await second.exit;
    assert.equal(secondExit.code, 78);
    assert.match(second.stderr(), /in use by another postbook process/);
    // And so must the CLI.
    const cli = spawnNode(['src/cli.ts', 'migrate'], { DATA_DIR: dataDir });
    assert.equal((await cli.exit).code, 78);
    assert.match(cli.stderr(), /in use by another postbook process/);

    // Graceful shutdown: a request in flight (the XT airline answers in 20 s; timeout 1500 ms) completes.
    const inflight = post(first.url, '/extractPnr.do', {
      airlinePnr: 'SLOW01',
      carrier: 'XT',
      timeout: 1500,
      passengers: [{ firstName: 'MAX', lastName: 'SLOW' }],
      contact: { email: 'max.slow@example.com' },
      routing: { fromSegments: [] },
    });
    await new Promise((r) => setTimeout(r, 300));
    first.child.kill('SIGTERM');
    const answered = await inflight;
    assert.equal(answered.body.status, 99006);
    const exit = await first.exit;
    assert.equal(exit.code, 0, first.stdout());
    assert.match(first.stdout(), /draining in-flight requests/);
    assert.match(first.stdout(), /"msg":"stopped"/);
  });

  test('a SIGTERM during the start stops the service once started, before it listens; its store opens again', async () => {
    // An empty folder: the embedded store's first start creates its cluster (seconds), the signal arrives meanwhile.
    const dataDir = tmpDir();
    const server = spawnServer({ DATA_DIR: dataDir });
    await waitForLog(server, 'starting');
    server.child.kill('SIGTERM');
    const exit = await server.exit;
    assert.deepEqual(exit, { code: 0, signal: null }, server.stdout() + server.stderr());
    const said = server.lines().map((l) => l.msg);
    assert.ok(said.includes('shutting down before listening'), said.join(' | '));
    assert.ok(said.includes('stopped'), said.join(' | '));
    assert.ok(!said.includes('postbook is ready'), said.join(' | '));
    // Nothing was left half-made: the next start opens the same folder and serves.
    const again = await startServer({ DATA_DIR: dataDir });
    assert.deepEqual(await (await fetch(again.url + '/health')).json(), { status: 'ok', store: 'pglite' });
    again.child.kill('SIGTERM');
    assert.equal((await again.exit).code, 0);
  });

  test('a claimed order survives a restart and a kill -9', async () => {
    const dataDir = await migratedDataDir(tmpDir());
    let server = await startServer({ DATA_DIR: dataDir });
    const claimed = await post(server.url, '/pnr/claim.do', demoClaim());
    assert.equal(claimed.body.status, 0, JSON.stringify(claimed.body));
    server.child.kill('SIGKILL');
    await server.exit;
    // The lock of the killed process goes stale; the restart waits for it and takes over.
    server = await startServer({ DATA_DIR: dataDir });
    const again = await post(server.url, '/pnr/claim.do', demoClaim());
    assert.equal(again.body.orderNo, claimed.body.orderNo);
    server.child.kill('SIGTERM');
    assert.equal((await server.exit).code, 0);
  });

  test('bad configuration and a malformed world are refused at start with a clear message', async () => {
    const badEnv = spawnServer({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    assert.equal((await badEnv.exit).code, 78);
    assert.match(badEnv.stderr(), /PORT must be a whole number/);
    assert.match(badEnv.stderr(), /LOG_LEVEL must be one of/);

    const dir = tmpDir();
    const world = brokenWorld(dir);
    const badWorld = spawnServer({ WORLD: world, DATA_DIR: path.join(dir, 'data') });
    assert.equal((await badWorld.exit).code, 78);
    assert.match(badWorld.stderr(), /broken\.yaml: airports\[2\]\.timeZone is not an IANA time zone/);
  });

  test('the CLI prints its usage for --help and help (exit 0), and for no or an unknown command (exit 2)', async () => {
    for (const arg of ['--help', '-h', 'help']) {
      const help = spawnNode(['src/cli.ts', arg], { PORT: 'not read for help' });
      assert.equal((await help.exit).code, 0, arg);
      assert.match(help.stdout(), /Usage: postbook <command>/);
      for (const cmd of ['serve', 'worker', 'migrate', 'clients', 'world', 'sandbox', 'refunds', 'webhooks']) assert.match(help.stdout(), new RegExp(`\\n  ${cmd}\\b`), cmd);
    }
    // --help on every command, and on the commands under one
    const sub = spawnNode(['src/cli.ts', 'clients', 'add', '--help'], {});
    assert.equal((await sub.exit).code, 0);
    assert.match(sub.stdout(), /Usage: postbook clients add \[options\] <id> <name\.\.\.>/);
    const wrong = spawnNode(['src/cli.ts'], {});
    assert.equal((await wrong.exit).code, 2);
    assert.match(wrong.stderr(), /Usage: postbook <command>/);
    const unknown = spawnNode(['src/cli.ts', 'nonsense'], {});
    assert.equal((await unknown.exit).code, 2);
    assert.match(unknown.stderr(), /unknown command 'nonsense'/);
    assert.match(unknown.stderr(), /postbook --help lists the commands/);
    const missing = spawnNode(['src/cli.ts', 'refunds', 'show'], {});
    assert.equal((await missing.exit).code, 2);
    assert.match(missing.stderr(), /missing required argument 'refundCode'/);
  });

  test('the CLI refuses a malformed world and a bad configuration with exit 78 (its world reader loaded by the command)', async () => {
    const world = brokenWorld(tmpDir());
    const check = spawnNode(['src/cli.ts', 'world', 'check', world], {});
    assert.equal((await check.exit).code, 78);
    assert.match(check.stderr(), /^postbook: .*broken\.yaml: airports\[2\]\.timeZone is not an IANA time zone/);
    const good = spawnNode(['src/cli.ts', 'world', 'check'], {});
    assert.equal((await good.exit).code, 0);
    assert.match(good.stdout(), /^world postbook demo world: ok \(/);
    const badEnv = spawnNode(['src/cli.ts', 'migrate'], { LOG_LEVEL: 'loud' });
    assert.equal((await badEnv.exit).code, 78);
    assert.match(badEnv.stderr(), /^postbook: invalid configuration:\n\s+- LOG_LEVEL must be one of/);
  });
});
