// Opens the system of record: embedded PGlite in DATA_DIR by default, or PostgreSQL via DATABASE_URL.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.js';
import { lockDataDir, type DirLock } from './lock.js';
import { migrateToLatest } from './migrate.js';
import { usePreparedStatements } from './prepared.js';
import type { Database } from './schema.js';

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  readonly db: Kysely<Database>;
  readonly kind: StoreKind;
  close(): Promise<void>;
  /** Embedded mode only: a dump of the whole cluster (used to clone migrated test databases). */
  dump?(): Promise<Blob>;
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
}

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
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    // JIT off: it compiled the refund context's generic plan for 40 ms per quote (its cost estimate is a
    // sum over sub-selects that each read a handful of rows); short OLTP statements never gain from it
    // (decision 0015).
    options: ['-c jit=off', ...(opts.schema ? [`-c search_path=${opts.schema}`] : [])].join(' '),
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === 20 ? int8AsNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', usePreparedStatements);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, kind: 'postgres', close: () => db.destroy() };
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
    fs.mkdirSync(dataDir, { recursive: true });
  }
  let pglite: PGlite;
  try {
    pglite = new PGlite({
      ...(dataDir ? { dataDir } : {}),
      ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
      parsers: { [pgliteTypes.INT8]: int8AsNumber },
    });
    await pglite.waitReady;
  } catch (err) {
    await lock?.release();
    throw err;
  }
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    async close() {
      await db.destroy();
      await lock?.release();
    },
    async dump() {
      // Holding a connection keeps every other query out while the files are read.
      return db.connection().execute(() => pglite.dumpDataDir('none'));
    },
  };
}

