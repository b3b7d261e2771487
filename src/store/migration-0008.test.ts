// Migration 0008 numbers the offers a store already holds in the order they were written (a review: `seq` added as
// an identity column numbered them in their order on disk, and the build before 0008 UPDATEd the offers it
// superseded, which moved them after the newer offer — the superseded one then read as the newer, and the live
// offer as superseded: refund.do by it answered 813).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Migrator, sql, type Kysely } from 'kysely';
import { openStore } from './store.js';
import { MIGRATIONS } from './migrate.js';
import { offerStateSql } from '../refunds/offers.js';

test('offers written before migration 0008 keep their state after it', async () => {
  const store = await openStore({ databaseUrl: null, dataDir: null, migrate: false });
  try {
    const db = store.db as unknown as Kysely<unknown>;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } });
    const to7 = await migrator.migrateTo('0007_offer_documents_as_json');
    assert.equal(to7.error, undefined);
    await sql`insert into clients (client_id, name, secret_hash) values ('c', 'c', 'x')`.execute(db);
    await sql`insert into orders (order_no, client_id, source, status, carrier, currency, total_minor) values ('O1', 'c', 'booking', '2', 'XS', 'USD', 0)`.execute(db);
    const offer = (id: string, tickets: string, at: string) =>
      sql`insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
        values (${id}, 'c', 'O1', '1', ${tickets}::text[], '{}', '{}', 'active', now() + interval '30 minutes', ${at}::timestamptz)`.execute(db);
    // the build before 0008: a quote of one passenger superseded the earlier quote of both by an UPDATE
    await offer('A', '{T1,T2}', '2026-11-20T10:00:00Z');
    await offer('B', '{T1}', '2026-11-20T10:01:00Z');
    await sql`update refund_offers set status = 'superseded' where offer_id = 'A'`.execute(db);
    const latest = await migrator.migrateToLatest();
    assert.equal(latest.error, undefined);
    const { rows } = await sql.raw<{ offer_id: string; state: string }>(`select o.offer_id, ${offerStateSql('o')} as state from refund_offers o order by o.offer_id`).execute(db);
    assert.deepEqual(rows.map((r) => [r.offer_id, r.state]), [['A', 'superseded'], ['B', 'active']]);
    // and the offers written after it are numbered after them
    await offer('C', '{T2}', '2026-11-20T10:02:00Z');
    const seqs = await sql<{ offer_id: string; seq: string }>`select offer_id, seq::text from refund_offers order by seq`.execute(db);
    assert.deepEqual(seqs.rows.map((r) => r.offer_id), ['A', 'B', 'C']);
  } finally {
    await store.close();
  }
});
