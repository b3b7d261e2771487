// The production recipe of docs/production.md, run as written: the commands of deploy/Procfile (the same
// ones the systemd units of deploy/systemd/ start) in an installation folder built like the guide's
// (npm run build's dist/, package.json, node_modules, worlds/), with deploy/postbook.env.example as the
// environment (its CHANGE-ME values replaced: a fresh PostgreSQL database, a webhook key, the local Redis;
// the demo world instead of the operator's own).
// One `release` (migrate), two `web` (API) processes and one `worker`: /readyz is 200 on both API processes,
// and a refund submitted through one of them reaches status 1 through the worker, not through an API process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { killChildren, ROOT, waitForLog, watch, type Proc } from './support/processes.js';
import { cleanUp, DATABASE_URL, freshDatabase, post, sleep, tmpDir } from './support/crash.js';

const PROCFILE = path.join(ROOT, 'deploy', 'Procfile');
const ENV_EXAMPLE = path.join(ROOT, 'deploy', 'postbook.env.example');
const UNITS = path.join(ROOT, 'deploy', 'systemd');

/** `name: command` lines of a Procfile (comments and blank lines skipped). */
function readProcfile(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Za-z0-9_-]+):\s*(.+)$/.exec(line);
    assert.ok(m, `not a Procfile line: ${line}`);
    out.set(m[1]!, m[2]!.trim());
  }
  return out;
}

/** KEY=value lines of an environment file (as systemd's EnvironmentFile reads this simple form). */
function readEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    assert.ok(m, `not a KEY=value line: ${line}`);
    out[m[1]!] = m[2]!;
  }
  return out;
}

const procfile = readProcfile(fs.readFileSync(PROCFILE, 'utf8'));

describe('deploy/: the files of the recipe agree', () => {
  test('the Procfile has release, web and worker; each systemd unit starts the same command', () => {
    assert.deepEqual([...procfile.keys()], ['release', 'web', 'worker']);
    const units: Record<string, string> = { release: 'postbook-migrate.service', web: 'postbook-api@.service', worker: 'postbook-worker@.service' };
    for (const [kind, unit] of Object.entries(units)) {
      const text = fs.readFileSync(path.join(UNITS, unit), 'utf8');
      const exec = /^ExecStart=(.+)$/m.exec(text)?.[1];
      assert.equal(exec?.replace(/^\/usr\/bin\/node /, 'node '), procfile.get(kind), `${unit} runs the Procfile's ${kind}`);
      assert.match(text, /^EnvironmentFile=\/etc\/postbook\/postbook\.env$/m, unit);
      assert.match(text, /^WorkingDirectory=\/opt\/postbook$/m, unit);
    }
  });

  test('the environment example sets only variables the configuration knows, and the production choices', () => {
    const env = readEnvFile(fs.readFileSync(ENV_EXAMPLE, 'utf8'));
    const known = new Set([...fs.readFileSync(path.join(ROOT, 'src', 'config.ts'), 'utf8').matchAll(/name: '([A-Z0-9_]+)'/g)].map((m) => m[1]!));
    assert.deepEqual(Object.keys(env).filter((k) => !known.has(k)), []);
    assert.equal(env.SANDBOX, 'false');
    assert.equal(env.WORKERS, 'false');
    assert.match(env.DATABASE_URL!, /^postgres:\/\//);
    // the units give each API process its PORT, and systemd lets an EnvironmentFile= override Environment= (a review:
    // every postbook-api@<port> listened on the file's 8080)
    assert.equal(env.PORT, undefined);
  });
});

after(async () => {
  killChildren();
  await cleanUp();
});

/** A Procfile command, started as written (split on spaces: the Procfile uses no shell syntax) in `cwd`. */
function startCommand(command: string, cwd: string, env: Record<string, string>): Proc {
  assert.doesNotMatch(command, /["'`$|&;<>\\]/, 'a plain command line');
  const [file, ...args] = command.split(/\s+/);
  const child = spawn(file!, args, { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return watch(child);
}

/** Whether something answers on the local Redis port. */
function redisUp(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: 6379 });
    s.setTimeout(1000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

const DEMO = { 'content-type': 'application/json', 'x-service-client-id': 'demo-agency', 'x-service-client-secret': 'demo-agency-secret-2026' };

describe('the production recipe on PostgreSQL', { skip: DATABASE_URL ? false : 'needs DATABASE_URL: the recipe runs several processes on one PostgreSQL' }, () => {
  let install: string;
  let env: Record<string, string>;
  before(async () => {
    // The installation folder of docs/production.md "Install": the build, package.json, the dependencies, the worlds.
    install = path.join(tmpDir(), 'postbook');
    fs.mkdirSync(install);
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', path.join(install, 'dist')], {
      cwd: ROOT,
      stdio: 'pipe',
    });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(install, 'package.json'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'));
    fs.cpSync(path.join(ROOT, 'worlds'), path.join(install, 'worlds'), { recursive: true });

    env = readEnvFile(fs.readFileSync(ENV_EXAMPLE, 'utf8'));
    // The demo world instead of the operator's own: its demo-agency booking DEMO20 is the refund to follow.
    assert.equal(env.WORLD, '/etc/postbook/world.yaml');
    env.WORLD = './worlds/demo.yaml';
    env.DATABASE_URL = await freshDatabase();
    env.WEBHOOK_SECRET_KEY = randomBytes(36).toString('base64');
    env.METRICS_TOKEN = randomBytes(16).toString('hex');
    if (await redisUp()) env.REDIS_URL = 'redis://127.0.0.1:6379';
    else delete env.REDIS_URL;
    env.PORT = '0'; // each API process on a port of its own (the units give each instance its port)
    for (const [k, v] of Object.entries(env)) assert.doesNotMatch(v, /CHANGE-ME/, `${k} still has its placeholder`);
  });

  test('the installed `postbook` command (package.json bin) runs as an executable', () => {
    // a review: dist/cli.js had no #! line, so the shell ran it as a script of its own ("syntax error near '('")
    const bin = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin.postbook!;
    const file = path.join(install, bin);
    fs.chmodSync(file, 0o755); // what npm does to a bin at install
    const help = execFileSync(file, ['--help'], { cwd: install, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    assert.match(help, /worker/);
  });

  test('release once, then two web and one worker: both ready, a refund through one API reaches status 1 by the worker', { timeout: 600_000 }, async (ctx) => {
    const t0 = Date.now();
    const release = startCommand(procfile.get('release')!, install, env);
    const released = await release.exit;
    assert.equal(released.code, 0, `release: ${release.stderr()}`);
    assert.match(release.stdout(), /migrations: up to date/);

    const webs = [startCommand(procfile.get('web')!, install, env), startCommand(procfile.get('web')!, install, env)];
    const worker = startCommand(procfile.get('worker')!, install, env);
    // a busy machine: allow three minutes for each start
    const urls = await Promise.all(webs.map(async (w) => String((await waitForLog(w, 'postbook is ready', 180_000)).url)));
    await waitForLog(worker, 'postbook worker is ready', 180_000);
    assert.notEqual(urls[0], urls[1]);
    for (const url of urls) {
      const ready = await fetch(`${url}/readyz`);
      const body = await ready.text();
      assert.equal(ready.status, 200, `${url}/readyz: ${body}`);
      assert.deepEqual(JSON.parse(body), { status: 'ready', store: { ok: true }, migrations: { ok: true }, jobQueue: { ok: true } });
      // the example's METRICS_TOKEN: a scrape without it is refused (decision 0047)
      assert.equal((await fetch(`${url}/metrics`)).status, 401);
      const scraped = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${env.METRICS_TOKEN}` } });
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^# TYPE postbook_refunds gauge/m);
    }
    // Started together on a fresh database they create the job queues at once: a deadlock there is retried (src/jobs/queue.ts).
    const retried = [...webs, worker].flatMap((p) => p.lines().filter((l) => String(l.msg).startsWith('job queue: deadlock'))).length;
    ctx.diagnostic(`release, two API processes and a worker ready in ${((Date.now() - t0) / 1000).toFixed(1)} s${env.REDIS_URL ? ' (rate pools in Redis)' : ''}; queue declarations retried after a deadlock: ${retried}`);

    // DEMO20 (README step 3): the segments as the airline record shows them, then quote and submit through API 1.
    const record = await post(urls[0]!, '/extractPnr.do', {
      airlinePnr: 'DEMO20',
      carrier: 'XS',
      passengers: [{ firstName: 'RUI', lastName: 'REFUND' }],
      contact: { email: 'rui.refund@example.com' },
      routing: { fromSegments: [] },
    }, DEMO);
    assert.equal(record.status, 0, JSON.stringify(record));
    const segments = [...record.routing.fromSegments, ...(record.routing.retSegments ?? [])].map((s: Record<string, string>) => ({
      depDate: s.depTime!.replace(/\D/g, '').slice(0, 8), // the record's local departure, yyyyMMdd
      flightNo: s.flightNumber,
      depAirport: s.depAirport,
      arrAirport: s.arrAirport,
    }));
    const quote = await post(urls[0]!, '/refundQuotation.do', {
      airlinePNR: 'DEMO20',
      carrier: 'XS',
      refundRequestList: [{ lastName: 'REFUND', firstName: 'RUI', refundReason: '1', segments }],
    }, DEMO);
    assert.equal(quote.status, 0, JSON.stringify({ quote, segments }));
    const submitted = await post(urls[0]!, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundOfferId: quote.refundOfferId }, DEMO);
    assert.equal(submitted.status, 0, JSON.stringify(submitted));
    assert.equal(submitted.refundStatus, 0);

    // Followed through the other API process: the worker submits it to the airline (status 1).
    const deadline = Date.now() + 60_000;
    let status = 0;
    while (status === 0) {
      const q = await post(urls[1]!, '/queryRefundOrders.do', { refundCode: submitted.refundCode }, DEMO);
      assert.equal(q.status, 0, JSON.stringify(q));
      status = Number(q.refundOrders[0].refundStatus);
      if (status !== 0) break;
      assert.ok(Date.now() < deadline, 'the refund stayed at 0 for 60 s: no worker took it');
      await sleep(250);
    }
    assert.ok(status >= 1, `refundStatus ${status}`);

    // SIGTERM (what systemd and Procfile runners send) stops every process cleanly.
    for (const p of [...webs, worker]) p.child.kill('SIGTERM');
    for (const p of [...webs, worker]) assert.equal((await p.exit).code, 0, p.stderr());

    // Who moved the refund, read once every process has exited: an info line may be held up to 100 ms before it is
    // written (decision 0041), and each process writes what it holds as it exits.
    const moved = (p: Proc) => p.lines().filter((l) => l.msg === 'refund status changed' && l.from === 0 && l.to === 1);
    assert.equal(moved(worker).length, 1, 'the worker submitted it');
    assert.deepEqual(webs.map((w) => moved(w).length), [0, 0], 'WORKERS=false: no API process ran a refund step');
  });
});
