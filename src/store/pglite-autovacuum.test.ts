// Decision 0032: the embedded store vacuums and analyzes what PostgreSQL's autovacuum would, by PostgreSQL's own
// thresholds. Embedded store only: it runs on PGlite on either test run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Kysely } from 'kysely';
import { openStore, type Store } from './store.js';
import { dueTables, PgliteAutovacuum } from './pglite-autovacuum.js';
import type { Database } from './schema.js';
import { waitFor } from '../test-support/wait.js';
import { Metrics } from '../http/metrics.js';
import { systemClock } from '../clock.js';

type Counts = { n_dead_tup: number; n_live_tup: number; analyzed: boolean; vacuumed: boolean };

async function counts(db: Kysely<Database>, table: string): Promise<Counts> {
  const { rows } = await sql<Counts>`
    select n_dead_tup, n_live_tup, last_analyze is not null as analyzed, last_vacuum is not null as vacuumed
    from pg_stat_user_tables where relname = ${table}`.execute(db);
  return rows[0]!;
}

/** PostgreSQL publishes a backend's table counts at most once a second, when it goes idle. */
async function countsPublished(db: Kysely<Database>, table: string, ready: (c: Counts) => boolean): Promise<Counts> {
  return waitFor(`the counts of ${table}`, async () => {
    await sql`select 1`.execute(db);
    const c = await counts(db, table);
    return ready(c) ? c : null;
  });
}

describe('embedded store autovacuum', () => {
  let store: Store;
  before(async () => {
    store = await openStore({ databaseUrl: null, dataDir: null, migrate: false });
    await sql`create table churn (id int primary key, state int not null)`.execute(store.db);
    await sql`create index churn_state on churn (state)`.execute(store.db);
    await sql`create table quiet (id int primary key)`.execute(store.db);
  });
  after(() => store.close());

  test('a table past the thresholds is vacuumed and analyzed; one below them is left alone', async () => {
    // 2,000 rows, each moved once (a refund's status change): 2,000 dead versions, well past 50 + 0.2 × rows.
    await sql`insert into churn select g, 0 from generate_series(1, 2000) g`.execute(store.db);
    await sql`update churn set state = 1`.execute(store.db);
    // 20 rows: under the insert threshold (1,000) and the analyze threshold (50 changes).
    await sql`insert into quiet select g from generate_series(1, 20) g`.execute(store.db);
    await countsPublished(store.db, 'churn', (c) => c.n_dead_tup >= 2000);
    await countsPublished(store.db, 'quiet', (c) => c.n_live_tup === 20);

    const due = await dueTables(store.db);
    assert.deepEqual(
      due.filter((t) => t.table === 'churn' || t.table === 'quiet'),
      [{ schema: 'public', table: 'churn', vacuum: true }],
    );

    const maintenance = new PgliteAutovacuum(store.db, { intervalMs: 60_000 });
    const done = await maintenance.runOnce();
    assert.ok(done.some((t) => t.table === 'churn' && t.vacuum));
    assert.ok(!done.some((t) => t.table === 'quiet'));
    assert.ok(maintenance.stats.vacuums >= 1);
    assert.equal(maintenance.stats.errors, 0);
    // What /metrics shows of it.
    const metrics = new Metrics({
      sources: {
        db: store.db,
        clock: systemClock,
        jobQueue: { running: false, stats: () => Promise.reject(new Error('not running')) },
        seatMaps: { stats: { answerHits: 0, answerMisses: 0, mapHits: 0, mapMisses: 0, gzipSpliced: 0, gzipTemplatesMade: 0, gzipCompressed: 0 } },
        storeMaintenance: maintenance,
        storeFigures: { enabled: true, maxAgeMs: 0 },
      },
    });
    const text = await metrics.registry.metrics();
    metrics.close();
    assert.match(text, new RegExp(`postbook_store_maintenance_total\\{op="vacuum"\\} ${maintenance.stats.vacuums}\\n`));
    assert.match(text, /postbook_store_maintenance_total\{op="error"\} 0\n/);
    assert.match(text, /postbook_store_maintenance_seconds_total [0-9.e-]+\n/);

    const after = await counts(store.db, 'churn');
    assert.equal(after.n_dead_tup, 0, 'the dead versions are gone');
    assert.ok(after.vacuumed && after.analyzed);
    assert.equal((await counts(store.db, 'quiet')).vacuumed, false);
    // Nothing is due any more: a second round does nothing.
    assert.deepEqual((await maintenance.runOnce()).filter((t) => t.table === 'churn'), []);
  });

  test('many changes but few dead rows (inserts): analyzed, so plans see the rows', async () => {
    await sql`insert into quiet select g from generate_series(21, 200) g`.execute(store.db);
    await countsPublished(store.db, 'quiet', (c) => c.n_live_tup === 200);
    const done = await new PgliteAutovacuum(store.db, { intervalMs: 60_000 }).runOnce();
    assert.deepEqual(
      done.filter((t) => t.table === 'quiet').map((t) => t.vacuum),
      [false],
    );
    const { rows } = await sql<{ reltuples: number }>`select reltuples from pg_class where relname = 'quiet'`.execute(store.db);
    assert.equal(Number(rows[0]!.reltuples), 200);
  });

  test('a store opened with autovacuum looks on its own, and stops when closed', async () => {
    const own = await openStore({ databaseUrl: null, dataDir: null, migrate: false, autovacuum: { intervalSeconds: 1 } });
    try {
      assert.ok(own.maintenance, 'the store reports its maintenance');
      await sql`create table churn (id int primary key, state int not null)`.execute(own.db);
      await sql`insert into churn select g, 0 from generate_series(1, 500) g`.execute(own.db);
      await sql`update churn set state = 1`.execute(own.db);
      await waitFor('a vacuum by the store itself', async () => {
        await sql`select 1`.execute(own.db);
        return own.maintenance!.stats.vacuums > 0 && (await counts(own.db, 'churn')).vacuumed;
      });
    } finally {
      await own.close();
    }
    // Without the option (the test harness's stores) nothing runs behind a test's back.
    assert.equal(store.maintenance, undefined);
  });
});
