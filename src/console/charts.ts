// The console's charts, computed by the database over a window of days ending at the service clock's now:
// refund status changes per day by the status reached, and time to refund per airline (submission to
// refunded or fulfilled: median, 90th percentile, count).
import { sql, type Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { REFUND_ORDER_STATUS as RS } from '../refunds/statuses.js';

export interface Charts {
  days: number;
  from: string;
  to: string;
  /** One row per UTC day of the window, oldest first: how many refunds reached each status that day. */
  perDay: Array<{ day: string; byStatus: Record<string, number> }>;
  /** Per airline: hours from submission (status 0) to refunded (2) or fulfilled (5), for refunds completed in the window. */
  timeToRefund: Array<{ carrier: string; count: number; medianHours: number; p90Hours: number }>;
}

export async function charts(db: Kysely<Database>, now: Date, days: number): Promise<Charts> {
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const start = new Date(end.getTime() - days * 86_400_000);
  const { rows: changes } = await sql<{ day: string; to_status: number; n: number | string }>`
    select to_char(h.at at time zone 'UTC', 'YYYY-MM-DD') as day, h.to_status, count(*) as n
    from refund_status_history h
    where h.at >= ${start}::timestamptz and h.at < ${end}::timestamptz
    group by 1, 2`.execute(db);
  const perDay: Charts['perDay'] = [];
  for (let d = 0; d < days; d++) {
    const day = new Date(start.getTime() + d * 86_400_000).toISOString().slice(0, 10);
    const byStatus: Record<string, number> = {};
    for (const c of changes.filter((x) => x.day === day)) byStatus[String(c.to_status)] = Number(c.n);
    perDay.push({ day, byStatus });
  }
  // Each completion's refund read by its key (the lateral, kept apart by `offset 0`): a join let the planner hash
  // the whole refund_orders table, and orders with it, at every page view (a review: 200 ms at 2·10⁵ refunds
  // for a 7-day window, growing with every refund ever stored). The refund's own carrier (migration 0025).
  const { rows: times } = await sql<{ carrier: string; n: number | string; median: number | string; p90: number | string }>`
    select r.carrier, count(*) as n,
      percentile_cont(0.5) within group (order by extract(epoch from (h.at - r.created_at)) / 3600) as median,
      percentile_cont(0.9) within group (order by extract(epoch from (h.at - r.created_at)) / 3600) as p90
    from refund_status_history h
    cross join lateral (select carrier, created_at from refund_orders r where r.refund_code = h.refund_code offset 0) r
    where h.to_status in (${sql.lit(RS.REFUNDED)}, ${sql.lit(RS.FULFILLED)}) and h.at >= ${start}::timestamptz and h.at < ${end}::timestamptz
    group by r.carrier
    order by r.carrier`.execute(db);
  const round = (v: number | string) => Math.round(Number(v) * 100) / 100;
  return {
    days,
    from: start.toISOString(),
    to: end.toISOString(),
    perDay,
    timeToRefund: times.map((t) => ({ carrier: t.carrier, count: Number(t.n), medianHours: round(t.median), p90Hours: round(t.p90) })),
  };
}
