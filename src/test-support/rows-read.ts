// Plan checks that count rows instead of reading EXPLAIN: PostgreSQL's per-transaction counters of each table
// (rows read by sequential scans plus rows fetched through indexes) around a statement, in a transaction that is
// rolled back at the end so what the check planted leaves nothing behind.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

/**
 * Rows each of `tables` gave up in this transaction so far: read by sequential scans or fetched through indexes.
 * The store's own schema only: on PostgreSQL every test app has a schema of its own with the same table names, and
 * a row of another schema's table taken for this one's (whichever the view listed last) made a check flaky.
 */
export async function rowsRead(trx: Transaction<Database>, tables: readonly string[]): Promise<Map<string, number>> {
  const { rows } = await sql<{ relname: string; n: string }>`
    select relname, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::text as n from pg_stat_xact_user_tables
    where relname = any(${tables}) and schemaname = current_schema()`.execute(trx);
  return new Map(rows.map((r) => [r.relname, Number(r.n)]));
}

class RolledBack extends Error {}

/** Runs `fn` on one connection in a transaction that is always rolled back; answers what `fn` answered. */
export async function inRolledBackTransaction<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  let out: T | undefined;
  await db
    .transaction()
    .execute(async (trx) => {
      out = await fn(trx);
      throw new RolledBack();
    })
    .catch((err: unknown) => {
      if (!(err instanceof RolledBack)) throw err;
    });
  return out as T;
}
