// The two row-level trigger functions that read `orders` run with the settings of migration 0019 too: each reads
// one or two orders by key, and a plan made on a small table (a sequential scan of a page or two) is kept by the
// connection as the table grows. `carrier_of_order()` (migration 0025) fills the airline of a refund or void
// inserted without it (an older build during an upgrade, an operator's SQL); `refund_orders_ctx_bump_row()`
// (migration 0020) moves the order's context version when a refund's code, order or reason changes. Neither
// fires on the service's own writes; the growing-table test fires the first, but its first plan there happened
// to be an index scan (a review reproduced the kept scan on a small table). Every other trigger function that
// reads a table has had the settings since 0019 (src/store/trigger-plans.test.ts now checks them all).
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

const FUNCTIONS = ['carrier_of_order()', 'refund_orders_ctx_bump_row()'];

export async function up(db: Kysely<unknown>): Promise<void> {
  // ALTER FUNCTION takes several actions: BY_KEY's `set … set …` clause as written in CREATE FUNCTION.
  for (const fn of FUNCTIONS) await sql.raw(`alter function ${fn} ${BY_KEY}`).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const fn of FUNCTIONS) await sql.raw(`alter function ${fn} reset all`).execute(db);
}
