// Recurring jobs (./recurring.ts, found by a review): the chain of a retention sweep survives runs that fail — the
// store down for longer than every attempt of one run — and a sweep that stops at its batch limit with rows left is
// followed at once, not a sweep interval later (its deletions keep up with any rate of new rows).
import { test, type TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import assert from 'node:assert/strict';
import { openTestStore, testLogger } from '../test-support/app.js';
import { waitFor } from '../test-support/wait.js';
import { createJobQueue } from './queue.js';
import { RetentionSweep } from './retention-sweep.js';
import { RecurringJob, type RecurringQueue } from './recurring.js';
import { systemClock } from '../clock.js';

const JOB = 'test-retention-sweep';

/** A retention sweep of `rows` rows on a queue of its own (no retries: one failed attempt fails its run for good). */
/**
 * The rows the sweeps logged as deleted: waited for rather than `left === 0`, which a run reaches in its last
 * statement before it logs (a CI run under load read the sweeps in between: [50] for [50, 10]).
 */
const swept = (state: { sweeps: number[] }) => state.sweeps.reduce((a, n) => a + n, 0);

async function setup(t: TestContext, opts: { rows: number; sweepSeconds: number; down: () => boolean; backstopMs?: number; batchMs?: number }) {
  const store = await openTestStore();
  // a pg-boss schema of its own (on PostgreSQL the test database is shared: a waiting job another run left there
  // took the one waiting place of this one's first)
  const schema = `jq_recurring_${process.pid}_${randomBytes(4).toString('hex')}`;
  t.after(async () => {
    if (store.kind === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
    await store.close();
  });
  const queue = createJobQueue({ store, logger: testLogger('silent'), schema, retryLimit: 0, retryDelaySeconds: 0, retryBackoff: false, queues: { [JOB]: { policy: 'short' } } });
  const state = { left: opts.rows, failedRuns: 0, sweeps: [] as number[] };
  const sweep = new RetentionSweep({
    job: JOB,
    clock: systemClock,
    queue,
    ttlMs: 1000,
    sweepSeconds: opts.sweepSeconds,
    batch: 1,
    deletedMessage: 'test rows deleted',
    log: { info: (obj: object) => void state.sweeps.push((obj as { deleted: number }).deleted) },
    ...(opts.backstopMs !== undefined ? { backstopMs: opts.backstopMs } : {}),
    deleteBatch: async (_cutoff, limit) => {
      if (opts.batchMs) await new Promise((resolve) => setTimeout(resolve, opts.batchMs));
      if (opts.down()) {
        state.failedRuns++;
        throw new Error('the store does not answer');
      }
      const n = Math.min(limit, state.left);
      state.left -= n;
      return n;
    },
  });
  await queue.start();
  t.after(async () => {
    sweep.stopWorkers();
    await queue.stop({ graceful: false });
  });
  await sweep.startWorkers();
  return state;
}

test('a retention sweep whose run failed for good (the store down) runs again at its next time once the store is back', async (t) => {
  let down = true;
  const state = await setup(t, { rows: 3, sweepSeconds: 2, down: () => down });
  await waitFor('the first run failed', async () => state.failedRuns > 0, 20_000);
  down = false;
  // before: the run's successor was queued only after a sweep that succeeded, so none came again
  await waitFor('the chain runs again', async () => swept(state) === 3, 20_000);
  assert.deepEqual(state.sweeps, [3]);
});

test('a sweep that stopped at its batch limit with rows left is followed at once, not a sweep interval later', async (t) => {
  // 60 rows, one a statement, 50 statements a sweep; an hour between two sweeps
  const state = await setup(t, { rows: 60, sweepSeconds: 3600, down: () => false });
  await waitFor('every row deleted and the sweeps logged', async () => swept(state) === 60, 30_000);
  assert.deepEqual(state.sweeps, [50, 10], 'two sweeps: the limit, then the rest');
});

test("the backstop does not take the waiting place of a run's own sooner successor (found by a review: the catch-up then waited its interval)", async (t) => {
  // a sweep of 50 batches of 5 ms, with the backstop sending every 20 ms while it runs
  const state = await setup(t, { rows: 60, sweepSeconds: 3600, down: () => false, backstopMs: 20, batchMs: 5 });
  await waitFor('every row deleted and the sweeps logged', async () => swept(state) === 60, 30_000);
  assert.deepEqual(state.sweeps, [50, 10]);
});

test("the backstop sends only when this process's send failed or it has sent nothing for an interval (a CI run: its send took a live chain's waiting place)", async () => {
  const sends: number[] = [];
  let down = false;
  let handler: ((data: unknown) => Promise<void>) | null = null;
  const queue: RecurringQueue = {
    send: async (_name, _data, opts) => {
      if (down) throw new Error('the store does not answer');
      sends.push(opts?.startAfterSeconds ?? 0);
    },
    work: async (_name, _opts, h) => {
      handler = h;
    },
  };
  const job = new RecurringJob({ queue, job: 'test-backstop', everySeconds: 3600, pollingIntervalSeconds: 1, backstopMs: 20, run: async () => 1 });
  try {
    await job.start();
    assert.deepEqual(sends, [0]);
    // a live chain: the run queues its sooner successor, and the backstop sends nothing beside it
    await handler!({});
    await new Promise((r) => setTimeout(r, 150));
    assert.deepEqual(sends, [0, 1], 'no backstop send while the chain lives');
    // a run whose successor could not be sent (the store down): the backstop sends once the store is back
    down = true;
    await assert.rejects(handler!({}));
    down = false;
    await waitFor('the backstop sent', async () => sends.length === 3, 5_000);
    assert.equal(sends[2], 3600);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(sends.length, 3, 'then nothing more');
  } finally {
    job.stop();
  }
});
