// Prints the job queue's throughput on the store in use (2000 tiny jobs). A measurement, not a check: it is
// skipped unless JOBS_THROUGHPUT=1, and asserts nothing about speed (docs/architecture.md "Performance targets": never timed tests).
import { test } from 'node:test';
import { openTestStore } from '../test-support/app.js';
import { measureQueueThroughput } from './throughput.js';

test('job queue throughput (prints jobs/s)', { timeout: 300_000, skip: !process.env.JOBS_THROUGHPUT && 'set JOBS_THROUGHPUT=1 to measure' }, async () => {
  const store = await openTestStore();
  try {
    for (const batchSize of [1, 20]) {
      const r = await measureQueueThroughput(store, { jobs: 2000, batchSize });
      console.log(`# job queue on ${store.kind}: ${JSON.stringify(r)}`);
    }
  } finally {
    await store.close();
  }
});
