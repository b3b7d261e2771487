// inTransaction and undoableAlone (src/store/transaction.ts): a caller's transaction is used, not nested; a
// failure inside undoableAlone undoes its own writes only and the caller's transaction goes on to commit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openTestStore } from '../test-support/app.js';
import { inTransaction, undoableAlone } from './transaction.js';

test("undoableAlone inside a transaction: its failure undoes its own write, the caller's commit keeps the rest", async () => {
  const store = await openTestStore();
  try {
    const schema = `tx_test_${process.pid}_${Date.now()}`;
    await sql`create schema ${sql.id(schema)}`.execute(store.db);
    const table = sql.id(schema, 'rows');
    await sql`create table ${table} (id int primary key)`.execute(store.db);
    await store.db.transaction().execute(async (trx) => {
      await sql`insert into ${table} values (1)`.execute(trx);
      // a unique violation inside: undone alone, the transaction usable after it
      await assert.rejects(undoableAlone(trx, async (inner) => {
        await sql`insert into ${table} values (2)`.execute(inner);
        await sql`insert into ${table} values (1)`.execute(inner);
      }));
      await undoableAlone(trx, (inner) => sql`insert into ${table} values (3)`.execute(inner));
      // inTransaction runs in the caller's transaction (a nested db.transaction() would throw)
      await inTransaction(trx, (inner) => sql`insert into ${table} values (4)`.execute(inner));
    });
    const { rows } = await sql<{ id: number }>`select id from ${table} order by id`.execute(store.db);
    assert.deepEqual(rows.map((r) => r.id), [1, 3, 4]);
    // nested: an inner failure caught inside an outer undoableAlone that then fails undoes all of the outer's writes
    await store.db.transaction().execute(async (trx) => {
      await assert.rejects(undoableAlone(trx, async (outer) => {
        await sql`insert into ${table} values (10)`.execute(outer);
        await assert.rejects(undoableAlone(outer, async (inner) => {
          await sql`insert into ${table} values (11)`.execute(inner);
          throw new Error('inner fails');
        }));
        await sql`insert into ${table} values (12)`.execute(outer);
        throw new Error('outer fails');
      }));
    });
    assert.equal((await sql<{ n: number }>`select count(*)::int as n from ${table} where id >= 10`.execute(store.db)).rows[0]!.n, 0, 'the outer undone whole');
    // without a caller's transaction: one of its own, undone whole on failure
    await assert.rejects(inTransaction(store.db, async (trx) => {
      await sql`insert into ${table} values (5)`.execute(trx);
      throw new Error('fails after its write');
    }));
    assert.equal((await sql<{ n: number }>`select count(*)::int as n from ${table} where id = 5`.execute(store.db)).rows[0]!.n, 0);
    await sql`drop schema ${sql.id(schema)} cascade`.execute(store.db);
  } finally {
    await store.close();
  }
});
