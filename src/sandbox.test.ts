// The sandbox test clock: an authenticated admin endpoint moves it; outside sandbox mode it does not exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminHeaders, makeTestApp, openTestStore } from './test-support/app.js';
import { TestClock } from './clock.js';
import { SharedSandboxClock } from './sandbox-clock.js';

test('sandbox clock: read, advance, set; only forward; admin token required', async () => {
  const t = await makeTestApp();
  try {
    const get = (headers: Record<string, string> = adminHeaders) => t.app.inject({ method: 'GET', url: '/sandbox/clock', headers });
    const post = (payload: unknown, headers: Record<string, string> = adminHeaders) =>
      t.app.inject({ method: 'POST', url: '/sandbox/clock', headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

    assert.equal((await get({})).statusCode, 401);
    assert.equal((await get({ authorization: 'Bearer wrong-token-wrong-token' })).statusCode, 401);
    assert.equal((await post({ advanceMinutes: 60 }, {})).json().status, 900);

    const before = new Date((await get()).json().now).getTime();
    const moved = (await post({ advanceMinutes: 24 * 60 })).json();
    const after = new Date(moved.now).getTime();
    assert.ok(after - before >= 24 * 3600_000 && after - before < 24 * 3600_000 + 5_000);
    assert.ok(t.clock.now().getTime() >= after, 'the service clock moved');

    const target = new Date(after + 7 * 24 * 3600_000).toISOString();
    const set = (await post({ to: target })).json();
    assert.ok(Math.abs(new Date(set.now).getTime() - new Date(target).getTime()) < 1000);

    const back = await post({ to: new Date(before).toISOString() });
    assert.equal(back.statusCode, 400);
    assert.match(back.json().msg, /only moves forward/);
    const both = await post({ to: target, advanceMinutes: 1 });
    assert.equal(both.statusCode, 400);
  } finally {
    await t.close();
  }
});

test('sandbox clock: a move from the offset read is made once — sent twice (at once or after), the other answers 409 with where the clock stands (found by a review: a double click moved it twice)', async () => {
  const t = await makeTestApp();
  try {
    const post = (payload: unknown) => t.app.inject({ method: 'POST', url: '/sandbox/clock', headers: { ...adminHeaders, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
    const read = (await t.app.inject({ method: 'GET', url: '/sandbox/clock', headers: adminHeaders })).json<{ offsetMs: number }>();
    const both = await Promise.all([post({ advanceMinutes: 60, fromOffsetMs: read.offsetMs }), post({ advanceMinutes: 60, fromOffsetMs: read.offsetMs })]);
    assert.deepEqual(both.map((r) => r.statusCode).sort(), [200, 409]);
    const moved = both.find((r) => r.statusCode === 200)!.json<{ offsetMs: number }>();
    assert.ok(Math.abs(moved.offsetMs - (read.offsetMs + 3_600_000)) <= 1, 'moved by one hour, not two');
    const refused = both.find((r) => r.statusCode === 409)!.json<{ status: number; msg: string }>();
    assert.equal(refused.status, 100);
    assert.match(refused.msg, new RegExp(`moved since it was read \\(offsetMs ${read.offsetMs}; it now reads .*, offsetMs ${moved.offsetMs}\\): read it again`));
    const stored = await t.store.db.selectFrom('sandbox_clock').select('offset_ms').executeTakeFirstOrThrow();
    assert.ok(Math.abs(Number(stored.offset_ms) - moved.offsetMs) <= 1);
    // sent again later: still refused; from the new reading it moves
    assert.equal((await post({ advanceMinutes: 60, fromOffsetMs: read.offsetMs })).statusCode, 409);
    const next = await post({ to: new Date(Date.now() + moved.offsetMs + 86_400_000).toISOString(), fromOffsetMs: moved.offsetMs });
    assert.equal(next.statusCode, 200, next.body);
    // without fromOffsetMs a move is made as before (the CLI's, scripts')
    assert.equal((await post({ advanceMinutes: 1 })).statusCode, 200);
  } finally {
    await t.close();
  }
});

test('outside sandbox mode the clock endpoint does not exist', async () => {
  const t = await makeTestApp({ env: { SANDBOX: 'false' } });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/sandbox/clock', headers: adminHeaders });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
  }
});

test('sandbox clock: a frozen clock keeps its instant while the process follows the stored one', async () => {
  const store = await openTestStore();
  const shared = new SharedSandboxClock(new TestClock(), store.db);
  try {
    shared.clock.freeze();
    const at = shared.clock.now().getTime();
    shared.follow(20);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(shared.clock.now().getTime(), at, 'not moved by the polls');
    shared.clock.unfreeze();
  } finally {
    shared.stop();
    await store.close();
  }
});

test('sandbox clock: stored in the database — another process on the same store reads the move, a restart keeps it, and no move undoes another', async () => {
  const store = await openTestStore();
  const a = await makeTestApp({ store });
  try {
    const moved = await a.app.inject({ method: 'POST', url: '/sandbox/clock', headers: { ...adminHeaders, 'content-type': 'application/json' }, payload: JSON.stringify({ advanceMinutes: 3 * 24 * 60 }) });
    assert.equal(moved.statusCode, 200, moved.body);
    const row = await store.db.selectFrom('sandbox_clock').select('offset_ms').executeTakeFirstOrThrow();
    assert.ok(Number(row.offset_ms) >= 3 * 86_400_000, 'the offset is stored');

    // A second process's clock (a TestClock of its own) follows the stored one.
    const other = new SharedSandboxClock(new TestClock(), store.db);
    assert.ok(other.clock.offset() < 1000);
    await other.load();
    assert.ok(Math.abs(other.clock.now().getTime() - a.clock.now().getTime()) < 1000);

    // A move from the other process starts from the stored time, even when its own clock lags behind.
    const lagging = new SharedSandboxClock(new TestClock(), store.db);
    const next = await lagging.move({ advanceMinutes: 60 });
    assert.ok(next.offsetMs >= 3 * 86_400_000 + 3_600_000 - 1000, JSON.stringify(next));
    await assert.rejects(lagging.move({ to: new Date().toISOString() }), /only moves forward/);
  } finally {
    await a.close();
  }
  // A restarted service on the same store starts at the moved time.
  const b = await makeTestApp({ store });
  try {
    assert.ok(b.clock.offset() >= 3 * 86_400_000 + 3_600_000 - 1000, `offset after restart ${b.clock.offset()}`);
  } finally {
    await b.close();
    await store.close();
  }
});
