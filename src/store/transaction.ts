// Work that is one transaction whether its caller holds one or not: a caller that does (the world reload, which
// writes clients, orders, webhooks and the world's version together: a crash between them left the clients
// changed and the world not) passes its transaction; one that does not gets a transaction of its own.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Runs `fn` in `db` when it is a transaction, else in a transaction of its own. */
export function inTransaction<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db as Transaction<Database>) : db.transaction().execute(fn);
}

/**
 * Runs `fn` so that its failure undoes its own writes only: a transaction of its own, or inside the caller's a
 * savepoint rolled back on failure (the caller's transaction goes on: PostgreSQL aborts the whole transaction at
 * an error otherwise, so a caller could not retry a unique violation).
 */
export async function undoableAlone<T>(db: Kysely<Database>, fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (!db.isTransaction) return db.transaction().execute(fn);
  await sql`savepoint undoable_alone`.execute(db);
  try {
    const out = await fn(db as Transaction<Database>);
    await sql`release savepoint undoable_alone`.execute(db);
    return out;
  } catch (err) {
    // rolled back and then released: a savepoint left behind would be the one an enclosing undoableAlone's rollback
    // went back to, keeping that one's own earlier writes (a review)
    await sql`rollback to savepoint undoable_alone`.execute(db);
    await sql`release savepoint undoable_alone`.execute(db);
    throw err;
  }
}
