// pg-boss talks to the database only through `db.executeSql(text, values)`. These adapters route that through
// our Kysely instance, so pg-boss shares the store's connection handling on both stores:
// - PGlite: every statement goes through the dialect's mutex, so nothing interleaves with an open transaction;
// - PostgreSQL: statements use the store's pool.
// A transaction adapter runs pg-boss's INSERT on the caller's transaction: the job commits with the caller's
// rows, or not at all.
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { prepareIfRepeated } from '../store/prepared.js';

/** The shape pg-boss 10 accepts as its `db` option (constructor and per call). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** An executor over the store that also knows which of its statements are still running. */
export interface TrackedExecutor extends SqlExecutor {
  /** Resolves when every statement started so far has finished (whatever its outcome). */
  drain(): Promise<void>;
}

type AnyKysely = Kysely<Database>;

export function storeExecutor(db: AnyKysely): TrackedExecutor {
  const running = new Set<Promise<unknown>>();
  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    const forget = () => running.delete(p);
    p.then(forget, forget);
    return p;
  };
  return {
    executeSql(text, values = []) {
      return track(runOnStore(db, text, values));
    },
    async drain() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}

async function runOnStore(db: AnyKysely, text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
  if (values.length > 0) {
    prepareIfRepeated(text);
    const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values));
    return { rows: result.rows };
  }
  // Parameterless SQL runs as a simple query (pg) or exec() (PGlite) and may hold several statements:
  // pg-boss's schema creation, migrations and maintenance are `BEGIN; …; COMMIT;` scripts. When one of their
  // statements fails, the rest of the script (the COMMIT too) is skipped and the session is left inside an
  // aborted transaction: on PGlite that is THE connection, and every later query would fail. So on error,
  // roll back on the same connection before handing it back.
  return db.connection().execute(async (conn) => {
    try {
      const result = await conn.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, []));
      return { rows: result.rows };
    } catch (err) {
      await conn.executeQuery(CompiledQuery.raw('rollback', [])).catch(() => undefined);
      throw err;
    }
  });
}

/** Runs pg-boss's statements on the caller's transaction (used for `send` with `trx`). */
export function transactionExecutor(trx: Transaction<Database>): SqlExecutor {
  return {
    async executeSql(text, values = []) {
      if (values.length > 0) prepareIfRepeated(text);
      const result = await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values));
      return { rows: result.rows };
    },
  };
}

/** Wraps an executor and keeps the first error it saw (pg-boss's fetch swallows SQL errors). */
export function recordingExecutor(inner: SqlExecutor): SqlExecutor & { error: unknown } {
  const rec = {
    error: undefined as unknown,
    async executeSql(text: string, values?: unknown[]) {
      try {
        return await inner.executeSql(text, values);
      } catch (err) {
        rec.error ??= err;
        throw err;
      }
    },
  };
  return rec;
}
