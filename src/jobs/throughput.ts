// The job queue's own throughput on a store: tiny jobs sent one by one then drained (measureQueueThroughput),
// or inserted at once then drained by a worker with given options (measureQueueDrain: the bench compares the
// refund backlog's rate to status 1 with it, docs/architecture.md "Performance targets").
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../store/store.js';
import { createJobQueue, type JobLogger, type QueueDeclaration } from './queue.js';

export interface ThroughputResult {
  jobs: number;
  batchSize: number;
  /** send() calls per second, each its own statement (no worker running). */
  sendPerSecond: number;
  /** Jobs per second from the worker's start until the last one is completed. */
  workPerSecond: number;
  /** Jobs per second over both phases. */
  overallPerSecond: number;
  /** Jobs per second with the worker running while the jobs are sent (first send to last completion). */
  concurrentPerSecond: number;
}

const silent: JobLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export async function measureQueueThroughput(store: Store, opts: { jobs?: number; batchSize?: number; logger?: JobLogger } = {}): Promise<ThroughputResult> {
  const jobs = opts.jobs ?? 2000;
  const batchSize = opts.batchSize ?? 20;
  const schema = `jq_bench_${randomBytes(4).toString('hex')}`;
  const logger = opts.logger ?? silent;
  try {
    // Phase 1 and 2: send everything, then drain.
    const q1 = createJobQueue({ store, logger, schema, queues: { bench: {} } });
    let handled = 0;
    let allHandled: () => void = () => undefined;
    const drained = new Promise<void>((resolve) => (allHandled = resolve));
    await q1.work('bench', { batchSize, pollingIntervalSeconds: 0.05 }, async () => {
      if (++handled === jobs) allHandled();
    });
    const q0 = createJobQueue({ store, logger, schema, queues: { bench: {} } });
    await q0.start();
    const t0 = performance.now();
    for (let i = 0; i < jobs; i++) await q0.send('bench', { i });
    const t1 = performance.now();
    await q0.stop();
    const t1w = performance.now();
    await q1.start();
    await drained;
    await q1.stop(); // the last batch's completion is written before stop() returns
    const t2 = performance.now();

    // Phase 3: worker running while sending.
    const q2 = createJobQueue({ store, logger, schema, queues: { bench2: {} } });
    let handled2 = 0;
    let allHandled2: () => void = () => undefined;
    const drained2 = new Promise<void>((resolve) => (allHandled2 = resolve));
    await q2.work('bench2', { batchSize, pollingIntervalSeconds: 0.05 }, async () => {
      if (++handled2 === jobs) allHandled2();
    });
    await q2.start();
    const t3 = performance.now();
    for (let i = 0; i < jobs; i++) await q2.send('bench2', { i });
    await drained2;
    await q2.stop();
    const t4 = performance.now();

    const perSecond = (n: number, ms: number) => Math.round((n * 1000) / ms);
    return {
      jobs,
      batchSize,
      sendPerSecond: perSecond(jobs, t1 - t0),
      workPerSecond: perSecond(jobs, t2 - t1w),
      overallPerSecond: perSecond(jobs, t2 - t0),
      concurrentPerSecond: perSecond(jobs, t4 - t3),
    };
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
  }
}

export interface DrainResult {
  jobs: number;
  seconds: number;
  perSecond: number;
}

/**
 * The queue's own drain rate: `jobs` no-op jobs inserted at once (not counted), then one worker with the
 * given options (those of the worker being compared) registered and timed until the last job is completed.
 */
export async function measureQueueDrain(
  store: Store,
  opts: { jobs: number; batchSize: number; pollingIntervalSeconds: number; lanes?: number; declaration?: QueueDeclaration; logger?: JobLogger },
): Promise<DrainResult> {
  const schema = `jq_bench_${randomBytes(4).toString('hex')}`;
  const logger = opts.logger ?? silent;
  const declaration = opts.declaration ?? {};
  const short = declaration.policy === 'short';
  try {
    const q = createJobQueue({ store, logger, schema, queues: { noop: declaration } });
    await q.start();
    for (let from = 1; from <= opts.jobs; from += 10_000) {
      const to = Math.min(opts.jobs, from + 9_999);
      const rows = sql`select jsonb_build_object('i', g) as data, ${short ? sql`'noop-' || g` : sql`null::text`} as singleton_key from generate_series(${from}::int, ${to}::int) g`;
      await sql`with job as (${q.insertManySql('noop', rows)}) select count(*) from job`.execute(store.db);
    }
    let handled = 0;
    let allHandled: () => void = () => undefined;
    const drained = new Promise<void>((resolve) => (allHandled = resolve));
    // Timed from the worker's start (the queue is started already: the worker polls at once).
    const t0 = performance.now();
    await q.work('noop', { batchSize: opts.batchSize, pollingIntervalSeconds: opts.pollingIntervalSeconds, lanes: opts.lanes ?? 1 }, async () => {
      if (++handled === opts.jobs) allHandled();
    });
    await drained;
    await q.stop(); // the last batch's completion is written before stop() returns
    const seconds = (performance.now() - t0) / 1000;
    return { jobs: opts.jobs, seconds, perSecond: opts.jobs / seconds };
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
  }
}
