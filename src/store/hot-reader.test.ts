// The store's connection of its own for the seat versions (src/store/hot-reader.ts): PostgreSQL only.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { openTestStore } from '../test-support/app.js';
import { preparedQuery } from './prepared.js';
import type { Store } from './store.js';

const POSTGRES_ONLY = process.env.DATABASE_URL ? false : 'PostgreSQL only (DATABASE_URL): the embedded store has one connection and no hot reader';
const PID = 'select pg_backend_pid() as pid, current_schema() as schema';
const pid = preparedQuery<{ pid: number; schema: string }>('hot_test_pid', PID);

let store: Store;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test('the hot reader reads on a connection of its own, in the store\'s schema, as a named statement', { skip: POSTGRES_ONLY }, async () => {
  const reader = store.hotReader!;
  const [first] = await reader.query(pid([]));
  const [again] = await reader.query(pid([]));
  const { rows } = await sql<{ pid: number; schema: string }>`select pg_backend_pid() as pid, current_schema() as schema`.execute(store.db);
  assert.equal(again!.pid, first!.pid, 'one connection, kept');
  assert.notEqual(first!.pid, rows[0]!.pid, 'not one of the pool\'s');
  assert.equal(first!.schema, rows[0]!.schema, 'the store\'s schema');
  const { rows: named } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${first!.pid} and query = ${PID}`.execute(store.db);
  assert.equal(named[0]!.n, 1, 'its last statement is the named one');
});

test('a lost connection is opened again by the next query; a closed reader refuses', { skip: POSTGRES_ONLY }, async () => {
  const reader = store.hotReader!;
  const [before] = await reader.query(pid([]));
  await sql`select pg_terminate_backend(${before!.pid})`.execute(store.db);
  // The read that meets the cut connection may fail (or the reader may have seen it go first); the next one works.
  let after: { pid: number } | undefined;
  const deadline = Date.now() + 5_000;
  let failures = 0;
  while (!after && Date.now() < deadline) {
    try {
      [after] = await reader.query(pid([]));
    } catch {
      failures++;
    }
  }
  assert.ok(after, 'a read works again');
  assert.notEqual(after.pid, before!.pid, 'on a new connection');
  assert.ok(failures <= 1, `at most the read that met the cut connection fails (${failures})`);
});

test('closing the store ends the hot reader\'s connection', { skip: POSTGRES_ONLY }, async () => {
  const other = await openTestStore();
  const [row] = await other.hotReader!.query(pid([]));
  await other.close();
  await assert.rejects(other.hotReader!.query(pid([])), /closed/);
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where pid = ${row!.pid}`.execute(store.db);
  assert.equal(rows[0]!.n, 0, 'its backend is gone');
});

// decision 0056: each read binds, executes and syncs the named statement, its columns described once per connection.
const echo = preparedQuery<{ keys: string[] | null; n: number; label: string | null }>(
  'hot_test_echo',
  'select $1::text[] as keys, $2::bigint as n, $3::text as label',
);

test('parameters reach the statement as given and rows come back through the store\'s type parsers', { skip: POSTGRES_ONLY }, async () => {
  const reader = store.hotReader!;
  const keys = ['XS101|2026-12-08', 'a "quoted" key', 'back\\slash', 'comma,brace}', ''];
  for (let i = 0; i < 3; i++) {
    // the first read on the connection parses and describes the statement; the later ones only bind and execute
    const [row] = await reader.query(echo([keys, 9_007_199_254 + i, i === 1 ? null : `run ${i}`]));
    assert.deepEqual(row, { keys, n: 9_007_199_254 + i, label: i === 1 ? null : `run ${i}` });
  }
  const [nulls] = await reader.query(echo([null, 0, null]));
  assert.deepEqual(nulls, { keys: null, n: 0, label: null });
  const [withNull] = await reader.query(echo([['x', null], 1, 'y']));
  assert.deepEqual(withNull!.keys, ['x', null]);
});

test('a statement\'s own error fails that read alone: the connection and its described statements stay', { skip: POSTGRES_ONLY }, async () => {
  const reader = store.hotReader!;
  const [before] = await reader.query(pid([]));
  // not a bigint: the server refuses the parameter (an ERROR, not a lost connection)
  await assert.rejects(reader.query(echo([[], 'many', null])), (err: Error & { code?: string }) => err.code === '22P02');
  const [after] = await reader.query(pid([]));
  assert.equal(after!.pid, before!.pid, 'the same connection');
  const [row] = await reader.query(echo([['k'], 2, 'ok']));
  assert.deepEqual(row, { keys: ['k'], n: 2, label: 'ok' });
});

test('a first read on a connection refused after its statement was parsed leaves the next read working', { skip: POSTGRES_ONLY }, async () => {
  const other = await openTestStore();
  try {
    await assert.rejects(other.hotReader!.query(echo([[], 'many', null])), (err: Error & { code?: string }) => err.code === '22P02');
    const [row] = await other.hotReader!.query(echo([['k'], 3, null]));
    assert.deepEqual(row, { keys: ['k'], n: 3, label: null });
  } finally {
    await other.close();
  }
});

test('a parameter the reader cannot send fails its read alone, before the connection is touched', { skip: POSTGRES_ONLY }, async () => {
  const reader = store.hotReader!;
  const [before] = await reader.query(pid([]));
  await assert.rejects(reader.query(echo([[], { not: 'sendable' }, null])), TypeError);
  const [after] = await reader.query(pid([]));
  assert.equal(after!.pid, before!.pid, 'the same connection');
});
