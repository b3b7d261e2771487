// An offer's request and quote are compressed with lz4 instead of pglz where the server has lz4 (decision 0055). A
// one-passenger quote's document is ~1.7 KB, which takes the offer's row over PostgreSQL's 2 KB threshold, so every
// quote's offer was compressed by pglz on the way in: measured on the offers' statement alone (five offers, the
// backend's CPU, interleaved blocks), pglz 186–203 µs a statement against lz4's 157–168, the row the same size
// (1,088 bytes against 1,144). A PostgreSQL built without lz4 — PGlite's WASM build is one — keeps pglz: the migration
// changes nothing there. Only values written from now on are compressed the new way; both kinds are read alike.
import { sql, type Kysely } from 'kysely';

/** Whether the server was built with lz4 (the values `default_toast_compression` accepts). */
export async function serverHasLz4<DB>(db: Kysely<DB>): Promise<boolean> {
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce('lz4' = any(enumvals), false) as lz4 from pg_settings where name = 'default_toast_compression'
  `.execute(db);
  return rows[0]?.lz4 === true;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(await serverHasLz4(db))) return;
  await sql`alter table refund_offers alter column request set compression lz4, alter column quote set compression lz4`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table refund_offers alter column request set compression default, alter column quote set compression default`.execute(db);
}
