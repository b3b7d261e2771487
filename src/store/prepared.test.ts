// SQL a library writes itself (pg-boss) becomes a named prepared statement from its second run (src/store/prepared.ts),
// on the store of the run (PGlite, or PostgreSQL with DATABASE_URL): same answers, named, and bounded.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { storeExecutor, transactionExecutor } from '../jobs/executor.js';
import { prepareIfRepeated, preparedNameOf, repeatedNamedCount } from './prepared.js';

describe('library SQL prepared from its second run', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  test('a repeated text is named after its second run and keeps answering with each run\'s values', async () => {
    const exec = storeExecutor(t.store.db);
    const text = 'select $1::int * 2 as doubled, $2::text as label';
    assert.equal(preparedNameOf(text), undefined);
    assert.deepEqual((await exec.executeSql(text, [1, 'a'])).rows, [{ doubled: 2, label: 'a' }]);
    assert.equal(preparedNameOf(text), undefined, 'one run: still plain SQL');
    assert.deepEqual((await exec.executeSql(text, [2, 'b'])).rows, [{ doubled: 4, label: 'b' }]);
    assert.match(preparedNameOf(text) ?? '', /^pb_repeated_\d+$/);
    // Now run as the named statement, with new values, on the store and inside a transaction.
    assert.deepEqual((await exec.executeSql(text, [3, 'c'])).rows, [{ doubled: 6, label: 'c' }]);
    const inTrx = await t.store.db.transaction().execute((trx) => transactionExecutor(trx).executeSql(text, [4, 'd']));
    assert.deepEqual(inTrx.rows, [{ doubled: 8, label: 'd' }]);
  });

  test('parameterless scripts are never named (pg-boss runs its schema scripts that way)', async () => {
    const exec = storeExecutor(t.store.db);
    const script = 'select 1 as one; select 2 as two';
    await exec.executeSql(script);
    await exec.executeSql(script);
    assert.equal(preparedNameOf(script), undefined);
  });

  test('at most 64 texts are named; later ones stay plain SQL', () => {
    // The test app's own workers (pg-boss polling) and the first test have named some already.
    const before = repeatedNamedCount();
    for (let i = 0; i < 80; i++) {
      const text = `select $1::int + ${i} as n`;
      prepareIfRepeated(text);
      prepareIfRepeated(text);
    }
    const named = Array.from({ length: 80 }, (_, i) => preparedNameOf(`select $1::int + ${i} as n`)).filter(Boolean);
    assert.equal(repeatedNamedCount(), 64);
    assert.equal(named.length, 64 - before);
    assert.equal(preparedNameOf('select $1::int + 79 as n'), undefined);
  });
});
