// Several processes starting at once on a fresh PostgreSQL database create pg-boss's schema, its queue
// partitions and our fetch index together, which can deadlock; start() tries the (idempotent) declarations
// again after one (decision 0028). Here: independent stores (separate connection pools, as separate processes
// have) start job queues on one new schema at the same moment, several rounds; every start must succeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { openStore, type Store } from '../store/store.js';
import { testLogger } from '../test-support/app.js';
import { createJobQueue, type JobLogger, type JobQueue } from './queue.js';

const DATABASE_URL = process.env.DATABASE_URL;
const QUEUES = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`q${i}`, { policy: 'short' as const }]));

test('job queues of four processes starting together on a fresh schema all start', { skip: DATABASE_URL ? false : 'PostgreSQL only: the embedded store is one process', timeout: 180_000 }, async (ctx) => {
  const stores: Store[] = [];
  for (let i = 0; i < 4; i++) stores.push(await openStore({ databaseUrl: DATABASE_URL!, dataDir: null }));
  const warnings: string[] = [];
  const base = testLogger();
  const logger: JobLogger = {
    debug: base.debug.bind(base),
    info: base.info.bind(base),
    error: base.error.bind(base),
    warn: (obj: object, msg?: string) => {
      warnings.push(String(msg));
      base.warn(obj, msg);
    },
  };
  try {
    for (let round = 0; round < 3; round++) {
      const schema = `jq_start_${process.pid}_${randomBytes(3).toString('hex')}`;
      const queues: JobQueue[] = stores.map((store) => createJobQueue({ store, logger, schema, queues: QUEUES }));
      try {
        const results = await Promise.allSettled(queues.map((q) => q.start()));
        const failed = results.filter((r) => r.status === 'rejected').map((r) => String(r.reason));
        assert.deepEqual(failed, [], `round ${round}`);
        assert.ok(queues.every((q) => q.running));
      } finally {
        for (const q of queues) await q.stop({ graceful: false });
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(stores[0]!.db);
      }
    }
    ctx.diagnostic(`declarations retried after a deadlock: ${warnings.filter((w) => w.includes('deadlock')).length}`);
  } finally {
    for (const s of stores) await s.close();
  }
});
