// The migrated PGlite template the tests start from: a dump of a data folder (PGlite's tar of the cluster) with
// every migration run, made once per machine, PGlite version and migration set (names and texts).
// src/test-support/app.ts clones it for each in-process test; test/support/processes.ts unpacks it into the
// process-level tests' data folders.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrationsFingerprint } from '../store/migrate.js';
import { openStore } from '../store/store.js';

/** The installed PGlite's version (its package.json, beside the dist/ folder of the entry it exports): a template
 * made by another version is not reused (it was written by hand here before, and could fall behind an upgrade). */
function pgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(fs.readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The migration set — their names and the bytes of every file of the migrations' folder — and the store's source,
 * which opens the cluster and writes the dump (its WAL compacted since 2026-12-05). Keyed by the names alone, a
 * migration edited before it landed (or a branch's other version of it) found the template of its earlier text and
 * the tests ran on a schema the code no longer makes, on every clone of this machine.
 */
function migrationsDigest(): string {
  const storeDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'store');
  const dir = path.join(storeDir, 'migrations');
  const digest = createHash('sha256').update(migrationsFingerprint());
  // the sources alone: a compiled run (scripts/run-tests.ts) finds its JavaScript and source maps beside links to them,
  // the maps naming the sources' place, which differs from clone to clone
  for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.ts')).sort()) digest.update(`\0${name}\0`).update(fs.readFileSync(path.join(dir, name)));
  digest.update('\0store.ts\0').update(fs.readFileSync(path.join(storeDir, 'store.ts')));
  return digest.digest('hex').slice(0, 16);
}

/** The template's file, made first if this machine has none for this PGlite version and migration set. */
export async function migratedTemplateFile(): Promise<string> {
  const file = path.join(os.tmpdir(), `postbook-pglite-template-${pgliteVersion()}-${migrationsDigest()}.tar`);
  if (!fs.existsSync(file)) {
    const store = await openStore({ databaseUrl: null, dataDir: null });
    const blob = await store.dump!();
    await store.close();
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
    fs.renameSync(tmp, file);
  }
  return file;
}
