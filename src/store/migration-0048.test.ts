// Migration 0048 replaces the refund context's batch functions with the form that reads each order by its key alone
// (decision 0066; their plans: src/store/hot-path-indexes.test.ts). The lookups answer as before, up and down: the
// caller's order, nothing for another client's, 824's flag for the caller's post-ticketing service order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Migrator, sql, type Kysely } from 'kysely';
import { openStore } from './store.js';
import { MIGRATIONS } from './migrate.js';

test('migration 0048: the context functions answer the same lookups the same, up and down', async () => {
  const store = await openStore({ databaseUrl: null, dataDir: null, migrate: false });
  try {
    const db = store.db as unknown as Kysely<unknown>;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
    assert.equal((await migrator.migrateTo('0047_refund_rows_checked_by_their_statements')).error, undefined);
    await sql`insert into clients (client_id, name, secret_hash) values ('c', 'c', 'x'), ('d', 'd', 'x')`.execute(db);
    await sql`insert into orders (order_no, client_id, source, status, carrier, airline_pnr, currency, total_minor)
              values ('O1', 'c', 'booking', '2', 'XS', 'PNR001', 'USD', 0), ('O2', 'd', 'booking', '2', 'XS', 'PNR002', 'USD', 0)`.execute(db);
    await sql`insert into order_ancillaries (order_no, pax_index, segment_index, kind, category, post_order_no, currency, price_minor)
              values ('O1', 1, null, 'post', 'StandardCheckInBaggage', 'PT1', 'USD', 100)`.execute(db);
    const lookups = async () => ({
      byOrderNo: (
        await sql<{ i: string; order_no: string | null; ancillary: boolean | null }>`
          select i, order_no, ancillary from refund_contexts_by_order_no(array['c', 'd', 'c', 'd', 'c'], array['O1', 'O1', 'PT1', 'PT1', 'O9']) order by i`.execute(db)
      ).rows.map((r) => [Number(r.i), r.order_no, r.ancillary]),
      byPnr: (
        await sql<{ i: string; order_no: string | null }>`
          select i, order_no from refund_contexts_by_pnr(array['c', 'd', 'd'], array['PNR001', 'PNR001', 'PNR002'], array['XS', 'XS', 'XS']) order by i`.execute(db)
      ).rows.map((r) => [Number(r.i), r.order_no]),
    });
    const expected = {
      byOrderNo: [
        [1, 'O1', null],
        [2, null, null], // another client's order: none (spec 7.1: 801)
        [3, null, true], // the caller's post-ticketing service order (spec 7.1: 824)
        [4, null, null], // another client's: none
        [5, null, null],
      ],
      byPnr: [
        [1, 'O1'],
        [2, null],
        [3, 'O2'],
      ],
    };
    const definition = async () =>
      (await sql<{ def: string }>`select pg_get_functiondef('refund_contexts_by_order_no(text[], text[])'::regprocedure) as def`.execute(db)).rows[0]!.def;
    assert.deepEqual(await lookups(), expected);
    assert.doesNotMatch(await definition(), /offset 0/);

    assert.equal((await migrator.migrateTo('0048_orders_read_by_key')).error, undefined);
    assert.deepEqual(await lookups(), expected);
    assert.match(await definition(), /from orders o where o\.order_no = b\.order_no offset 0\) o on o\.client_id = b\.client_id/);

    assert.equal((await migrator.migrateDown()).error, undefined);
    assert.deepEqual(await lookups(), expected);
    assert.doesNotMatch(await definition(), /offset 0/);
  } finally {
    await store.close();
  }
});
