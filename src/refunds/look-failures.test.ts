// Looks and the sweep's budget (found by a review): a status look that fails — even with an error the connection
// calls final — decides nothing, and a rejection answered for a refund the airline accepted (3) leaves it for an
// operator (docs/refunds.md: only 0 or 1 → 4); a sweep starts no batch once its budget is spent or its job aborted,
// however long it waited for a lane.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Kysely } from 'kysely';
import { call, makeTestApp, orderNoOfPnr } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { ConnectorError, type AirlineRefundState } from '../airline/connector.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { JOB_SUBMIT, RefundLifecycle, SWEEP_SHAPES, submitWorker, type LifecycleDeps } from './lifecycle.js';
import { REFUND_ORDER_STATUS as RS } from './statuses.js';
import type { Database } from '../store/schema.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

/** What the airline's status look does instead of answering (throw, or answer this state); null: the sandbox's own answer. */
type Instead = ConnectorError | AirlineRefundState | null;

/** The refund world with an airline whose status look answers `airline.instead` when set. */
async function appWithLook(rates?: Record<string, string>) {
  const airline: { instead: Instead } = { instead: null };
  const t = await makeTestApp({
    world: Object.assign(refundWorld(), rates ? { rates } : {}),
    connectors: (w, books) => {
      const sandbox = new SandboxConnector(w, books);
      const look = sandbox.refundStatus.bind(sandbox);
      sandbox.refundStatus = async (carrier, code, opts) => {
        if (airline.instead instanceof ConnectorError) throw airline.instead;
        return airline.instead ?? look(carrier, code, opts);
      };
      return [sandbox];
    },
  });
  const orderNo = await orderNoOfPnr(t.store.db, 'DEP001');
  /** A refund of one passenger of DEP001: its refundCode. */
  const refund = async (last: string, first: string) => {
    const res = await call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }] });
    assert.equal(res.body.status, 0, String(res.body.msg));
    return String(res.body.refundCode);
  };
  return { t, airline, refund };
}

test('a failed look moves nothing, whatever the error; a rejection answered at 3 is left for an operator (spec: 0 or 1 → 4 only)', async () => {
  const { t, airline, refund } = await appWithLook();
  try {
    const code = await refund(lastA, firstA);
    const lifecycle = t.workers.lifecycle;
    const row = () => t.store.db.selectFrom('refund_orders').select(['status', 'poll_failures', 'poll_error', 'next_poll_at']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    const live = async () => (await t.store.db.selectFrom('refund_tickets').select('live').where('refund_code', '=', code).execute()).map((r) => r.live);

    await lifecycle.sweep();
    assert.equal((await row()).status, RS.AIRLINE_PROCESSING);
    // at 1: a connection error called final (a carrier a world reload dropped) is a failed look, not a rejection
    airline.instead = new ConnectorError('unavailable', false, 'airline XS does not exist');
    t.clock.advance(60_000);
    await lifecycle.sweep();
    let r = await row();
    assert.deepEqual([r.status, r.poll_failures, r.poll_error], [RS.AIRLINE_PROCESSING, 1, 'airline XS does not exist']);
    assert.ok(r.next_poll_at, 'looked at again');

    // the airline's answer moves it on to 3 (accepted, refund under way)
    airline.instead = { state: 'refunding', amountMinor: 10_000, currency: 'EUR' };
    t.clock.advance(3_600_000);
    await lifecycle.sweep();
    assert.equal((await row()).status, RS.AIRLINE_REFUNDING);

    for (const answer of [new ConnectorError('rejected', false, 'has no refund'), { state: 'rejected', cancelReason: '1' } as AirlineRefundState, { state: 'withdrawn', cancelReason: '1' } as AirlineRefundState]) {
      airline.instead = answer;
      t.clock.advance(3_600_000);
      await lifecycle.sweep();
      r = await row();
      assert.equal(r.status, RS.AIRLINE_REFUNDING, `still 3 after ${JSON.stringify(answer)}`);
      assert.ok(r.poll_failures > 0, 'counted as a failed look');
      assert.deepEqual(await live(), [true], 'its tickets are still held by the refund');
    }
    assert.match(String((await row()).poll_error), /left at 3 for an operator/);
    const history = await t.store.db.selectFrom('refund_status_history').select('to_status').where('refund_code', '=', code).execute();
    assert.ok(!history.some((h) => h.to_status === RS.REJECTED || h.to_status === RS.WITHDRAWN), 'never 4 or 6');
  } finally {
    await t.close();
  }
});

test("an airline's text holding a NUL is stored (as U+FFFD): a failed look counted, a rejection's reason recorded (found by a review of the voids: the write was refused and the look made again every second)", async () => {
  const { t, airline, refund } = await appWithLook();
  try {
    const code = await refund(lastA, firstA);
    const row = () => t.store.db.selectFrom('refund_orders').select(['status', 'poll_failures', 'poll_error', 'cancel_reason']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    await t.workers.lifecycle.sweep();
    assert.equal((await row()).status, RS.AIRLINE_PROCESSING);
    airline.instead = new ConnectorError('unavailable', true, 'reset\u0000');
    t.clock.advance(60_000);
    await t.workers.lifecycle.sweep();
    let r = await row();
    assert.deepEqual([r.status, r.poll_failures, r.poll_error], [RS.AIRLINE_PROCESSING, 1, 'reset\uFFFD']);
    airline.instead = { state: 'rejected', cancelReason: '1\u0000' };
    t.clock.advance(3_600_000);
    await t.workers.lifecycle.sweep();
    r = await row();
    assert.deepEqual([r.status, r.cancel_reason], [RS.REJECTED, '1\uFFFD']);

    // a voucher code with a NUL, written into the refund's jsonb details (found by a review of this fix)
    airline.instead = null;
    const paidCode = await refund(lastB, firstB);
    await t.workers.lifecycle.sweep();
    airline.instead = { state: 'refunded', amountMinor: 10_000, currency: 'EUR', voucherCode: 'V\u0000' };
    t.clock.advance(3_600_000);
    await t.workers.lifecycle.sweep();
    const done = await t.store.db.selectFrom('refund_orders').select(['status', 'details']).where('refund_code', '=', paidCode).executeTakeFirstOrThrow();
    assert.equal(done.status, RS.REFUNDED);
    assert.equal((done.details as { outcome?: { voucherCode?: string } }).outcome?.voucherCode, 'V\uFFFD');
  } finally {
    await t.close();
  }
});

test("a sweep starts no batch once its budget is spent or its job's attempt aborted, however long it waited for a lane", async () => {
  // A store of ten refunds at 1, all due, read a page of one at a time; each look takes 300 ms.
  const due = Array.from({ length: 10 }, (_, i) => ({ refund_code: `R${i}`, due_at: '2020-01-01 00:00:00+00', status: RS.AIRLINE_PROCESSING }));
  const db = {
    executeQuery: async (q: { parameters: readonly unknown[] }) => {
      const [, , afterCode, limit] = q.parameters as [unknown, unknown, string, number];
      return { rows: due.filter((d) => d.refund_code > afterCode).slice(0, limit) };
    },
  } as unknown as Kysely<Database>;
  const deps = {
    db,
    clock: { now: () => new Date() },
    pollSeconds: 1,
    pollRetry: { retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true },
    submitRetry: { retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true },
    airlineTimeoutMs: 300,
    log: { info() {}, warn() {} },
  } as unknown as LifecycleDeps;
  const run = async (budgetMs: number, abortAfterMs: number | null, sweepLanes?: number) => {
    const lifecycle = new RefundLifecycle(sweepLanes === undefined ? deps : { ...deps, sweepLanes });
    lifecycle.sweepPage = 1;
    const started: number[] = [];
    const t0 = performance.now();
    (lifecycle as unknown as { look: (code: string) => Promise<void> }).look = async () => {
      started.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 300));
    };
    const controller = new AbortController();
    if (abortAfterMs !== null) setTimeout(() => controller.abort(), abortAfterMs);
    const called = await lifecycle.sweep(budgetMs, controller.signal);
    return { called, started, ended: performance.now() - t0 };
  };
  // out of budget at 100 ms: the lanes' first batches only (before, more started at ~300 ms); no storeKind: PostgreSQL's lanes
  let sweep = await run(100, null);
  assert.equal(sweep.called, SWEEP_SHAPES.postgres.lanes, `batches started at ${sweep.started.map(Math.round).join(', ')} ms`);
  assert.ok(sweep.started.every((ms) => ms < 100));
  assert.ok(sweep.ended < 550, `ended at ${Math.round(sweep.ended)} ms: one airline call after its last start`);
  // aborted at 50 ms with budget left: the same
  sweep = await run(10_000, 50);
  assert.equal(sweep.called, SWEEP_SHAPES.postgres.lanes, `batches started at ${sweep.started.map(Math.round).join(', ')} ms`);
  // REFUND_SWEEP_LANES=2 (decision 0063): two batches in flight, so two started before the budget ran out
  sweep = await run(100, null, 2);
  assert.equal(sweep.called, 2, `batches started at ${sweep.started.map(Math.round).join(', ')} ms`);
  // no lanes, or more than the job queue allows its workers: refused at construction (0 would hang the sweep)
  for (const sweepLanes of [0, 17, 2.5]) assert.throws(() => new RefundLifecycle({ ...deps, sweepLanes }), /sweepLanes must be an integer from 1 to 16/);
});

test("REFUND_SWEEP_LANES reaches the sweep of a service started with it; without it the sweep keeps its store's shape (decisions 0063, 0065)", async () => {
  const set = await makeTestApp({ env: { REFUND_SWEEP_LANES: '7' } });
  try {
    assert.equal(set.workers.lifecycle.sweepLanes, 7);
  } finally {
    await set.close();
  }
  const unset = await makeTestApp();
  try {
    assert.equal(unset.workers.lifecycle.sweepLanes, SWEEP_SHAPES[unset.store.kind].lanes);
    assert.equal(unset.workers.lifecycle.sweepPage, SWEEP_SHAPES[unset.store.kind].page);
  } finally {
    await unset.close();
  }
});

// A review: an airline amount in another currency than the refund's was stored as if in the refund's.
test("the airline's amount in another currency is converted to the refund's at the configured rate; without a rate the look fails, nothing stored", async () => {
  const { t, airline, refund } = await appWithLook({ 'USD/EUR': '0.9' });
  try {
    const converted = await refund(lastA, firstA);
    const unconverted = await refund(lastB, firstB);
    const lifecycle = t.workers.lifecycle;
    const row = (code: string) => t.store.db.selectFrom('refund_orders').select(['status', 'currency', 'actual_refund_minor', 'poll_failures', 'poll_error']).where('refund_code', '=', code).executeTakeFirstOrThrow();
    await lifecycle.sweep();
    assert.equal((await row(converted)).status, RS.AIRLINE_PROCESSING);
    assert.equal((await row(converted)).currency, 'EUR');

    airline.instead = { state: 'refunded', amountMinor: 20_000, currency: 'USD', voucherCode: null };
    await lifecycle.pollStep(converted);
    const done = await row(converted);
    assert.deepEqual([done.status, Number(done.actual_refund_minor)], [RS.REFUNDED, 18_000], 'USD 200.00 at 0.9: EUR 180.00');

    airline.instead = { state: 'refunded', amountMinor: 20_000, currency: 'JPY', voucherCode: null };
    t.clock.advance(3_600_000);
    await lifecycle.sweep();
    const stuck = await row(unconverted);
    assert.equal(stuck.status, RS.AIRLINE_PROCESSING, 'not completed with an amount in the wrong currency');
    assert.equal(stuck.actual_refund_minor, null);
    assert.ok(stuck.poll_failures > 0);
    assert.match(String(stuck.poll_error), /the airline paid in JPY, the order's refund is in EUR, and no rate JPY->EUR is configured/);
  } finally {
    await t.close();
  }
});

test('the legacy submission jobs are worked in as many lanes as the sweep keeps batches (REFUND_SWEEP_LANES, decision 0063)', async () => {
  // A queue that records each worker's options; the lifecycle's startWorkers is all that runs.
  const recordingQueue = () => {
    const opts = new Map<string, { lanes?: number; batchSize?: number }>();
    const queue = {
      send: async () => null,
      work: async (name: string, o: { batchSize?: number }) => void opts.set(name, o),
      workBatch: async (name: string, o: { lanes?: number; batchSize?: number }) => void opts.set(name, o),
      wake() {},
    };
    return { opts, queue };
  };
  const started = async (sweepLanes?: number, storeKind?: 'pglite' | 'postgres') => {
    const { opts, queue } = recordingQueue();
    const deps = { queue, clock: { now: () => new Date() }, airlineTimeoutMs: 300, log: { info() {}, warn() {} }, storeKind } as unknown as LifecycleDeps;
    const lifecycle = new RefundLifecycle(sweepLanes === undefined ? deps : { ...deps, sweepLanes });
    try {
      await lifecycle.startWorkers();
    } finally {
      lifecycle.stopWorkers();
    }
    return opts.get(JOB_SUBMIT);
  };
  assert.deepEqual(await started(5), { ...submitWorker('postgres'), lanes: 5 });
  assert.deepEqual(await started(), { ...submitWorker('postgres'), lanes: SWEEP_SHAPES.postgres.lanes });
  assert.deepEqual(await started(undefined, 'postgres'), { batchSize: 25, pollingIntervalSeconds: 0.5, lanes: 4 }, "without the setting, the sweep's policy");
  // the embedded store (decision 0065): batches of the sweep's page, one at a time
  assert.deepEqual(await started(undefined, 'pglite'), { batchSize: 100, pollingIntervalSeconds: 0.5, lanes: 1 });
  assert.deepEqual(await started(3, 'pglite'), { batchSize: 100, pollingIntervalSeconds: 0.5, lanes: 3 });
});

test("the sweep's shape keeps as many refunds in flight on either store, in fewer, larger batches on the embedded one (decision 0065)", () => {
  // the calls open at an airline are the same whichever store a deployment runs on
  const inFlight = (kind: 'pglite' | 'postgres') => SWEEP_SHAPES[kind].page * SWEEP_SHAPES[kind].lanes;
  assert.equal(inFlight('pglite'), inFlight('postgres'));
  // the embedded store runs one statement at a time: its batches are fewer and larger, each paying its statements once
  assert.ok(SWEEP_SHAPES.pglite.lanes < SWEEP_SHAPES.postgres.lanes && SWEEP_SHAPES.pglite.page > SWEEP_SHAPES.postgres.page);
  const deps = { clock: { now: () => new Date() }, airlineTimeoutMs: 300, log: { info() {}, warn() {} } } as unknown as LifecycleDeps;
  for (const storeKind of ['pglite', 'postgres'] as const) {
    const lifecycle = new RefundLifecycle({ ...deps, storeKind });
    assert.deepEqual([lifecycle.sweepPage, lifecycle.sweepLanes], [SWEEP_SHAPES[storeKind].page, SWEEP_SHAPES[storeKind].lanes], storeKind);
  }
});
