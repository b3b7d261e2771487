// Decision 0017: a new embedded cluster is created in a child process and renamed into place; PostgreSQL
// runs with the configured shared_buffers (16 MB by default). Embedded store only: it runs on PGlite on
// either test run.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openStore, PGLITE_SHARED_BUFFERS_MB } from './store.js';

describe('embedded store memory settings', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-pglite-mem-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('an empty DATA_DIR gets a complete cluster (made in a child process), then reopens with its settings', async () => {
    const first = await openStore({ databaseUrl: null, dataDir: dir, lockWaitMs: 0 });
    try {
      assert.ok(fs.existsSync(path.join(dir, 'pglite', 'PG_VERSION')));
      assert.ok(!fs.existsSync(path.join(dir, 'pglite.initdb')), 'the creation folder is renamed into place');
      const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(first.db);
      assert.equal(rows[0]?.shared_buffers, `${PGLITE_SHARED_BUFFERS_MB}MB`);
      await sql`create table kept (n int)`.execute(first.db);
      await sql`insert into kept values (42)`.execute(first.db);
    } finally {
      await first.close();
    }
    const again = await openStore({ databaseUrl: null, dataDir: dir, lockWaitMs: 0, sharedBuffersMb: 32 });
    try {
      const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(again.db);
      assert.equal(rows[0]?.shared_buffers, '32MB');
      const kept = await sql<{ n: number }>`select n from kept`.execute(again.db);
      assert.deepEqual(kept.rows, [{ n: 42 }]);
    } finally {
      await again.close();
    }
  });
});
