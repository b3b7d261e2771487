// Opens the system of record: embedded PGlite in DATA_DIR by default, or PostgreSQL via DATABASE_URL.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { lockDataDir, type DirLock } from './lock.js';
import { migrateToLatest } from './migrate.js';
import { hotReader, type HotReader } from './hot-reader.js';
import { usePreparedStatements } from './prepared.js';
import type { Database } from './schema.js';
import { PgliteAutovacuum, type AutovacuumStats, type MaintenanceLog } from './pglite-autovacuum.js';

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly kind: StoreKind;
  close(): Promise<void>;
  /** Embedded mode only: a dump of the whole cluster (used to clone migrated test databases). */
  dump?(): Promise<Blob>;
  /** Embedded mode with `autovacuum`: what the store's own maintenance did so far (decision 0032). */
  readonly maintenance?: { readonly stats: Readonly<AutovacuumStats> };
  /** PostgreSQL mode: a connection of its own for the hottest tiny read (./hot-reader.ts); closed with the store. */
  readonly hotReader?: HotReader;
}

export interface StoreOptions {
  databaseUrl: string | null;
  /** Embedded mode: folder of the database, locked for this process. `null` = in memory (tests). */
  dataDir: string | null;
  /** PostgreSQL mode: schema to use (created if missing); tests isolate themselves this way. */
  schema?: string;
  /** Embedded mode: start from this dump instead of an empty cluster (fast test databases). */
  loadDataDir?: Blob;
  migrate?: boolean;
  onLockCompromised?: (err: Error) => void;
  /** Embedded mode: how long to wait for a stale lock of a crashed process; 0 = fail at once. */
  lockWaitMs?: number;
  poolSize?: number;
  /** Embedded mode: PostgreSQL's shared_buffers in MB (default PGLITE_SHARED_BUFFERS_MB). */
  sharedBuffersMb?: number;
  /**
   * Embedded mode: vacuum and analyze the tables PostgreSQL's autovacuum would, looking every `intervalSeconds`
   * (decision 0032; PGLITE_AUTOVACUUM_SECONDS). Absent: never (tests that need plans to stay put).
   */
  autovacuum?: { intervalSeconds: number; log?: MaintenanceLog };
}

/**
 * shared_buffers of the embedded store, in MB (decision 0017). PGlite runs postgres in the process's WASM
 * heap, and initdb's default of 128 MB is memory the process touches at start and keeps for good. 16 MB hold
 * the demo world's hot pages; pages beyond them are read from the OS page cache of the data folder.
 * Durability does not depend on it: buffers cache the data files, every commit still writes its WAL.
 */
export const PGLITE_SHARED_BUFFERS_MB = 16;

const int8AsNumber = (value: string) => {
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : BigInt(value);
};

export async function openStore(opts: StoreOptions): Promise<Store> {
  const store = opts.databaseUrl ? openPostgres(opts.databaseUrl, opts) : await openPGlite(opts);
  try {
    if (opts.schema && store.kind === 'postgres') {
      await sql`create schema if not exists ${sql.id(opts.schema)}`.execute(store.db);
    }
    if (opts.migrate !== false) await migrateToLatest(store.db as Kysely<unknown>);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}

function openPostgres(url: string, opts: StoreOptions): Store {
  const connection: pg.ClientConfig = {
    connectionString: url,
    // JIT off: it compiled the refund context's generic plan for 40 ms per quote (its cost estimate is a
    // sum over sub-selects that each read a handful of rows); short OLTP statements never gain from it
    // (decision 0015).
    options: ['-c jit=off', ...(opts.schema ? [`-c search_path=${opts.schema}`] : [])].join(' '),
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === 20 ? int8AsNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  };
  const pool = new pg.Pool({ ...connection, max: opts.poolSize ?? 10 });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', usePreparedStatements);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const reader = hotReader(connection);
  return { db, kind: 'postgres', hotReader: reader, close: () => Promise.all([reader.close(), db.destroy()]).then(() => undefined) };
}

async function openPGlite(opts: StoreOptions): Promise<Store> {
  let lock: DirLock | null = null;
  let dataDir: string | undefined;
  if (opts.dataDir) {
    lock = await lockDataDir(
      opts.dataDir,
      opts.onLockCompromised ??
        ((err) => {
          throw err;
        }),
      opts.lockWaitMs,
    );
    dataDir = path.join(opts.dataDir, 'pglite');
  }
  let pglite: PGlite;
  try {
    if (dataDir && !opts.loadDataDir) await createClusterIfMissing(dataDir);
    if (dataDir) fs.mkdirSync(dataDir, { recursive: true });
    pglite = new PGlite({
      ...(dataDir ? { dataDir } : {}),
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      parsers: { [pgliteTypes.INT8]: int8AsNumber },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.sharedBuffersMb ?? PGLITE_SHARED_BUFFERS_MB}MB`],
    });
    await pglite.waitReady;
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  const autovacuum = opts.autovacuum && opts.autovacuum.intervalSeconds > 0 ? new PgliteAutovacuum(db, { intervalMs: opts.autovacuum.intervalSeconds * 1000, ...(opts.autovacuum.log ? { log: opts.autovacuum.log } : {}) }) : null;
  autovacuum?.start();
  return {
    db,
    kind: 'pglite',
    ...(autovacuum ? { maintenance: autovacuum } : {}),
    async close() {
      await autovacuum?.stop();
      await db.destroy();
      await lock?.release();
    },
    async dump() {
      // Holding a connection keeps every other query out while the WAL is compacted and the files are read.
      return db.connection().execute(async (conn) => {
        await compactWal(conn, pglite);
        return pglite.dumpDataDir('none');
      });
    },
  };
}

const WAL_PAGE = 8192;

/**
 * Leaves the cluster's WAL as a dump needs it: a fresh segment (`pg_switch_wal`) holding a checkpoint and nothing
 * after it, the segments before it removed, and that one cut after its last written page. A store opened from such a
 * dump has no WAL to replay and 16 MB less to unpack: the migrated test template went from 42 to 26 MB, and opening
 * a test store from it from ~710 to ~470 ms of CPU (2026-12-05, AMD EPYC; a suite opens ~270 in its test processes,
 * and its servers and CLIs start from it unpacked). PostgreSQL reads the WAL from the checkpoint on, and writes on
 * after it, extending the file as it would fill it.
 */
async function compactWal(conn: Kysely<Database>, pglite: PGlite): Promise<void> {
  await sql`select pg_switch_wal()`.execute(conn);
  await sql`checkpoint`.execute(conn);
  const { rows } = await sql<{ file_name: string; file_offset: number }>`select file_name, file_offset from pg_walfile_name_offset(pg_current_wal_insert_lsn())`.execute(conn);
  const current = rows[0]!;
  // At a segment's boundary the name is the segment before it (PostgreSQL's rule): the checkpoint just written in the
  // fresh segment never ends there, and should it, the WAL is dumped as it is.
  if (current.file_offset === 0) return;
  // Emscripten's file system, as far as this uses it (PGlite types it by @types/emscripten, not a dependency here)
  const FS = pglite.Module.FS as unknown as { readdir(path: string): string[]; unlink(path: string): void; truncate(path: string, length: number): void };
  const walDir = `${PGlite.paths.PGDATA}/pg_wal`;
  // the finished segments, and those the checkpoint recycled ahead of need (their old contents, 16 MB each)
  for (const name of FS.readdir(walDir)) if (/^[0-9A-F]{24}$/.test(name) && name !== current.file_name) FS.unlink(`${walDir}/${name}`);
  FS.truncate(`${walDir}/${current.file_name}`, Math.ceil(current.file_offset / WAL_PAGE) * WAL_PAGE);
}

/**
 * A new embedded cluster is created (initdb) in a short-lived child process, in a sibling folder renamed into
 * place once complete. PGlite runs initdb in a second WASM instance of its own, and in the server process
 * that left about 450 MB resident for good (decision 0017); a cut-off creation leaves no half-made cluster
 * behind for the next start to open.
 */
async function createClusterIfMissing(dataDir: string): Promise<void> {
  if (fs.existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  // A folder with files but no cluster is not ours to replace: PGlite reports what is wrong with it.
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) return;
  const fresh = `${dataDir}.initdb`;
  fs.rmSync(fresh, { recursive: true, force: true });
  fs.mkdirSync(fresh, { recursive: true });
  const script = 'const { PGlite } = await import(process.argv[1]); const pg = await PGlite.create({ dataDir: process.argv[2] }); await pg.close();';
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      // V8's baseline WASM compiler only: a one-off child of seconds gains nothing from tiering postgres up
      // (2026-11-30, EPYC: 1.6–2.1 s instead of 2.0–2.4, half the CPU).
      ['--liftoff-only', '--input-type=module', '-e', script, import.meta.resolve('@electric-sql/pglite'), fresh],
      { timeout: 300_000 },
      (err, _stdout, stderr) => (err ? reject(new Error(`creating the embedded database in ${dataDir} failed: ${stderr.trim() || err.message}`)) : resolve()),
    );
  });
  if (!fs.existsSync(path.join(fresh, 'PG_VERSION'))) throw new Error(`creating the embedded database in ${dataDir} failed: no cluster was written`);
  fs.rmSync(dataDir, { recursive: true, force: true }); // empty (checked above)
  fs.renameSync(fresh, dataDir);
}
