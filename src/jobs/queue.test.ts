// The job queue on the store in use (PGlite by default, PostgreSQL with DATABASE_URL): transactional send,
// retries, delays, deduplication, recovery after a crash, and (PostgreSQL) two workers sharing one queue.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import { sql, type Kysely } from 'kysely';
import { openTestStore, testLogger } from '../test-support/app.js';
import { openStore, type Store } from '../store/store.js';
import { isUniqueViolation } from '../store/errors.js';
import { createJobQueue, FETCH_INDEX, UnknownQueueError, type JobInfo, type JobQueue, type JobQueueOptions } from './queue.js';
import { storeExecutor } from './executor.js';

const DATABASE_URL = process.env.DATABASE_URL ?? null;
const logger = testLogger();
const FAST = { pollingIntervalSeconds: 0.5 };

interface Harness {
  store: Store;
  schema: string;
  queues: JobQueue[];
  queue(opts: Omit<JobQueueOptions, 'store' | 'logger' | 'schema'>): JobQueue;
  close(): Promise<void>;
}

/** A fresh store and a pg-boss schema of its own (on PostgreSQL, parallel test files must not share one). */
async function harness(store?: Store): Promise<Harness> {
  const s = store ?? (await openTestStore());
  const schema = `jq_${process.pid}_${randomBytes(4).toString('hex')}`;
  const h: Harness = {
    store: s,
    schema,
    queues: [],
    queue(opts) {
      const q = createJobQueue({ store: s, logger, schema, retryDelaySeconds: 0, retryBackoff: false, ...opts });
      h.queues.push(q);
      return q;
    },
    async close() {
      for (const q of h.queues) await q.stop({ graceful: false });
      if (s.kind === 'postgres') await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(s.db);
      await s.close();
    },
  };
  return h;
}

/**
 * Two processes' worth of one job queue on PostgreSQL: two stores (pools) on one application schema, a queue
 * instance on each sharing one pg-boss schema. `run` gets both; everything is dropped and closed after it.
 */
async function twoInstances(
  queues: JobQueueOptions['queues'],
  run: (p: { storeA: Store; storeB: Store; a: JobQueue; b: JobQueue }) => Promise<void>,
): Promise<void> {
  const appSchema = `jq2_${process.pid}_${randomBytes(4).toString('hex')}`;
  const open = () => openStore({ databaseUrl: DATABASE_URL, dataDir: null, schema: appSchema, migrate: false, poolSize: 4 });
  const storeA = await open();
  const storeB = await open();
  const h = await harness(storeA);
  try {
    const mk = (store: Store) => createJobQueue({ store, logger, schema: h.schema, queues });
    const a = mk(storeA);
    const b = mk(storeB);
    h.queues.push(a, b);
    await run({ storeA, storeB, a, b });
  } finally {
    await h.close();
    await sql`drop schema if exists ${sql.id(appSchema)} cascade`.execute(storeB.db);
    await storeB.close();
  }
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function probeTable(db: Kysely<unknown>) {
  await sql`create table jq_probe (id text primary key)`.execute(db);
}

test('a job sent in a committed transaction is handled, and its row is there when it runs', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    await probeTable(h.store.db as Kysely<unknown>);
    const q = h.queue({ queues: { probe: {} } });
    const seen: { data: { id: string }; rowThere: boolean; job: JobInfo }[] = [];
    await q.work<{ id: string }>('probe', FAST, async (data, job) => {
      const row = await sql<{ id: string }>`select id from jq_probe where id = ${data.id}`.execute(h.store.db);
      seen.push({ data, rowThere: row.rows.length === 1, job });
    });
    await q.start();
    let jobId: string | null = null;
    await h.store.db.transaction().execute(async (trx) => {
      await sql`insert into jq_probe (id) values ('r1')`.execute(trx);
      jobId = await q.send('probe', { id: 'r1' }, { trx });
    });
    assert.ok(jobId);
    await waitFor('the job', () => seen.length === 1);
    assert.deepEqual(seen[0]!.data, { id: 'r1' });
    assert.equal(seen[0]!.rowThere, true);
    assert.equal(seen[0]!.job.id, jobId);
    assert.equal(seen[0]!.job.attempt, 1);
    await waitFor('completion', async () => (await q.stats()).queues.probe!.completed === 1);
  } finally {
    await h.close();
  }
});

test('a job sent in a rolled-back transaction never runs (nor does its row exist)', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    await probeTable(h.store.db as Kysely<unknown>);
    const q = h.queue({ queues: { probe: {} } });
    const seen: string[] = [];
    await q.work<{ id: string }>('probe', FAST, async (data) => {
      seen.push(data.id);
    });
    await q.start();
    await assert.rejects(
      h.store.db.transaction().execute(async (trx) => {
        await sql`insert into jq_probe (id) values ('lost')`.execute(trx);
        assert.ok(await q.send('probe', { id: 'lost' }, { trx }));
        throw new Error('the command failed after sending');
      }),
      /the command failed/,
    );
    // A job sent afterwards is handled: the worker ran after the rollback and did not see the lost one.
    await q.send('probe', { id: 'marker' });
    await waitFor('the marker job', () => seen.includes('marker'));
    await sleep(600); // one more poll
    assert.deepEqual(seen, ['marker']);
    const stats = await q.stats();
    assert.equal(stats.total.created + stats.total.retry + stats.total.active + stats.total.completed, 1);
    const rows = await sql`select id from jq_probe`.execute(h.store.db);
    assert.equal(rows.rows.length, 0);
  } finally {
    await h.close();
  }
});

test('a throwing handler is retried retryLimit times, then the job is failed', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { flaky: { retryLimit: 2 } } });
    const attempts: Record<string, number[]> = { always: [], once: [] };
    await q.work<{ kind: 'always' | 'once' }>('flaky', FAST, async (data, job) => {
      attempts[data.kind]!.push(job.attempt);
      if (data.kind === 'always' || job.attempt === 1) throw new Error(`airline said no (${data.kind})`);
    });
    await q.start();
    await q.send('flaky', { kind: 'always' });
    await q.send('flaky', { kind: 'once' });
    await waitFor('both jobs to settle', async () => {
      const s = (await q.stats()).queues.flaky!;
      return s.failed === 1 && s.completed === 1;
    });
    assert.deepEqual(attempts.always, [1, 2, 3], 'first run + retryLimit (2) retries');
    assert.deepEqual(attempts.once, [1, 2]);
    await sleep(600);
    assert.equal(attempts.always.length, 3, 'no run after the last retry');
    // A per-send retryLimit overrides the queue's.
    await q.send('flaky', { kind: 'always' }, { retryLimit: 0 });
    await waitFor('the second failure', async () => (await q.stats()).queues.flaky!.failed === 2);
    assert.equal(attempts.always.length, 4);
  } finally {
    await h.close();
  }
});

test('startAfterSeconds delays a job', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { later: {} } });
    const ranAt: number[] = [];
    await q.work('later', FAST, async () => {
      ranAt.push(Date.now());
    });
    await q.start();
    const sentAt = Date.now();
    await q.send('later', { n: 1 }, { startAfterSeconds: 2 });
    await sleep(1200);
    assert.equal(ranAt.length, 0, 'not before its time');
    await waitFor('the delayed job', () => ranAt.length === 1, 10_000);
    assert.ok(ranAt[0]! - sentAt >= 1900, `ran ${ranAt[0]! - sentAt} ms after sending`);
  } finally {
    await h.close();
  }
});

test('singletonKey: a short queue keeps one waiting job per key; misuse is refused', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { dedupe: { policy: 'short' }, plain: {} } });
    await q.start();
    const first = await q.send('dedupe', { n: 1 }, { singletonKey: 'refund-1' });
    const again = await q.send('dedupe', { n: 2 }, { singletonKey: 'refund-1' });
    const other = await q.send('dedupe', { n: 3 }, { singletonKey: 'refund-2' });
    assert.ok(first);
    assert.equal(again, null, 'same key while the first waits: dropped');
    assert.ok(other);
    // Also inside a transaction.
    await h.store.db.transaction().execute(async (trx) => {
      assert.equal(await q.send('dedupe', { n: 4 }, { singletonKey: 'refund-2', trx }), null);
    });
    await assert.rejects(q.send('dedupe', { n: 5 }), /needs a singletonKey/);
    await assert.rejects(q.send('plain', { n: 6 }, { singletonKey: 'x' }), /policy 'short'/);
    await assert.rejects(q.send('nowhere', { n: 7 }), UnknownQueueError);

    const seen: number[] = [];
    await q.work<{ n: number }>('dedupe', { ...FAST, batchSize: 10 }, async (data) => {
      seen.push(data.n);
    });
    await waitFor('the two jobs', () => seen.length === 2);
    assert.deepEqual(seen.sort(), [1, 3]);
    // Once handled, the key is free again.
    await waitFor('completion', async () => (await q.stats()).queues.dedupe!.completed === 2);
    assert.ok(await q.send('dedupe', { n: 8 }, { singletonKey: 'refund-1' }));
    await waitFor('the new job', () => seen.includes(8));
  } finally {
    await h.close();
  }
});

test('restart recovery: a job left active by a dead process is handled by the next one', { timeout: 40_000 }, async () => {
  const h = await harness();
  try {
    // On PostgreSQL recovery is pg-boss's expiry: make it quick. On PGlite the next start() recovers at once.
    const decl = { crashy: DATABASE_URL ? { expireInSeconds: 1 } : {} };
    const extra = DATABASE_URL ? { maintenanceIntervalSeconds: 1 } : {};
    const first = h.queue({ queues: decl, ...extra });
    await first.start();
    const id = await first.send('crashy', { refund: 'R1' });
    // The "process" fetches the job and dies before completing it (as after kill -9): the row stays active.
    const raw = new PgBoss({ db: storeExecutor(h.store.db), schema: h.schema, schedule: false, supervise: false });
    const fetched = await raw.fetch('crashy');
    assert.equal(fetched[0]?.id, id);
    await first.stop();
    assert.equal((await first.stats()).queues.crashy!.active, 1);

    const second = h.queue({ queues: decl, ...extra });
    const seen: JobInfo[] = [];
    await second.work('crashy', FAST, async (_data, job) => {
      seen.push(job);
    });
    await second.start();
    await waitFor('the recovered job', () => seen.length === 1, 20_000);
    assert.equal(seen[0]!.id, id);
    assert.equal(seen[0]!.attempt, 2, 'the interrupted run counts as an attempt');
  } finally {
    await h.close();
  }
});

test('stop without waiting: the running handler is aborted and its job runs again in the next queue', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const first = h.queue({ queues: { slow: {} } });
    let aborted = false;
    let started = false;
    await first.work('slow', FAST, async (_data, job) => {
      started = true;
      await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
      aborted = true;
    });
    await first.start();
    await first.send('slow', { n: 1 });
    await waitFor('the handler to start', () => started);
    await first.stop({ graceful: false });
    assert.equal(aborted, true);
    const s = (await first.stats()).queues.slow!;
    assert.equal(s.retry, 1, 'failed into a retry, not left active');

    const second = h.queue({ queues: { slow: {} } });
    const seen: number[] = [];
    await second.work('slow', FAST, async (_data, job) => {
      seen.push(job.attempt);
    });
    await second.start();
    await waitFor('the retried job', () => seen.length === 1);
    assert.deepEqual(seen, [2]);
  } finally {
    await h.close();
  }
});

test('graceful stop waits for running handlers; a handler may send follow-up jobs in its own transaction', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { step1: {}, step2: {} } });
    const done: string[] = [];
    await q.work<{ ref: string }>('step1', FAST, async (data) => {
      await h.store.db.transaction().execute(async (trx) => {
        await q.send('step2', { ref: data.ref }, { trx });
      });
      done.push(`1:${data.ref}`);
    });
    await q.work<{ ref: string }>('step2', FAST, async (data) => {
      await sleep(300);
      done.push(`2:${data.ref}`);
    });
    await q.start();
    await q.send('step1', { ref: 'a' });
    await waitFor('step 2 to start', async () => (await q.stats()).queues.step2!.active === 1);
    await q.stop();
    assert.deepEqual(done, ['1:a', '2:a']);
    const s = await q.stats();
    assert.equal(s.queues.step2!.completed, 1);
    assert.equal(s.total.active, 0);
  } finally {
    await h.close();
  }
});

test('two queue instances on one PostgreSQL schema: 200 jobs, each handled exactly once', { timeout: 60_000, skip: !DATABASE_URL && 'PostgreSQL only (DATABASE_URL): embedded PGlite is one process with one connection' }, async () => {
  await twoInstances({ many: { retryLimit: 0 } }, async ({ storeA, storeB, a, b }) => {
    await sql`create table handled (id int primary key, by text not null)`.execute(storeA.db);
    let duplicates = 0;
    const handler = (store: Store, by: string) => async (data: { n: number }) => {
      await sleep(2);
      try {
        await sql`insert into handled (id, by) values (${data.n}, ${by})`.execute(store.db);
      } catch (err) {
        if (isUniqueViolation(err)) duplicates++;
        throw err;
      }
    };
    await a.work('many', { batchSize: 5, pollingIntervalSeconds: 0.5 }, handler(storeA, 'a'));
    await b.work('many', { batchSize: 5, pollingIntervalSeconds: 0.5 }, handler(storeB, 'b'));
    await a.start();
    await b.start();
    for (let n = 0; n < 200; n++) await (n % 2 ? a : b).send('many', { n });
    await waitFor('200 completions', async () => (await a.stats()).queues.many!.completed === 200, 40_000);
    const rows = await sql<{ by: string; n: number }>`select by, count(*)::int as n from handled group by by`.execute(storeA.db);
    const byWorker = Object.fromEntries(rows.rows.map((r) => [r.by, r.n]));
    assert.equal((byWorker.a ?? 0) + (byWorker.b ?? 0), 200);
    assert.equal(duplicates, 0);
    assert.ok((byWorker.a ?? 0) > 0 && (byWorker.b ?? 0) > 0, `both instances worked: ${JSON.stringify(byWorker)}`);
    const s = await b.stats();
    assert.equal(s.queues.many!.failed, 0);
  });
});

test('stats() counts per queue and state; configuration mistakes are refused early', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    assert.throws(() => h.queue({ queues: { 'bad name!': {} } }), /job queue name/);
    assert.throws(() => h.queue({ queues: { ok: { retryLimit: -1 } } }), /retryLimit/);
    assert.throws(() => createJobQueue({ store: h.store, logger, schema: 'x; drop table y', queues: {} }), /plain identifier/);
    assert.throws(() => createJobQueue({ store: h.store, kind: h.store.kind === 'pglite' ? 'postgres' : 'pglite', logger, queues: {} }), /kind/);
    const q = h.queue({ queues: { a: {}, b: {} } });
    await assert.rejects(q.send('a', { n: 1 }), /before start/);
    await q.start();
    await q.send('a', { n: 1 });
    await q.send('a', { n: 2 }, { startAfterSeconds: 60 });
    const s = await q.stats();
    assert.deepEqual(s.queues.a, { created: 2, retry: 0, active: 0, completed: 0, cancelled: 0, failed: 0 });
    assert.deepEqual(s.queues.b, { created: 0, retry: 0, active: 0, completed: 0, cancelled: 0, failed: 0 });
    assert.equal(s.total.created, 2);
  } finally {
    await h.close();
  }
});

test('expiry: a job whose worker vanished is retried once expireInSeconds has passed (pg-boss maintenance, both stores)', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { crashy: { expireInSeconds: 1 } }, recoverActiveOnStart: false, maintenanceIntervalSeconds: 1 });
    await q.start();
    const id = await q.send('crashy', { refund: 'R2' });
    const raw = new PgBoss({ db: storeExecutor(h.store.db), schema: h.schema, schedule: false, supervise: false });
    assert.equal((await raw.fetch('crashy'))[0]?.id, id);
    const seen: JobInfo[] = [];
    await q.work('crashy', FAST, async (_data, job) => {
      seen.push(job);
    });
    await waitFor('the expired job to run again', () => seen.length === 1, 20_000);
    assert.equal(seen[0]!.id, id);
    assert.equal(seen[0]!.attempt, 2);
  } finally {
    await h.close();
  }
});

test('a failing multi-statement script (pg-boss maintenance style) leaves the connection usable', { timeout: 30_000 }, async () => {
  const store = await openTestStore();
  try {
    const exec = storeExecutor(store.db);
    await assert.rejects(exec.executeSql('BEGIN; SELECT 1; SELECT 1/0; COMMIT;'), /division by zero/);
    // Without the rollback the connection would stay in an aborted transaction (PGlite has only that one).
    for (let i = 0; i < 5; i++) assert.deepEqual((await sql<{ x: number }>`select 1 as x`.execute(store.db)).rows, [{ x: 1 }]);
    await exec.drain();
  } finally {
    await store.close();
  }
});

test('pg-boss coupling: schema version 24, and its fetch reads our index instead of sorting every waiting job', { timeout: 30_000 }, async () => {
  // Fails when an upgrade of pg-boss changes its schema or its fetch order: then re-check stats() and the
  // restart recovery (they read <schema>.job's name, id and state) and the fetch index (queue.ts).
  const h = await harness();
  try {
    const q = h.queue({ queues: { a: {} } });
    await q.start();
    const raw = new PgBoss({ db: storeExecutor(h.store.db), schema: h.schema, schedule: false, supervise: false });
    assert.equal(await raw.schemaVersion(), 24);
    const plans = createRequire(import.meta.url)('pg-boss/src/plans.js') as { fetchNextJob(schema: string): (o: object) => string };
    const fetchSql = plans.fetchNextJob(h.schema)({ includeMetadata: true }).replaceAll('$1', "'a'").replaceAll('$2', '20');
    const plan = await h.store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_sort = off`.execute(trx);
      return (await sql.raw<Record<string, string>>(`explain ${fetchSql}`).execute(trx)).rows.map((r) => Object.values(r)[0]).join('\n');
    });
    assert.match(plan, /_name_priority_created_on_id_idx/, plan);
    assert.doesNotMatch(plan, /Sort Key: [^\n]*priority/, plan); // (the window over the fetched batch still sorts: a few rows)
    const idx = await sql<{ n: number }>`select count(*)::int as n from pg_indexes where schemaname = ${h.schema} and indexname = ${FETCH_INDEX}`.execute(h.store.db);
    assert.equal(idx.rows[0]!.n, 1);
  } finally {
    await h.close();
  }
});

test('insertSql writes the row send() writes (every column but id and times), in the caller\'s statement', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({
      queues: { plain: {}, keyed: { policy: 'short', retryLimit: 3, retryDelaySeconds: 7, retryBackoff: true, expireInSeconds: 90 } },
      expireInSeconds: 45,
    });
    await q.start();
    const cols = sql`name, data, priority, state, retry_limit, retry_count, retry_delay, retry_backoff, singleton_key, singleton_on, expire_in::text as expire_in,
      dead_letter, policy, round(extract(epoch from start_after - created_on)) as start_delay, round(extract(epoch from keep_until - start_after)) as keep_for`;
    const rowOf = async (id: string) =>
      (await sql<Record<string, unknown>>`select ${cols} from ${sql.table(`${h.schema}.job`)} where id = ${id}::uuid`.execute(h.store.db)).rows[0];
    for (const [name, opts] of [
      ['plain', {}],
      ['plain', { startAfterSeconds: 30 }],
      ['keyed', { singletonKey: 'k-1' }],
    ] as const) {
      const viaSend = await q.send(name, { n: 1 }, opts.startAfterSeconds ? { startAfterSeconds: opts.startAfterSeconds } : 'singletonKey' in opts ? { singletonKey: 'k-send' } : {});
      const viaSql = (await sql<{ id: string }>`with job as (${q.insertSql(name, { n: 1 }, opts)}) select id from job`.execute(h.store.db)).rows[0]?.id;
      assert.ok(viaSend && viaSql);
      const a = await rowOf(viaSend);
      const b = await rowOf(viaSql);
      if ('singletonKey' in opts) {
        assert.equal(a!.singleton_key, 'k-send');
        a!.singleton_key = 'k-1';
      }
      assert.deepEqual(b, a, `${name} ${JSON.stringify(opts)}`);
    }
    // short policy: a key that already waits writes nothing
    const again = await sql<{ id: string }>`with job as (${q.insertSql('keyed', { n: 2 }, { singletonKey: 'k-1' })}) select id from job`.execute(h.store.db);
    assert.equal(again.rows.length, 0);
    // onlyIf false: nothing written
    const none = await sql<{ id: string }>`with job as (${q.insertSql('plain', { n: 3 }, { onlyIf: sql`false` })}) select id from job`.execute(h.store.db);
    assert.equal(none.rows.length, 0);
    // many at once: the rows send() would write, one per source row
    const many = await sql<{ id: string }>`with job as (${q.insertManySql('keyed', sql`select jsonb_build_object('n', g) as data, 'm-' || g as singleton_key from generate_series(1, 3) g`)}) select id from job`.execute(h.store.db);
    assert.equal(many.rows.length, 3);
    const m1 = await rowOf(many.rows[0]!.id);
    const k1 = await rowOf((await sql<{ id: string }>`select id::text from ${sql.table(`${h.schema}.job`)} where singleton_key = 'k-1'`.execute(h.store.db)).rows[0]!.id);
    assert.deepEqual({ ...m1, data: null, singleton_key: null }, { ...k1, data: null, singleton_key: null });
    assert.throws(() => q.insertSql('keyed', { n: 1 }), /needs a singletonKey/);
    assert.throws(() => q.insertSql('nope', { n: 1 }), UnknownQueueError);
  } finally {
    await h.close();
  }
});

test('workBatch: one call per fetched batch; a job whose entry is an error is retried, the others completed', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { b: { retryLimit: 2 } } });
    const calls: number[][] = [];
    let failedOnce = false;
    await q.workBatch<{ n: number }>('b', { batchSize: 10, pollingIntervalSeconds: 0.1 }, async (jobs) => {
      calls.push(jobs.map((j) => j.data.n));
      assert.ok(jobs.every((j) => j.job.signal === jobs[0]!.job.signal), 'one signal for the batch');
      return jobs.map((j) => {
        if (j.data.n === 3 && !failedOnce) {
          failedOnce = true;
          return new Error('try n=3 again');
        }
        return undefined;
      });
    });
    await q.start();
    await h.store.db.transaction().execute(async (trx) => {
      for (let n = 1; n <= 5; n++) await q.send('b', { n }, { trx });
    });
    await waitFor('all completed', async () => (await q.stats()).queues.b!.completed === 5);
    assert.deepEqual(calls[0]!.sort(), [1, 2, 3, 4, 5], 'the five jobs came in one call');
    assert.deepEqual(calls.slice(1).flat(), [3], 'only the failed one ran again');
    const s = (await q.stats()).queues.b!;
    assert.equal(s.failed + s.retry + s.created + s.active, 0);
  } finally {
    await h.close();
  }
});

test('lanes: a backlog is worked by up to `lanes` batches at once, each job exactly once; an idle queue by one fetch at a time', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { lanes: {} } });
    const handled: number[] = [];
    let inFlight = 0;
    let most = 0;
    await q.workBatch<{ n: number }>('lanes', { batchSize: 5, pollingIntervalSeconds: 0.1, lanes: 3 }, async (jobs) => {
      most = Math.max(most, ++inFlight);
      await sleep(100);
      handled.push(...jobs.map((j) => j.data.n));
      inFlight--;
      return jobs.map(() => undefined);
    });
    await q.start();
    // One commit: the forty jobs appear at once.
    await h.store.db.transaction().execute(async (trx) => {
      for (let n = 1; n <= 40; n++) await q.send('lanes', { n }, { trx });
    });
    await waitFor('all 40 completed', async () => (await q.stats()).queues.lanes!.completed === 40);
    assert.equal(most, 3, 'three batches ran side by side while the backlog lasted');
    assert.deepEqual([...handled].sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1), 'each job handled once');

    // Drained: jobs arriving one by one are fetched by the first lane alone (short batches never call the others).
    most = 0;
    for (let n = 41; n <= 43; n++) {
      await q.send('lanes', { n });
      await waitFor(`job ${n}`, () => handled.includes(n));
    }
    assert.equal(most, 1);
    await q.stop();
    assert.equal((await q.stats()).total.active, 0);
  } finally {
    await h.close();
  }
});

test('embedded store: an idle worker sleeps until its queue\'s next due job instead of polling; a local send wakes it', { timeout: 30_000, skip: DATABASE_URL !== null && 'PGlite only: on PostgreSQL other processes send jobs too, and idle workers poll' }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { idle: {} } });
    const ran: number[] = [];
    await q.work<{ n: number }>('idle', { pollingIntervalSeconds: 0.1 }, async (data) => {
      ran.push(data.n);
    });
    await q.start();
    await q.send('idle', { n: 1 });
    await waitFor('job 1 (a local send due now)', () => ran.includes(1));
    // A job written behind the queue's back (no local send, no wake): a polling worker would fetch it within
    // its 0.1 s interval; this one sleeps until the maintenance interval (30 s) — nothing is due as far as it knows.
    const raw = new PgBoss({ db: storeExecutor(h.store.db), schema: h.schema, schedule: false, supervise: false });
    await raw.send('idle', { n: 2 });
    await sleep(1000);
    assert.deepEqual(ran, [1], 'ten polling intervals later the unannounced job still waits');
    q.wake('idle');
    await waitFor('job 2 once the worker is told', () => ran.includes(2));
    // A job due later: the worker reads its due time and sleeps until then.
    const sentAt = Date.now();
    await q.send('idle', { n: 3 }, { startAfterSeconds: 1 });
    await waitFor('job 3 at its time', () => ran.includes(3));
    const after = Date.now() - sentAt;
    assert.ok(after >= 950 && after < 5000, `job 3 ran ${after} ms after it was sent`);
    // Another queue object of this process on the same store and schema (the bench's refund workers beside the
    // service's): its sends wake these workers too.
    const other = h.queue({ queues: { idle: {} } });
    await other.start();
    await other.send('idle', { n: 4 });
    await waitFor('job 4, sent by the other queue object', () => ran.includes(4), 5_000);
  } finally {
    await h.close();
  }
});

test('lanes: out of range is refused', { timeout: 30_000 }, async () => {
  const h = await harness();
  try {
    const q = h.queue({ queues: { l: {} } });
    await assert.rejects(q.work('l', { lanes: 0 }, async () => undefined), /lanes must be an integer from 1 to 16/);
    await assert.rejects(q.work('l', { lanes: 1.5 }, async () => undefined), /lanes must be an integer from 1 to 16/);
  } finally {
    await h.close();
  }
});

test('stately: one job of a key runs at a time across two queue instances, the next waiting', { timeout: 60_000, skip: !DATABASE_URL && 'PostgreSQL only (DATABASE_URL): embedded PGlite is one process with one connection' }, async () => {
  await twoInstances({ sweep: { policy: 'stately' } }, async ({ a, b }) => {
    let running = 0;
    let most = 0;
    let runs = 0;
    const limits: number[] = [];
    // As the refund sweep: each run queues its successor, and the other process queues one too meanwhile.
    const handler = (self: JobQueue, other: JobQueue) => async (_data: unknown, job: JobInfo) => {
      running++;
      most = Math.max(most, running);
      limits.push(job.expireInSeconds);
      await other.send('sweep', {}, { singletonKey: 'sweep' });
      await sleep(400);
      running--;
      runs++;
      await self.send('sweep', {}, { singletonKey: 'sweep' });
    };
    await a.work('sweep', { pollingIntervalSeconds: 0.1 }, handler(a, b));
    await b.work('sweep', { pollingIntervalSeconds: 0.1 }, handler(b, a));
    await a.start();
    await b.start();
    await a.send('sweep', {}, { singletonKey: 'sweep' });
    await waitFor('ten runs', () => runs >= 10, 40_000);
    assert.equal(most, 1, 'never two at once');
    assert.ok(limits.every((s) => s === 60), `the attempts' time limit: ${limits.join(',')}`);
    const s = await a.stats();
    assert.equal(s.queues.sweep!.failed, 0);
    await assert.rejects(a.send('sweep', {}), /needs a singletonKey/);
  });
});
