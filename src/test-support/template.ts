// The migrated PGlite template the tests start from: a dump of a data folder (PGlite's tar of the cluster) with
// every migration run, made once per machine, PGlite version and migration set. src/test-support/app.ts clones
// it for each in-process test; test/support/processes.ts unpacks it into the process-level tests' data folders.
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

/** The template's file, made first if this machine has none for this PGlite version and migration set. */
export async function migratedTemplateFile(): Promise<string> {
  // Keyed by the migration set (a digest: the names together outgrow a file name).
  const file = path.join(os.tmpdir(), `postbook-pglite-template-${pgliteVersion()}-${createHash('sha256').update(migrationsFingerprint()).digest('hex').slice(0, 16)}.tar`);
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
