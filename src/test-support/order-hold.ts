// An order's row held by a transaction of the test's own (PostgreSQL only), as another API process's statement
// of that order would hold it while it commits: submissions of the order started meanwhile wait for it, each
// past its own reads, and run when the test lets go — two writers of one order at once, made certain.
import assert from 'node:assert/strict';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';

export interface OrderHold {
  /** Resolves once `n` sessions wait for the hold, directly or in line behind one that does. */
  waiting(n: number): Promise<void>;
  /**
   * Lets go and resolves once the holding transaction has committed: having changed nothing, or what `change`
   * writes in it first (as another process's statement of the order would have written).
   */
  release(change?: (trx: Transaction<Database>) => Promise<unknown>): Promise<void>;
}

/** What a hold needs of node:test's test context: a hook run after the test. */
type TestContextAfter = { after(fn: () => Promise<unknown>): void };

/** Holds `orderNo`; the test context `ctx` lets go after the test whatever became of it. */
export async function holdOrder(db: Kysely<Database>, orderNo: string, ctx: TestContextAfter): Promise<OrderHold> {
  let letGo!: (change?: (trx: Transaction<Database>) => Promise<unknown>) => void;
  const released = new Promise<((trx: Transaction<Database>) => Promise<unknown>) | undefined>((resolve) => (letGo = resolve));
  let held!: (pid: number) => void;
  const holding = new Promise<number>((resolve) => (held = resolve));
  const holder = db.transaction().execute(async (trx) => {
    // should the test fail before letting go, the store ends the hold itself rather than leave the file hanging
    await sql`set local idle_in_transaction_session_timeout = '20s'`.execute(trx);
    const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid from orders where order_no = ${orderNo} for no key update`.execute(trx);
    assert.equal(rows.length, 1, `order ${orderNo} held`);
    held(rows[0]!.pid);
    await (await released)?.(trx);
  });
  ctx.after(() => {
    letGo();
    return holder.catch(() => undefined); // ended by the store's timeout: the test has failed already
  });
  const pid = await Promise.race([holding, holder.then(() => -1)]);
  const waitingNow = async () =>
    (
      await sql<{ n: number }>`
        with recursive w(pid) as (
          select ${pid}::int
          union
          select a.pid from pg_stat_activity a, w
          where a.wait_event_type = 'Lock' and a.datname = current_database() and w.pid = any(pg_blocking_pids(a.pid))
        )
        select count(*)::int - 1 as n from w`.execute(db)
    ).rows[0]!.n;
  return {
    async waiting(n) {
      for (let i = 0; (await waitingNow()) < n; i++) {
        assert.ok(i < 1000, `${n} session(s) waiting for order ${orderNo} within 10 s`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async release(change) {
      letGo(change); // a second call changes nothing: the first one let go
      await holder;
    },
  };
}

/**
 * Two writers of `orderNo` at once: the order held, `first` started and waiting on it, then `second` too, then
 * let go; their answers, in that order.
 */
export async function atOnce<A, B>(db: Kysely<Database>, orderNo: string, ctx: TestContextAfter, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  const hold = await holdOrder(db, orderNo, ctx);
  const a = first();
  await hold.waiting(1);
  const b = second();
  await hold.waiting(2);
  await hold.release();
  return Promise.all([a, b]);
}
