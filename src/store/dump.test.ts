// The embedded store's dump (the migrated test template, src/test-support/template.ts): its WAL compacted — one
// segment, holding a checkpoint, cut after its last written page — and a store opened from it, in memory or
// unpacked into a data folder, holds what was written and writes on past the cut. Embedded store only: it runs on
// PGlite on either test run.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { migratedTemplateFile } from '../test-support/template.js';
import { openStore, type Store } from './store.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-dump-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const SEGMENT = 16 * 1024 * 1024;

/** The dump written to a file, and its pg_wal files with their sizes (`tar -tv`). */
async function dumpToFile(store: Store, name: string): Promise<{ file: string; wal: Array<{ name: string; size: number }> }> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, new Uint8Array(await (await store.dump!()).arrayBuffer()));
  const wal = execFileSync('tar', ['-tvf', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .map((line) => /^-\S+\s+\S+\s+(\d+)\s+.*\/pg_wal\/([0-9A-F]{24})$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => ({ name: m[2]!, size: Number(m[1]) }));
  return { file, wal };
}

async function rows(store: Store): Promise<number> {
  const { rows: r } = await sql<{ n: number }>`select count(*)::int as n from kept`.execute(store.db);
  return r[0]!.n;
}

test('a dump holds one WAL segment cut after its last written page; its clones hold the rows and write on past the cut', async () => {
  // the migrated template (itself such a dump)
  const template = new Blob([fs.readFileSync(await migratedTemplateFile())], { type: 'application/x-tar' });
  const source = await openStore({ databaseUrl: null, dataDir: null, loadDataDir: template });
  let dumped: Awaited<ReturnType<typeof dumpToFile>>;
  try {
    await sql`create table kept (n int, pad text)`.execute(source.db);
    await sql`insert into kept select g, repeat('x', 200) from generate_series(1, 1000) g`.execute(source.db);
    dumped = await dumpToFile(source, 'first.tar');
  } finally {
    await source.close();
  }
  assert.equal(dumped.wal.length, 1, JSON.stringify(dumped.wal));
  const [segment] = dumped.wal;
  assert.ok(segment!.size > 0 && segment!.size < SEGMENT / 4 && segment!.size % 8192 === 0, `segment of ${segment!.size} bytes`);

  // in memory, as the in-process tests open it: the rows, and ~24 MB more WAL than the cut segment held (the next
  // segments made as PostgreSQL needs them), dumped again
  const bytes = fs.readFileSync(dumped.file);
  const clone = await openStore({ databaseUrl: null, dataDir: null, loadDataDir: new Blob([bytes], { type: 'application/x-tar' }) });
  try {
    assert.equal(await rows(clone), 1000);
    await sql`insert into kept select g, repeat('y', 200) from generate_series(1001, 100000) g`.execute(clone.db);
    const again = await dumpToFile(clone, 'second.tar');
    assert.equal(again.wal.length, 1);
    assert.ok(again.wal[0]!.name > segment!.name, `${again.wal[0]!.name} after ${segment!.name}`);
  } finally {
    await clone.close();
  }

  // unpacked into a data folder, as the process-level tests start from it (migratedDataDir): open, write past the cut,
  // close, open again
  const dataDir = path.join(dir, 'data');
  fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true });
  execFileSync('tar', ['-xf', dumped.file, '-C', path.join(dataDir, 'pglite')], { stdio: 'ignore' });
  const onDisk = await openStore({ databaseUrl: null, dataDir, lockWaitMs: 0 });
  try {
    assert.equal(await rows(onDisk), 1000);
    await sql`insert into kept select g, repeat('z', 200) from generate_series(1001, 50000) g`.execute(onDisk.db);
  } finally {
    await onDisk.close();
  }
  const reopened = await openStore({ databaseUrl: null, dataDir, lockWaitMs: 0 });
  try {
    assert.equal(await rows(reopened), 50000);
  } finally {
    await reopened.close();
  }
});
