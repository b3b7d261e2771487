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
  /**
   * PostgreSQL mode only (embedded mode has one process, so whatever changes the store is in this process):
   * LISTEN on `channel` + '.' + the store's schema, the channel that `notifyChannel(channel)` names in SQL.
   * Several API processes learn this way what the others committed.
   */
  listen?(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>;
}

export interface ListenHandlers {
  onMessage(payload: string): void;
  /**
   * false: notifications may be missed from now on (the listening connection broke; it reconnects by itself);
   * true: listening (again). Anything learnt before a `false` must be treated as possibly stale.
   */
  onLive(live: boolean): void;
}

/** The SQL expression of a notification channel, as `Store.listen` listens to it (schema-scoped). */
export function notifyChannel(channel: string) {
  return sql<string>`${channel} || '.' || current_schema()`;
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
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
    types: {
      getTypeParser: ((oid: number, format?: string): unknown =>
        oid === 20 ? int8AsNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  pool.on('connect', usePreparedStatements);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const listeners = new Set<() => Promise<void>>();
  return {
    db,
    kind: 'postgres',
    listen: async (channel, handlers) => {
      const stop = await listenOn(url, opts.schema ?? null, channel, handlers);
      listeners.add(stop);
      return async () => {
        listeners.delete(stop);
        await stop();
      };
    },
    async close() {
      await Promise.all([...listeners].map((stop) => stop()));
      await db.destroy();
    },
  };
}

const LISTEN_RETRY_MS = [100, 500, 1_000, 2_000, 5_000];

/**
 * One dedicated connection per listened channel (LISTEN cannot share a pooled connection). It reconnects
 * after a failure, and tells `onLive(false)` at once so the caller stops trusting what it learnt.
 */
async function listenOn(url: string, schema: string | null, channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | null = null;
  let attempt = 0;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: url, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
    const lost = () => {
      if (client !== c) return;
      client = null;
      handlers.onLive(false);
      c.removeAllListeners('notification');
      c.end().catch(() => undefined);
      if (!stopped) schedule();
    };
    c.on('error', lost);
    c.on('end', lost);
    c.on('notification', (n) => {
      if (n.payload !== undefined) handlers.onMessage(n.payload);
    });
    await c.connect();
    const { rows } = await c.query<{ name: string }>(`select $1::text || '.' || current_schema() as name`, [channel]);
    await c.query(`listen ${pg.escapeIdentifier(rows[0]!.name)}`);
    if (stopped) {
      await c.end();
      return;
    }
    client = c;
    attempt = 0;
    handlers.onLive(true);
  };
  const schedule = () => {
    const wait = LISTEN_RETRY_MS[Math.min(attempt++, LISTEN_RETRY_MS.length - 1)]!;
    retry = setTimeout(() => {
      retry = null;
      connect().catch(() => {
        if (!stopped) schedule();
      });
    }, wait);
    retry.unref();
  };
  handlers.onLive(false);
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const c = client;
    client = null;
    if (c) await c.end().catch(() => undefined);
  };
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

