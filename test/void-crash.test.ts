// Crash safety of the void lifecycle (docs/voids.md, decision 0025; the refund case: test/refund-crash.test.ts,
// whose scaffolding this shares): start voiding 60 orders, kill -9 the server while the sweep sends them to
// a slow airline, restart it on the same data: every void reaches status 2 along a proper path, each step
// once, and the sandbox airline recorded each voidCode exactly once.
import { after, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { openStore } from '../src/store/store.js';
import { migratedDataDir, startServer } from './support/processes.js';
import { cleanUp, crashSkip, DATABASE_URL, distribution, freshDatabase, inParallel, logged, post, secondsSince, sleep, tmpDir } from './support/crash.js';
import { CRASH_ADMIN_TOKEN, CRASH_CLIENT, CRASH_NAMES, crashBookings, crashVoidBody, writeCrashWorld } from '../scripts/make-crash-world.js';

after(cleanUp);

const HEADERS = { 'content-type': 'application/json', 'x-service-client-id': CRASH_CLIENT.id, 'x-service-client-secret': CRASH_CLIENT.secret };
const N = 60;
const PROCESSING_SECONDS = 3600; // the airline decides only when the test moves the clock
const LATENCY_MS = 300; // each airline answer takes this long: voids are in flight at the kill

async function voidStatuses(url: string, codes: string[]): Promise<number[]> {
  const answers = await inParallel(codes, 10, (voidCode) => post(url, '/queryVoidOrders.do', { voidCode }, HEADERS));
  return answers.map((a) => {
    assert.equal(a.status, 0, `queryVoidOrders.do: ${a.status} ${a.msg}`);
    return Number(a.voidOrders[0].voidStatus);
  });
}

async function waitAll(url: string, codes: string[], done: (s: number) => boolean, what: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await voidStatuses(url, codes);
    if (s.every(done)) return s;
    if (Date.now() > deadline) throw new Error(`voids not ${what} after ${ms / 1000} s: ${distribution(s)}`);
    await sleep(500);
  }
}

describe('void lifecycle across a crash', () => {
  test(`${N} voids: kill -9 mid-way, restart; each reaches status 2 and the airline recorded each voidCode once`, { skip: crashSkip, timeout: 300_000 }, async (ctx: TestContext) => {
    const t0 = Date.now();
    const dir = tmpDir();
    const world = path.join(dir, 'void-crash-world.json');
    writeCrashWorld(world, { bookings: N, processingSeconds: PROCESSING_SECONDS, latencyMs: LATENCY_MS, voidable: true });
    const bookings = crashBookings(N);
    const databaseUrl = DATABASE_URL ? await freshDatabase() : null;
    const dataDir = path.join(dir, 'data');
    const env: Record<string, string> = { WORLD: world, REFUND_POLL_SECONDS: '1', SANDBOX: 'true', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: await migratedDataDir(dataDir) }) };
    const report = (line: string) => ctx.diagnostic(`${line} [${secondsSince(t0)} s]`);

    const first = await startServer(env);
    const codes = await inParallel(bookings, 10, async (b) => {
      const q = await post(first.url, '/voidQuotation.do', crashVoidBody(b), HEADERS);
      assert.equal(q.status, 0, `voidQuotation.do: ${q.status} ${q.msg}`);
      const v = await post(first.url, '/void.do', { ...crashVoidBody(b), voidOfferId: q.voidOfferId }, HEADERS);
      assert.equal(v.status, 0, `void.do: ${v.status} ${v.msg}`);
      return String(v.voidCode);
    });
    assert.equal(new Set(codes).size, N);
    // killed once the sweep has moved some to 1: its next page's airline calls are then in flight (decision 0045:
    // pages of 25, their calls concurrent, each answered after LATENCY_MS)
    const atOne = () => logged(first, 'void status changed').filter((l) => l.to === 1).length;
    for (const until = Date.now() + 30_000; atOne() === 0 && Date.now() < until; ) await sleep(20);
    const sent = atOne();
    assert.ok(sent > 0, 'the sweep sent voids within 30 s');
    first.child.kill('SIGKILL');
    assert.equal((await first.exit).signal, 'SIGKILL');
    report(`${N} voids acknowledged; kill -9 with ${sent} of them logged at status 1`);

    const second = await startServer(env);
    await waitAll(second.url, codes, (s) => s >= 1, 'sent to the airline', 150_000);
    report('all at status 1');
    const clock = await post(second.url, '/sandbox/clock', { advanceMinutes: Math.ceil((2 * PROCESSING_SECONDS) / 60) + 1 }, { 'content-type': 'application/json', authorization: `Bearer ${CRASH_ADMIN_TOKEN}` });
    assert.ok(typeof clock.now === 'string', JSON.stringify(clock));
    const final = await waitAll(second.url, codes, (s) => [2, 4].includes(s), 'final', 90_000);
    assert.equal(distribution(final), `2×${N}`, 'every deposit void ends 2');
    second.child.kill('SIGTERM');
    assert.equal((await second.exit).code, 0, second.stderr());
    const text = [first, second].map((p) => p.stdout() + p.stderr()).join('\n');
    for (const n of CRASH_NAMES.filter((x) => x.length >= 4)) assert.ok(!text.includes(n), `a passenger name reached the log (${n.slice(0, 2)}…)`);

    const store = await openStore(databaseUrl ? { databaseUrl, dataDir: null } : { databaseUrl: null, dataDir });
    try {
      const voids = await store.db.selectFrom('void_orders').select(['void_code', 'status']).execute();
      assert.deepEqual(new Set(voids.map((v) => v.void_code)), new Set(codes), 'one void order per void.do');
      const airline = await store.db.selectFrom('sandbox_refunds').select(['refund_code', 'submit_calls', 'reason']).execute();
      assert.deepEqual(new Set(airline.map((a) => a.refund_code)), new Set(codes), 'the airline holds exactly the voidCodes postbook made');
      assert.ok(airline.every((a) => a.reason === '4'));
      const history = await store.db.selectFrom('void_status_history').select(['void_code', 'from_status', 'to_status']).orderBy('id').execute();
      const paths = new Map<string, string[]>();
      for (const h of history) paths.set(h.void_code, [...(paths.get(h.void_code) ?? []), `${h.from_status ?? 'null'}>${h.to_status}`]);
      const improper = codes.filter((c) => (paths.get(c) ?? []).join(' ') !== 'null>0 0>1 1>3 3>2');
      assert.deepEqual(improper, [], 'every void went null→0→1→3→2, each step once');
      const refunds = await store.db.selectFrom('refund_orders').select('refund_code').execute();
      assert.equal(refunds.length, 0, 'no void became a refund order');
      report(`airline submit calls per voidCode: ${distribution(airline.map((a) => a.submit_calls))}`);
    } finally {
      await store.close();
    }
  });
});
