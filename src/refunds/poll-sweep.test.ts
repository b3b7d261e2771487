// Decision 0034: a refund the airline holds carries its next look at the airline in its own row (next_poll_at),
// written by the transition that needs it; one recurring sweep looks at the due ones; a failed look is retried
// by the job queue's retry rules, counted in the row, and gives up past them; the console makes it due again.
// Decision 0035: the same for a refund's submission at 0, written due by refund.do.
// The tests drive the sweep themselves (no workers) on a test clock.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp, openTestStore, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import { TestClock } from '../clock.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { ConnectorError } from '../airline/connector.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { JOB_POLL, JOB_SUBMIT, sweepBudgetMs } from './lifecycle.js';
import * as m0027 from '../store/migrations/0027_refund_poll_schedule.js';
import * as m0028 from '../store/migrations/0028_refund_submission_schedule.js';
import type { RefundPollState } from './deps.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

describe('refund submissions and polls as due times in the refund (decisions 0034, 0035)', () => {
  let t: TestApp;
  /** refundCodes whose look the airline answers with a retryable error. */
  const failing = new Set<string>();
  /** refundCodes whose submission the airline answers with a retryable error. */
  const failingSubmit = new Set<string>();
  /** When set, every airline call (a look, or a batch's submission) waits for it first. */
  let gate: (() => Promise<void>) | null = null;
  before(async () => {
    t = await makeTestApp({
      world: refundWorld(),
      // Two retries after a failed look, 10 s and then 20 s later (back-off).
      env: { REFUND_POLL_SECONDS: '1', REFUND_RETRY_LIMIT: '2', JOB_RETRY_DELAY_SECONDS: '10', JOB_RETRY_BACKOFF: 'true' },
      connectors: (w, books) => {
        const sandbox = new SandboxConnector(w, books);
        const refundStatus = sandbox.refundStatus.bind(sandbox);
        sandbox.refundStatus = async (carrier, code, opts) => {
          if (gate) await gate();
          if (failing.has(code)) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
          return refundStatus(carrier, code, opts);
        };
        const submitRefunds = sandbox.submitRefunds.bind(sandbox);
        sandbox.submitRefunds = async (carrier, submissions, opts) => {
          if (gate) await gate();
          const answers = await submitRefunds(carrier, submissions.filter((s) => !failingSubmit.has(s.refundCode)), opts);
          let i = 0;
          return submissions.map((s) => (failingSubmit.has(s.refundCode) ? new ConnectorError('unavailable', true, 'the airline is down') : answers[i++]!));
        };
        return [sandbox];
      },
    });
  });
  after(() => t.close());

  const refund = async (pnr: string, last: string, first: string, flights: string[]) => {
    const orderNo = await orderNoOfPnr(t.store.db, pnr);
    const res = await call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: flights.map((f) => refundSegment(t.world, f)) }] });
    assert.equal(res.body.status, 0, `${pnr}: ${res.body.msg}`);
    return String(res.body.refundCode);
  };
  const row = (code: string) =>
    t.store.db.selectFrom('refund_orders').select(['status', 'next_poll_at', 'poll_failures', 'poll_error']).where('refund_code', '=', code).executeTakeFirstOrThrow();
  const stateOf = async (code: string) => (await sql<RefundPollState>`${t.workers.lifecycle.scheduler.pollStateSql(code)}`.execute(t.store.db)).rows[0];
  const at = (d: Date | string | null) => (d === null ? null : new Date(d).getTime());
  /** The test clock runs on with real time: a due time written during a step lies `ms` after its start or end. */
  const within = (d: Date | string | null, step: { from: number; to: number }, ms: number, what: string) => {
    const v = at(d);
    assert.ok(v !== null && v >= step.from + ms && v <= step.to + ms, `${what}: ${String(v)} not within ${step.from + ms}…${step.to + ms}`);
  };
  /** Runs `fn`, answering its result and the test clock's time before and after. */
  const timed = async <T>(fn: () => Promise<T>) => {
    const from = t.clock.now().getTime();
    const value = await fn();
    return { value, from, to: t.clock.now().getTime() };
  };

  /** Runs `fn` with sweeps of one refund a batch (many batches from a few refunds), then the page size as it was. */
  const inPagesOfOne = async <T>(fn: () => Promise<T>) => {
    const lifecycle = t.workers.lifecycle;
    const page = lifecycle.sweepPage;
    lifecycle.sweepPage = 1;
    try {
      return await fn();
    } finally {
      lifecycle.sweepPage = page;
    }
  };

  test('0 → 1 writes the first look a poll interval ahead and queues no poll job; the sweep looks at the due ones, each once, and fails, backs off, gives up, and is made due again', async () => {
    const lifecycle = t.workers.lifecycle;
    const a = await refund('DEP001', lastA, firstA, ['out', 'ret']);
    const b = await refund('BELOW1', 'BELOW', 'ANN', ['out']);
    const submitted = await timed(() => lifecycle.submitBatch([a, b]));
    for (const code of [a, b]) {
      const r = await row(code);
      assert.equal(r.status, 1);
      within(r.next_poll_at, submitted, 1000, 'REFUND_POLL_SECONDS after the move to 1');
      assert.equal(r.poll_failures, 0);
    }
    const { rows: jobs } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`${t.workers.queue.schema}.job`)} where name = ${JOB_POLL}`.execute(t.store.db);
    assert.equal(jobs[0]!.n, 0, 'no poll job per refund');
    assert.deepEqual(await stateOf(a), { state: 'created', retry_count: 0, retry_limit: 2, start_after: (await row(a)).next_poll_at, output: null });

    // Not due yet: nothing to look at.
    assert.equal(await lifecycle.sweep(), 0);

    // Due: both looked at once. The airline still processes b (its next look a poll interval on); a's look fails.
    failing.add(a);
    t.clock.advance(1000);
    let sweep = await timed(() => lifecycle.sweep());
    assert.equal(sweep.value, 2);
    within((await row(b)).next_poll_at, sweep, 1000, "b's next look");
    let ra = await row(a);
    assert.deepEqual([ra.status, ra.poll_failures, ra.poll_error], [1, 1, 'the airline system answered with an error']);
    within(ra.next_poll_at, sweep, 10_000, "a's retry");
    const retrying = await stateOf(a);
    assert.deepEqual([retrying?.state, retrying?.retry_count, at(retrying?.start_after ?? null)], ['retry', 1, at(ra.next_poll_at)]);
    assert.deepEqual(retrying?.output, { message: 'the airline system answered with an error' });

    // A second later only b is due.
    t.clock.advance(1000);
    assert.equal(await lifecycle.sweep(), 1);
    // 10 s on: a fails again and waits twice as long; then it fails a third time: past the two retries, nobody looks.
    t.clock.advance(10_000);
    sweep = await timed(() => lifecycle.sweep());
    assert.equal(sweep.value, 2);
    ra = await row(a);
    assert.equal(ra.poll_failures, 2);
    within(ra.next_poll_at, sweep, 20_000, "a's second retry");
    t.clock.advance(20_000);
    await lifecycle.sweep();
    ra = await row(a);
    assert.deepEqual([ra.status, ra.next_poll_at, ra.poll_failures], [1, null, 3]);
    const gaveUp = await stateOf(a);
    assert.deepEqual([gaveUp?.state, gaveUp?.retry_count, gaveUp?.retry_limit], ['failed', 2, 2]);
    t.clock.advance(60_000);
    failing.delete(a);
    const looked = await lifecycle.sweep();
    assert.equal((await row(a)).status, 1, `given up: a sweep no longer looks at it (${looked} looked at)`);

    // The console's retry: due now, its failures forgotten; the next sweep looks and the airline, long done, has paid it.
    const { rows: made } = await sql<{ n: number }>`with due as (${lifecycle.scheduler.pollNowSql(a)}) select count(*)::int as n from due`.execute(t.store.db);
    assert.equal(made[0]!.n, 1);
    assert.deepEqual([(await stateOf(a))?.state, (await row(a)).poll_failures], ['created', 0]);
    await lifecycle.sweep();
    ra = await row(a);
    assert.equal(ra.status, 2, 'deposit refund paid: 1 → 3 → 2 in one look');
    assert.equal(await stateOf(a), undefined, 'no poll state once the refund left 1 and 3');
    // pollNowSql leaves a refund that is no longer at the airline as it is.
    const { rows: none } = await sql<{ n: number }>`with due as (${lifecycle.scheduler.pollNowSql(a)}) select count(*)::int as n from due`.execute(t.store.db);
    assert.equal(none[0]!.n, 0);
  });

  test('migration 0027 makes a refund an older build left at 1 due at once, and leaves one that is final as it is', async () => {
    const held = await refund('TWO001', 'TWOTICKETS', 'TIM', ['out', 'ret']);
    const done = await refund('CANQ01', 'CANNOT', 'ANN', ['xc']);
    // As an older build left them: at 1 and at 2, no due time.
    await t.store.db.updateTable('refund_orders').set({ status: 1, next_poll_at: null }).where('refund_code', '=', held).execute();
    await t.store.db.updateTable('refund_orders').set({ status: 2, next_poll_at: null }).where('refund_code', '=', done).execute();
    // The migration writes the store's time (now()), not the test clock's (moved ahead by the test before).
    const from = Date.now();
    await m0027.up(t.store.db as never);
    within((await row(held)).next_poll_at, { from: from - 1000, to: Date.now() + 1000 }, 0, 'due at the migration');
    assert.equal((await row(done)).next_poll_at, null);
    assert.equal((await stateOf(held))?.state, 'created');
    // Undone: the airline never received `held` (made 1 by hand), and a failed look no longer rejects a refund
    // (src/refunds/look-failures.test.ts): rejected here, its tickets free for the tests after.
    await t.store.db.updateTable('refund_orders').set({ status: 4, next_poll_at: null }).where('refund_code', '=', held).execute();
    await t.store.db.updateTable('refund_tickets').set({ live: false }).where('refund_code', '=', held).execute();
  });

  test('decision 0035: refund.do writes the submission due and queues no job; the sweep sends it (0 → 1, first look a poll interval on); a failing one backs off, gives up, and is made due again', async () => {
    const lifecycle = t.workers.lifecycle;
    const c = await refund('OLD001', 'OLDIE', 'OZ', ['out']);
    const d = await refund('ONE001', 'ONCE', 'OTTO', ['xo']);
    for (const code of [c, d]) {
      const r = await row(code);
      assert.equal(r.status, 0);
      assert.ok(at(r.next_poll_at)! <= t.clock.now().getTime(), 'its submission due at once');
    }
    const { rows: jobs } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(`${t.workers.queue.schema}.job`)} where name = ${JOB_SUBMIT}`.execute(t.store.db);
    assert.equal(jobs[0]!.n, 0, 'no submission job per refund');

    // One sweep: c goes to the airline and on to 1; d's submission fails, is counted and put off 10 s.
    failingSubmit.add(d);
    let sweep = await timed(() => lifecycle.sweep());
    const rc = await row(c);
    assert.deepEqual([rc.status, rc.poll_failures], [1, 0]);
    within(rc.next_poll_at, sweep, 1000, "c's first look, REFUND_POLL_SECONDS after the move to 1");
    let rd = await row(d);
    assert.deepEqual([rd.status, rd.poll_failures, rd.poll_error], [0, 1, 'the airline is down']);
    within(rd.next_poll_at, sweep, 10_000, "d's retry");
    // 10 s on it fails again and waits twice as long; then a third time: past the two retries, nobody sends it.
    t.clock.advance(10_000);
    sweep = await timed(() => lifecycle.sweep());
    rd = await row(d);
    assert.equal(rd.poll_failures, 2);
    within(rd.next_poll_at, sweep, 20_000, "d's second retry");
    t.clock.advance(20_000);
    await lifecycle.sweep();
    rd = await row(d);
    assert.deepEqual([rd.status, rd.next_poll_at, rd.poll_failures], [0, null, 3]);
    failingSubmit.delete(d);
    t.clock.advance(60_000);
    await lifecycle.sweep();
    assert.equal((await row(d)).status, 0, 'given up: a sweep no longer sends it');

    // The console's retry: due now, its failures forgotten; the next sweep sends it.
    const { rows: made } = await sql<{ n: number }>`with due as (${lifecycle.scheduler.submitNowSql(d)}) select count(*)::int as n from due`.execute(t.store.db);
    assert.equal(made[0]!.n, 1);
    assert.equal((await row(d)).poll_failures, 0);
    await lifecycle.sweep();
    assert.equal((await row(d)).status, 1);
    // submitNowSql leaves a refund that is no longer at 0 as it is.
    const { rows: none } = await sql<{ n: number }>`with due as (${lifecycle.scheduler.submitNowSql(d)}) select count(*)::int as n from due`.execute(t.store.db);
    assert.equal(none[0]!.n, 0);
  });

  test('decision 0035: a store error while a sweep records a failed call fails the sweep once its batches have ended, and the call stays due', async () => {
    const lifecycle = t.workers.lifecycle;
    const e = await refund('RFD001', 'ELSEWHERE', 'EVA', ['out']);
    failingSubmit.add(e);
    const patched = lifecycle as unknown as { stepFailed: (...args: unknown[]) => Promise<void> };
    const stepFailed = patched.stepFailed;
    patched.stepFailed = () => Promise.reject(new Error('the store went away'));
    try {
      await assert.rejects(lifecycle.sweep(), /the store went away/);
    } finally {
      patched.stepFailed = stepFailed;
    }
    let re = await row(e);
    assert.deepEqual([re.status, re.poll_failures], [0, 0], 'nothing recorded');
    assert.ok(at(re.next_poll_at)! <= t.clock.now().getTime(), 'still due');
    await lifecycle.sweep();
    re = await row(e);
    assert.deepEqual([re.status, re.poll_failures], [0, 1], 'the next sweep records it');
    failingSubmit.delete(e);
  });

  test('decision 0035: a sweep of many batches, as many in flight as it has lanes, sends every due submission once (the batch after the last read while it waits for a lane)', async () => {
    const lifecycle = t.workers.lifecycle;
    const codes = [
      await refund('TWO001', 'TWOTICKETS', 'TIM', ['out', 'ret']),
      await refund('VCH001', 'VOUCHERS', 'ANN', ['xv']),
    ];
    // The family's refund names both travellers (a child does not fly alone).
    const fam = await orderNoOfPnr(t.store.db, 'FAM001');
    const both = await call(t.app, '/refund.do', {
      orderNo: fam,
      refundRequestList: [['PARENT', 'PAT'], ['PARENT', 'KIM']].map(([lastName, firstName]) => ({ lastName, firstName, refundReason: '1', segments: [refundSegment(t.world, 'out')] })),
    });
    assert.equal(both.body.status, 0, String(both.body.msg));
    codes.push(String(both.body.refundCode));
    // One refund a batch, through the sweep's lanes: these three, and a look at every refund the tests before left at 1
    // or 3, all due (a failed look no longer rejects a refund: which of theirs are still due is theirs to say).
    t.clock.advance(60_000);
    await t.store.db.updateTable('refund_orders').set({ next_poll_at: t.clock.now() }).where('status', 'in', [1, 3]).execute();
    const called = await inPagesOfOne(() => lifecycle.sweep());
    assert.ok(called > lifecycle.sweepLanes, `${called} batches of one: more than the ${lifecycle.sweepLanes} lanes`);
    for (const code of codes) assert.equal((await row(code)).status, 1, code);
    const { rows: moves } = await sql<{ refund_code: string; n: number }>`
      select refund_code, count(*)::int as n from refund_status_history
      where refund_code in (${sql.join(codes)}) and from_status = 0 and to_status = 1 group by refund_code`.execute(t.store.db);
    assert.deepEqual(moves.map((m) => m.n), codes.map(() => 1), 'one move to 1 each');
    const { rows: books } = await sql<{ submit_calls: number }>`
      select submit_calls from sandbox_refunds where refund_code in (${sql.join(codes)})`.execute(t.store.db);
    assert.deepEqual(books.map((b) => b.submit_calls), codes.map(() => 1), 'the airline received each once');
  });

  test('migration 0028 makes a refund an older build left at 0 due at once, and leaves one at 1 with its look as it is', async () => {
    const waiting = await refund('DEP001', lastB, firstB, ['out', 'ret']);
    await t.store.db.updateTable('refund_orders').set({ next_poll_at: null }).where('refund_code', '=', waiting).execute();
    const held = (await t.store.db.selectFrom('refund_orders').select(['refund_code', 'next_poll_at']).where('status', '=', 1).where('next_poll_at', 'is not', null).executeTakeFirstOrThrow());
    const from = Date.now();
    await m0028.up(t.store.db as never);
    within((await row(waiting)).next_poll_at, { from: from - 1000, to: Date.now() + 1000 }, 0, 'due at the migration');
    assert.equal(at((await row(held.refund_code)).next_poll_at), at(held.next_poll_at));
  });

  test('a sweep paused while its batches in flight wait reads no further batch: the calls it had not started stay due for the next sweep', async () => {
    const lifecycle = t.workers.lifecycle;
    t.clock.advance(60_000);
    const now = t.clock.now();
    const dueNow = async () =>
      (await t.store.db.selectFrom('refund_orders').select('refund_code').where('status', 'in', [0, 1, 3]).where('next_poll_at', '<=', now).execute()).map((r) => r.refund_code);
    const due = await dueNow();
    assert.ok(due.length > lifecycle.sweepLanes, `${due.length} calls due: more than ${lifecycle.sweepLanes} batches of one`);
    // The airline holds the first calls (one per batch of one, every lane full) until released.
    const held: Array<() => void> = [];
    let allHeld!: () => void;
    const lanesFull = new Promise<void>((resolve) => (allHeld = resolve));
    gate = () =>
      new Promise<void>((release) => {
        held.push(release);
        if (held.length === lifecycle.sweepLanes) allHeld();
      });
    try {
      await inPagesOfOne(async () => {
        const sweeping = lifecycle.sweep();
        await lanesFull;
        const paused = lifecycle.pauseSweeps();
        gate = null;
        for (const release of held) release();
        assert.equal(await sweeping, lifecycle.sweepLanes, 'the batches in flight, no more');
        await paused;
      });
    } finally {
      gate = null;
      lifecycle.resumeSweeps();
    }
    assert.equal((await dueNow()).length, due.length - lifecycle.sweepLanes, 'the calls not started are still due');
    await lifecycle.sweep();
    assert.deepEqual(await dueNow(), [], 'the next sweep made them');
  });

  test("the sweep's cursor keeps a due time to the microsecond: each call due at a time the store's clock wrote is made once", async () => {
    const lifecycle = t.workers.lifecycle;
    const now = t.clock.now();
    // Due times as a migration's now() writes them (0027, 0028): microseconds that a Date (milliseconds) drops.
    const { rows } = await sql<{ refund_code: string }>`
      update refund_orders set next_poll_at = date_trunc('second', ${now}::timestamptz) - interval '2 seconds' + random() * interval '1 millisecond'
      where status in (0, 1, 3) returning refund_code`.execute(t.store.db);
    // One is enough: a batch of one is read, and the next read must not find it again while it is in flight.
    assert.ok(rows.length >= 1, 'a refund with an airline call to make');
    assert.equal(await inPagesOfOne(() => lifecycle.sweep()), rows.length, 'one call each, none read again by the next batch');
  });
});

test("a sweep whose job's attempt was aborted (its time limit) starts no batch: the calls stay due", async () => {
  const t = await makeTestApp({ world: refundWorld() });
  try {
    for (const [pnr, last, first, flights] of [['DEP001', lastA, firstA, ['out', 'ret']], ['BELOW1', 'BELOW', 'ANN', ['out']]] as const) {
      const orderNo = await orderNoOfPnr(t.store.db, pnr);
      const res = await call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: flights.map((f) => refundSegment(t.world, f)) }] });
      assert.equal(res.body.status, 0, String(res.body.msg));
    }
    const atZero = async () => (await t.store.db.selectFrom('refund_orders').select('refund_code').where('status', '=', 0).execute()).length;
    assert.equal(await atZero(), 2);
    const lifecycle = t.workers.lifecycle;
    lifecycle.sweepPage = 1;
    // (a page read before the attempt was aborted is not started either: a review saw one wait for a lane, an
    // airline time-out, and start past the job's time limit)
    assert.equal(await lifecycle.sweep(30_000, AbortSignal.abort()), 0, 'no batch');
    assert.equal(await atZero(), 2, 'both submissions still due');
    assert.equal(await lifecycle.sweep(), 2, 'made by the next sweep');
    assert.equal(await atZero(), 0);
  } finally {
    await t.close();
  }
});

test('a sweep starts batches only while its job can still end inside its time limit (JOB_EXPIRE_SECONDS)', () => {
  // the default limit (60 s) and the airline's 15 s deadline: the usual 30 s
  assert.equal(sweepBudgetMs(60, 15_000), 30_000);
  // the smallest limit allowed (30 s): a batch started at 10 s ends by 25 s plus its statements, inside 30
  assert.equal(sweepBudgetMs(30, 15_000), 10_000);
  assert.equal(sweepBudgetMs(3600, 15_000), 30_000);
  assert.equal(sweepBudgetMs(10, 15_000), 1_000, 'at least a second');
});

/**
 * DEP001's refund made by an API process, and a worker process on the same store whose connectors serve no carrier
 * (its submissions fail: no airline connection); `fn` gets them, all closed after it.
 */
async function withUnconnectedWorker(fn: (h: { store: Store; clock: TestClock; api: TestApp; worker: TestApp; orderNo: string; code: string }) => Promise<void>): Promise<void> {
  const store = await openTestStore();
  const clock = new TestClock();
  const apps: TestApp[] = [];
  try {
    const api = await makeTestApp({ store, world: refundWorld(), clock });
    apps.push(api);
    const orderNo = await orderNoOfPnr(store.db, 'DEP001');
    const res = await call(api.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(api.world, f)) }] });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const worker = await makeTestApp({ store, world: refundWorld(), clock, connectors: () => [] });
    apps.push(worker);
    await fn({ store, clock, api, worker, orderNo, code: String(res.body.refundCode) });
  } finally {
    for (const a of apps.reverse()) await a.close();
    await store.close();
  }
}

test('decision 0035: a worker without the carrier\'s airline connection counts a failed submission and tries again; it does not reject the refund', () =>
  // a worker process whose connectors do not (yet) serve this carrier (a rollout adding it)
  withUnconnectedWorker(async ({ store, clock, api, worker, code }) => {
    await worker.workers.lifecycle.sweep();
    const r = await store.db.selectFrom('refund_orders').select(['status', 'poll_failures', 'poll_error', 'next_poll_at']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    assert.deepEqual([r.status, r.poll_failures], [0, 1], 'at 0, one failed submission counted');
    assert.match(String(r.poll_error), /no airline connection/);
    assert.ok(r.next_poll_at !== null, 'tried again later');
    // the process with the connection sends it once it is due
    clock.advance(60_000);
    await api.workers.lifecycle.sweep();
    assert.equal((await store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', code).executeTakeFirstOrThrow()).status, 1);
  }));

test('decision 0035 (amendment): with the default REFUND_RETRY_LIMIT a refund\'s failing airline call is tried for hours, at most 15 minutes apart, then given up', () =>
  // a worker whose airline is unreachable: every submission fails
  withUnconnectedWorker(async ({ store, clock, worker, code }) => {
    const row = () => store.db.selectFrom('refund_orders').select(['status', 'poll_failures', 'next_poll_at']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    /** One failed submission after `before` earlier ones: the wait it leaves before the next try, in seconds (null: given up). */
    const failAfter = async (before: number) => {
      await store.db.updateTable('refund_orders').set({ poll_failures: before, next_poll_at: clock.now() }).where('refund_code', '=', code).execute();
      const from = clock.now().getTime();
      await worker.workers.lifecycle.sweep();
      const r = await row();
      assert.deepEqual([r.status, r.poll_failures], [0, before + 1]);
      return r.next_poll_at === null ? null : Math.round((new Date(r.next_poll_at).getTime() - from) / 1000);
    };
    assert.equal(await failAfter(0), 5, 'JOB_RETRY_DELAY_SECONDS first');
    assert.equal(await failAfter(3), 40, 'doubling (JOB_RETRY_BACKOFF)');
    // past JOB_RETRY_LIMIT (5), which gave up here before: ~2.5 minutes into an outage
    assert.equal(await failAfter(7), 640);
    assert.equal(await failAfter(8), 900, 'at most 15 minutes apart');
    assert.equal(await failAfter(23), 900);
    assert.equal(await failAfter(24), null, 'past REFUND_RETRY_LIMIT (24): given up, left for an operator');
  }));
