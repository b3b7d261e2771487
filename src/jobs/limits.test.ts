// The job queue limits of the configuration (JOB_RETRY_LIMIT, JOB_RETRY_DELAY_SECONDS, JOB_RETRY_BACKOFF,
// JOB_EXPIRE_SECONDS; decision 0028) reach every queue of the service's one job queue: refunds, voids, order
// expiry and the idempotency cleanup. A queue that declares its own limit (the void submission's 10 retries,
// docs/voids.md) keeps it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { makeTestApp } from '../test-support/app.js';
import { JOB_POLL, JOB_SUBMIT } from '../refunds/lifecycle.js';
import { JOB_VOID_POLL, JOB_VOID_SUBMIT } from '../voids/lifecycle.js';
import { JOB_EXPIRY_SWEEP, JOB_RELEASE_HOLD } from '../booking/expiry.js';
import { JOB_IDEMPOTENCY_SWEEP } from './idempotency-expiry.js';

interface QueueRow {
  name: string;
  retry_limit: number;
  retry_delay: number;
  retry_backoff: boolean;
  expire_seconds: number;
}

async function queuesOf(env: NodeJS.ProcessEnv) {
  const t = await makeTestApp({ env });
  try {
    const { rows } = await sql<QueueRow>`select name, retry_limit, retry_delay, retry_backoff, expire_seconds from ${sql.table(`${t.workers.queue.schema}.queue`)}`.execute(t.store.db);
    const byName = new Map(rows.map((r) => [r.name, { retryLimit: Number(r.retry_limit), retryDelay: Number(r.retry_delay), backoff: r.retry_backoff, expire: Number(r.expire_seconds) }]));
    // and a job sent now carries them
    const id = await t.workers.queue.send(JOB_IDEMPOTENCY_SWEEP, {}, { singletonKey: 'limits-test', startAfterSeconds: 3600 });
    const job = await sql<{ retry_limit: number; retry_delay: number; retry_backoff: boolean; expire_in: string }>`
      select retry_limit, retry_delay, retry_backoff, extract(epoch from expire_in)::text as expire_in from ${sql.table(`${t.workers.queue.schema}.job`)} where id = ${id}::uuid`.execute(t.store.db);
    return { byName, job: job.rows[0]! };
  } finally {
    await t.close();
  }
}

test('the configured limits reach every queue and the jobs sent to it', async () => {
  const { byName, job } = await queuesOf({ JOB_RETRY_LIMIT: '7', JOB_RETRY_DELAY_SECONDS: '11', JOB_RETRY_BACKOFF: 'false', JOB_EXPIRE_SECONDS: '45' });
  for (const name of [JOB_SUBMIT, JOB_POLL, JOB_VOID_POLL, JOB_EXPIRY_SWEEP, JOB_RELEASE_HOLD, JOB_IDEMPOTENCY_SWEEP]) {
    assert.deepEqual(byName.get(name), { retryLimit: 7, retryDelay: 11, backoff: false, expire: 45 }, name);
  }
  // the void submission's retries are part of the void contract (docs/voids.md: rejected after 11 tries)
  assert.deepEqual(byName.get(JOB_VOID_SUBMIT), { retryLimit: 10, retryDelay: 5, backoff: true, expire: 45 });
  assert.deepEqual({ ...job, retry_limit: Number(job.retry_limit), retry_delay: Number(job.retry_delay), expire_in: Number(job.expire_in) }, { retry_limit: 7, retry_delay: 11, retry_backoff: false, expire_in: 45 });
});

test('without configuration: the documented defaults (5 retries, 5 s with backoff, 60 s per attempt)', async () => {
  const { byName } = await queuesOf({});
  assert.deepEqual(byName.get(JOB_SUBMIT), { retryLimit: 5, retryDelay: 5, backoff: true, expire: 60 });
  assert.deepEqual(byName.get(JOB_IDEMPOTENCY_SWEEP), { retryLimit: 5, retryDelay: 5, backoff: true, expire: 60 });
});
