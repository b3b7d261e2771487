// Crash safety of the refund lifecycle and the separate worker process (docs/decisions/0011).
//
// 1. Start processing 200 refunds, kill -9 the server mid-way, restart it on the same data: every refund
//    reaches a terminal status, along a proper path of statuses, and the sandbox airline recorded each
//    refundCode exactly once (its books are a table of the same database: they survive the crash too).
// 2. `postbook worker`: with DATABASE_URL, API processes with WORKERS=false plus worker processes carry the
//    refunds; with the embedded store the command refuses to start.
//
// The server runs as a child process, as in test/process.test.ts. Names in the generated world are
// fictional, and the test checks that none of them reached the server's log.
import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { openStore, type Store } from '../src/store/store.js';
import { migratedDataDir, spawnNode, startServer, type Proc, waitForLog } from './support/processes.js';
import { cleanUp, crashSkip, DATABASE_URL, distribution, freshDatabase, inParallel, logged, post as postTo, secondsSince, sleep, tmpDir } from './support/crash.js';
import { CRASH_ADMIN_TOKEN, CRASH_CLIENT, crashBookings, crashRefundBody, writeCrashWorld, type CrashBooking } from '../scripts/make-crash-world.js';

after(cleanUp);

async function startWorker(env: Record<string, string>): Promise<Proc> {
  const p = spawnNode(['src/cli.ts', 'worker'], env);
  await waitForLog(p, 'postbook worker is ready');
  return p;
}

/** Status changes the process logged ("refund status changed", {refundCode, from, to}). */
const transitions = (p: Proc) => logged(p, 'refund status changed') as Array<{ refundCode: string; from: number; to: number }>;

// ---- HTTP ----

const HEADERS = { 'content-type': 'application/json', 'x-service-client-id': CRASH_CLIENT.id, 'x-service-client-secret': CRASH_CLIENT.secret };

const post = (url: string, pathName: string, body: unknown, headers: Record<string, string> = HEADERS) => postTo(url, pathName, body, headers);

async function submitAll(url: string, bookings: CrashBooking[]): Promise<string[]> {
  const answers = await inParallel(bookings, 10, (b) => post(url, '/refund.do', crashRefundBody(b)));
  const failed = answers.filter((a) => a.status !== 0);
  assert.equal(failed.length, 0, `every refund.do succeeds: ${failed.map((a) => `${a.status} ${a.msg}`).slice(0, 3).join('; ')}`);
  const codes = answers.map((a) => String(a.refundCode));
  assert.equal(new Set(codes).size, bookings.length, 'one refundCode per refund');
  return codes;
}

/** refundStatus of each code, by queryRefundOrders.do. */
async function statuses(url: string, codes: string[]): Promise<Map<string, number>> {
  const answers = await inParallel(codes, 10, (refundCode) => post(url, '/queryRefundOrders.do', { refundCode }));
  const out = new Map<string, number>();
  answers.forEach((a, i) => {
    assert.equal(a.status, 0, `queryRefundOrders.do: ${a.status} ${a.msg}`);
    out.set(codes[i]!, Number(a.refundOrders[0].refundStatus));
  });
  return out;
}

/** Polls until every code satisfies `done`; returns the last statuses. Only codes not yet done are asked again. */
async function waitAll(url: string, codes: string[], done: (status: number) => boolean, what: string, ms: number): Promise<Map<string, number>> {
  const deadline = Date.now() + ms;
  const last = new Map<string, number>();
  let open = codes;
  for (;;) {
    for (const [code, s] of await statuses(url, open)) last.set(code, s);
    open = open.filter((c) => !done(last.get(c)!));
    if (open.length === 0) return last;
    if (Date.now() > deadline) {
      const counts: Record<number, number> = {};
      for (const c of open) counts[last.get(c)!] = (counts[last.get(c)!] ?? 0) + 1;
      throw new Error(`${open.length} of ${codes.length} refunds not ${what} after ${ms / 1000} s (statuses ${JSON.stringify(counts)})`);
    }
    await sleep(500);
  }
}

/** Every refund's statuses in order, as "from>to" steps. */
async function historyOf(store: Store): Promise<Map<string, string[]>> {
  const rows = await store.db.selectFrom('refund_status_history').select(['refund_code', 'from_status', 'to_status']).orderBy('id').execute();
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const list = out.get(r.refund_code) ?? [];
    list.push(`${r.from_status ?? 'null'}>${r.to_status}`);
    out.set(r.refund_code, list);
  }
  return out;
}

/** The fictional names and e-mails of the world never reach the log (docs/architecture.md "Security"). */
function assertNoPersonalData(procs: Proc[], bookings: CrashBooking[]) {
  const text = procs.map((p) => p.stdout() + p.stderr()).join('\n');
  // Last names of four letters or more: short words could occur by chance in random ids.
  const names = [...new Set(bookings.map((b) => b.lastName))].filter((n) => n.length >= 4);
  for (const n of names) assert.ok(!text.includes(n), `a passenger name reached the log (${n.slice(0, 2)}…)`);
  assert.ok(!text.includes('@example.com'), 'an e-mail reached the log');
}

// ---- 1. kill -9 in the middle of 200 refunds ----

const N = 200;
const PROCESSING_SECONDS = 3600; // the airline decides only when the test moves the clock
const LATENCY_MS = 200; // each airline answer takes this long: many refunds are in flight at the kill

describe('refund lifecycle across a crash', () => {
  test(`${N} refunds: kill -9 mid-way, restart; each reaches status 2 and the airline recorded each refundCode once`, { skip: crashSkip, timeout: 300_000 }, async (ctx: TestContext) => {
    const t0 = Date.now();
    const dir = tmpDir();
    const world = path.join(dir, 'crash-world.json');
    writeCrashWorld(world, { bookings: N, processingSeconds: PROCESSING_SECONDS, latencyMs: LATENCY_MS });
    const bookings = crashBookings(N);
    const dataDir = path.join(dir, 'data');
    const databaseUrl = DATABASE_URL ? await freshDatabase() : null;
    const env: Record<string, string> = { WORLD: world, REFUND_POLL_SECONDS: '1', SANDBOX: 'true', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: await migratedDataDir(dataDir) }) };
    const report = (line: string) => ctx.diagnostic(`${line} [${secondsSince(t0)} s]`);

    // -- first life: take 200 refunds, kill -9 while the workers are carrying them --
    const first = await startServer(env);
    report(`server up on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}`);
    const tSubmit = Date.now();
    const codes = await submitAll(first.url, bookings);
    const logged = new Set(transitions(first).filter((s) => s.to === 1).map((s) => s.refundCode)).size;
    // The first life never moves its sandbox clock: the service clock is the wall clock there.
    const killedAt = new Date();
    first.child.kill('SIGKILL');
    const killed = await first.exit;
    assert.equal(killed.signal, 'SIGKILL');
    report(`${N} refund.do acknowledged in ${secondsSince(tSubmit)} s; kill -9 (${logged} status changes to 1 seen in its log by then)`);

    // -- second life: the same data; the embedded lock of the killed process goes stale first (~10 s) --
    const tRestart = Date.now();
    const second = await startServer(env);
    const recovered = second.lines().find((l) => l.msg === 'job queue: jobs left running by the previous process were put back for retry');
    report(
      `restarted in ${secondsSince(tRestart)} s; ` +
        (databaseUrl ? 'jobs left active come back when pg-boss expires them' : `jobs found active and put back for retry: ${recovered ? String(recovered.jobs) : 0}`),
    );

    const atOne = await waitAll(second.url, codes, (s) => s >= 1, 'submitted to the airline', 150_000);
    assert.ok([...atOne.values()].every((s) => s === 1), 'nothing is decided before the clock moves');
    report('all at status 1 (airline processing)');

    // The airline decides after processingSeconds and pays as long again: move the clock past both.
    const clock = await post(second.url, '/sandbox/clock', { advanceMinutes: Math.ceil((2 * PROCESSING_SECONDS) / 60) + 1 }, {
      'content-type': 'application/json',
      authorization: `Bearer ${CRASH_ADMIN_TOKEN}`,
    });
    assert.ok(typeof clock.now === 'string', JSON.stringify(clock));
    const final = await waitAll(second.url, codes, (s) => [2, 4, 5, 6].includes(s), 'terminal', 90_000);
    report('all terminal');
    assert.deepEqual(distribution([...final.values()]), `2×${N}`, 'every deposit refund ends 2 Refunded');

    second.child.kill('SIGTERM');
    const stopped = await second.exit;
    assert.equal(stopped.code, 0, second.stderr());
    assertNoPersonalData([first, second], bookings);

    // -- the books, read directly --
    const store = await openStore(databaseUrl ? { databaseUrl, dataDir: null } : { databaseUrl: null, dataDir });
    try {
      const orders = await store.db.selectFrom('refund_orders').select(['refund_code', 'status']).execute();
      assert.equal(orders.length, N, 'one refund order per refund.do');
      assert.deepEqual(new Set(orders.map((o) => o.refund_code)), new Set(codes));
      assert.ok(orders.every((o) => o.status === 2));

      const airline = await store.db.selectFrom('sandbox_refunds').select(['refund_code', 'submit_calls']).execute();
      assert.equal(airline.length, N, 'the airline holds one record per refund');
      assert.deepEqual(new Set(airline.map((a) => a.refund_code)), new Set(codes), 'and exactly the refundCodes postbook made');

      const history = await historyOf(store);
      const improper = codes.filter((c) => (history.get(c) ?? []).join(' ') !== 'null>0 0>1 1>3 3>2');
      assert.deepEqual(improper.map((c) => `${c}: ${(history.get(c) ?? []).join(' ')}`), [], 'every refund went null→0→1→3→2, each step once');

      // Where the kill caught them (history times and the airline's first-arrival times are the service clock).
      const atOneBefore = await store.db.selectFrom('refund_status_history').select('refund_code').where('to_status', '=', 1).where('at', '<=', killedAt).execute();
      const atAirlineBefore = airline.length - (await store.db.selectFrom('sandbox_refunds').select('refund_code').where('submitted_at', '>', killedAt).execute()).length;
      report(
        `at the kill: ${atOneBefore.length} refunds at status 1, ${N - atOneBefore.length} at 0; ` +
          `${atAirlineBefore - atOneBefore.length} of these already received by the airline (the window a resend covers)`,
      );

      const resent = await store.db.selectFrom('refund_status_history').select('refund_code').where('to_status', '=', 1).where('cause', 'like', '%resent%').execute();
      const jobs = await sql<{ state: string; n: number; retried: number }>`
        select state::text as state, count(*)::int as n, count(*) filter (where retry_count > 0)::int as retried from pgboss.job group by state`.execute(store.db);
      const jobStates = Object.fromEntries(jobs.rows.map((r) => [r.state, Number(r.n)]));
      const retried = jobs.rows.reduce((a, r) => a + Number(r.retried), 0);
      assert.equal(jobStates.failed ?? 0, 0, `no job ran out of retries: ${JSON.stringify(jobStates)}`);
      const calls = airline.map((a) => a.submit_calls);
      assert.equal(calls.filter((c) => c > 1).length, resent.length, 'every second submission is one the lifecycle recorded as resent');
      report(
        `airline submit_calls per refundCode: ${distribution(calls)}; 0→1 on a resent submission: ${resent.length}; ` +
          `jobs: ${JSON.stringify(jobStates)}, ${retried} of them needed more than one attempt`,
      );
    } finally {
      await store.close();
    }
    report('done');
  });
});

// ---- 2. postbook worker ----

describe('postbook worker', () => {
  test('refuses to start on the embedded store, with the reason', async () => {
    const dir = tmpDir();
    const p = spawnNode(['src/cli.ts', 'worker'], { DATA_DIR: path.join(dir, 'data') });
    assert.equal((await p.exit).code, 78);
    assert.match(p.stderr(), /worker needs DATABASE_URL/);
    assert.match(p.stderr(), /the API process runs the workers itself/);
    assert.equal(fs.existsSync(path.join(dir, 'data')), false, 'the data folder was not touched');
  });

  test(
    'PostgreSQL: a SIGTERM during the worker\'s start stops it once started (exit 0), nothing killed mid-start',
    { skip: DATABASE_URL ? false : 'needs DATABASE_URL: the worker runs only on a PostgreSQL server', timeout: 120_000 },
    async () => {
      // A new database: the start runs every migration and the queue's schema (seconds), the signal arrives meanwhile.
      const p = spawnNode(['src/cli.ts', 'worker'], { DATABASE_URL: await freshDatabase(), WORKERS: 'false' });
      await waitForLog(p, 'worker starting');
      p.child.kill('SIGTERM');
      const exit = await p.exit;
      assert.deepEqual(exit, { code: 0, signal: null }, p.stdout() + p.stderr());
      const said = p.lines().map((l) => String(l.msg));
      assert.ok(said.includes('worker shutting down: finishing the refund steps under way'), said.join(' | '));
      assert.ok(said.includes('worker stopped'), said.join(' | '));
    },
  );

  test(
    'PostgreSQL: an API process with WORKERS=false and two worker processes carry refunds to their final status, each step once',
    { skip: DATABASE_URL ? false : 'needs DATABASE_URL: workers in their own process share the job tables of a PostgreSQL server', timeout: 120_000 },
    async (ctx: TestContext) => {
      const t0 = Date.now();
      const dir = tmpDir();
      const world = path.join(dir, 'world.json');
      const n = 20;
      // The airline decides after 1 s of real time: a worker's sandbox clock is its own (not moved by the API).
      writeCrashWorld(world, { bookings: n, processingSeconds: 1, latencyMs: 0 });
      const bookings = crashBookings(n);
      const env = { WORLD: world, REFUND_POLL_SECONDS: '1', SANDBOX: 'true', DATABASE_URL: await freshDatabase() };

      const api = await startServer({ ...env, WORKERS: 'false' });
      const codes = await submitAll(api.url, bookings.slice(0, 5));
      await sleep(2000);
      const waiting = await statuses(api.url, codes);
      assert.deepEqual([...new Set(waiting.values())], [0], 'without a worker process, refunds wait at 0');

      const workers = [await startWorker(env), await startWorker(env)];
      codes.push(...(await submitAll(api.url, bookings.slice(5))));
      const final = await waitAll(api.url, codes, (s) => [2, 4, 5, 6].includes(s), 'terminal', 60_000);
      assert.deepEqual([...new Set(final.values())], [2]);
      const seconds = secondsSince(t0);

      // Counted once the processes have exited: an info line may be held up to 100 ms before it is written (decision
      // 0041), and each process writes what it holds as it exits.
      for (const w of workers) w.child.kill('SIGTERM');
      for (const w of workers) {
        assert.equal((await w.exit).code, 0, w.stderr());
        assert.ok(w.lines().some((l) => l.msg === 'worker stopped'));
      }
      api.child.kill('SIGTERM');
      assert.equal((await api.exit).code, 0, api.stderr());
      assert.equal(transitions(api).length, 0, 'the API process moved no refund');
      const moved = workers.map((w) => transitions(w));
      assert.equal(moved.flat().length, 3 * n, 'three transitions per refund (0→1, 1→3, 3→2), each logged once');
      ctx.diagnostic(`${n} refunds to status 2 in ${seconds} s; transitions per worker: ${moved.map((m) => m.length).join(' + ')}`);
      assertNoPersonalData([api, ...workers], bookings);

      const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir: null });
      try {
        const airline = await store.db.selectFrom('sandbox_refunds').select(['refund_code', 'submit_calls']).execute();
        assert.equal(airline.length, n);
        assert.ok(airline.every((a) => a.submit_calls === 1), `each refundCode submitted once: ${distribution(airline.map((a) => a.submit_calls))}`);
        const history = await historyOf(store);
        assert.ok(codes.every((c) => (history.get(c) ?? []).join(' ') === 'null>0 0>1 1>3 3>2'));
      } finally {
        await store.close();
      }
    },
  );

  test(
    'PostgreSQL: one sandbox clock — a move through an API process reaches a worker process, and survives restarts',
    { skip: DATABASE_URL ? false : 'needs DATABASE_URL: a worker process shares the store with the API process', timeout: 120_000 },
    async () => {
      const dir = tmpDir();
      const world = path.join(dir, 'world.json');
      const n = 3;
      // The airline decides after two days of sandbox time: only a moved clock brings the decision.
      const processingSeconds = 2 * 86_400;
      writeCrashWorld(world, { bookings: n, processingSeconds, latencyMs: 0 });
      const bookings = crashBookings(n);
      const env = { WORLD: world, REFUND_POLL_SECONDS: '1', SANDBOX: 'true', DATABASE_URL: await freshDatabase() };
      const admin = { 'content-type': 'application/json', authorization: `Bearer ${CRASH_ADMIN_TOKEN}` };

      const api = await startServer({ ...env, WORKERS: 'false' });
      const worker = await startWorker(env);
      const codes = await submitAll(api.url, bookings);
      const atOne = await waitAll(api.url, codes, (s) => s >= 1, 'submitted to the airline', 30_000);
      assert.deepEqual([...new Set(atOne.values())], [1]);
      await sleep(2500);
      assert.deepEqual([...new Set((await statuses(api.url, codes)).values())], [1], 'nothing is decided before the clock moves');

      // The worker's own clock must follow this move: it is the worker that asks the airline and moves refunds.
      const moved = await post(api.url, '/sandbox/clock', { advanceMinutes: Math.ceil((2 * processingSeconds) / 60) + 1 }, admin);
      assert.ok(moved.offsetMs >= 2 * processingSeconds * 1000, JSON.stringify(moved));
      const final = await waitAll(api.url, codes, (s) => [2, 4, 5, 6].includes(s), 'terminal', 60_000);
      assert.deepEqual([...new Set(final.values())], [2]);

      // A restarted API process starts at the moved time, not at the real time.
      api.child.kill('SIGTERM');
      assert.equal((await api.exit).code, 0, api.stderr());
      const again = await startServer({ ...env, WORKERS: 'false' });
      const state = (await (await fetch(`${again.url}/sandbox/clock`, { headers: { authorization: admin.authorization } })).json()) as { offsetMs: number };
      assert.ok(state.offsetMs >= moved.offsetMs - 1000, `after a restart the offset is ${state.offsetMs}, was ${moved.offsetMs}`);
      again.child.kill('SIGTERM');
      worker.child.kill('SIGTERM');
      assert.equal((await worker.exit).code, 0, worker.stderr());
      // Counted after its exit: an info line may be held up to 100 ms before it is written (decision 0041).
      assert.ok(transitions(worker).length >= 2 * n, 'the worker process made the decisions');
      await again.exit;
    },
  );
});
