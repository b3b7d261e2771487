// What operators watch of the refunds (read at each /metrics scrape): how many refunds sit in each status
// per airline, and how long the oldest one still waiting in each open status has waited.
import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { REFUND_ORDER_STATUS } from './statuses.js';

/** Statuses in which a refund still waits for someone (postbook, then the airline). */
export const OPEN_REFUND_STATUSES = [REFUND_ORDER_STATUS.PROCESSING, REFUND_ORDER_STATUS.AIRLINE_PROCESSING, REFUND_ORDER_STATUS.AIRLINE_REFUNDING] as const;

/**
 * The refunds per airline and status: the counts the store keeps by trigger (console_queue_counts, migration
 * 0025), a few dozen rows whatever the number of refunds (counting the refunds themselves read every one of
 * them, ~0.1 s per scrape at 4·10⁵).
 */
export async function refundsByStatus(db: Kysely<Database>): Promise<Array<{ carrier: string; status: number; count: number }>> {
  const { rows } = await sql<{ carrier: string; status: number; count: string | number }>`
    select carrier, status, sum(n) as count from console_queue_counts where kind = 'refund'
    group by carrier, status having sum(n) <> 0`.execute(db);
  return rows.map((r) => ({ carrier: r.carrier, status: Number(r.status), count: Number(r.count) }));
}

/**
 * Per open status, when its oldest refund was created (none: no refund in that status). One probe per status of
 * `refund_orders_status_created` (status, created_at desc), read from its end: a scrape costs the same with 10⁵
 * refunds waiting as with none (a `min() … group by status` read every waiting refund's index entry).
 */
export const OLDEST_OPEN_REFUNDS_SQL = `select s.status, (select r.created_at from refund_orders r where r.status = s.status order by r.created_at limit 1) as since
  from unnest(array[${OPEN_REFUND_STATUSES.join(', ')}]) s(status)`;

/**
 * Refunds whose airline calls gave up after the job queue's retries, nobody calling the airline about them any more
 * (or put at that status by hand): `submissions` at 0 (decision 0035), `polls` at 1 or 3 (decision 0034). Read on
 * refund_orders_step_due, its null end.
 */
export async function refundCallsGivenUp(db: Kysely<Database>): Promise<{ submissions: number; polls: number }> {
  const { rows } = await sql<{ submissions: number | string; polls: number | string }>`
    select count(*) filter (where status = ${sql.lit(REFUND_ORDER_STATUS.PROCESSING)}) as submissions,
      count(*) filter (where status <> ${sql.lit(REFUND_ORDER_STATUS.PROCESSING)}) as polls
    from refund_orders
    where status in (${sql.lit(REFUND_ORDER_STATUS.PROCESSING)}, ${sql.lit(REFUND_ORDER_STATUS.AIRLINE_PROCESSING)}, ${sql.lit(REFUND_ORDER_STATUS.AIRLINE_REFUNDING)})
      and next_poll_at is null`.execute(db);
  return { submissions: Number(rows[0]?.submissions ?? 0), polls: Number(rows[0]?.polls ?? 0) };
}

export async function oldestOpenRefunds(db: Kysely<Database>): Promise<Array<{ status: number; since: Date }>> {
  const { rows } = await db.executeQuery<{ status: number; since: Date | string | null }>(CompiledQuery.raw(OLDEST_OPEN_REFUNDS_SQL));
  return rows.filter((r) => r.since !== null).map((r) => ({ status: Number(r.status), since: new Date(r.since!) }));
}
