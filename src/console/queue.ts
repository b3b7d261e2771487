// The refund queue of the console: refunds and voids (marked) in one list, filtered and sorted in the database,
// with counts per status and the SLA badges (docs/console.md "Refund queue", decision 0029 for the targets).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { DateTime } from 'luxon';
import { PAYMENT_METHOD_NAMES, type Database } from '../store/schema.js';

export interface QueueFilter {
  kind?: 'refund' | 'void';
  status?: number;
  airline?: string;
  client?: string;
  payment?: string;
  reason?: string;
  /** Only items at least this many hours old. */
  minAgeHours?: number;
  /** Only items with an SLA badge. */
  late?: boolean;
  sort?: 'created' | 'updated' | 'amount' | 'status';
  dir?: 'asc' | 'desc';
  limit?: number;
  offset?: number;
}

export interface QueueItem {
  kind: 'refund' | 'void';
  code: string;
  clientId: string;
  orderNo: string;
  carrier: string;
  paymentMethod: string | null;
  reason: string;
  status: number;
  path: string;
  currency: string;
  amountMinor: number;
  actualMinor: number | null;
  createdAt: string;
  updatedAt: string;
  expectedConfirmationDate: string | null;
  expectedRefundDate: string | null;
  cancelReason: string | null;
  /** SLA badges: past the confirmation date, past the refund date, not yet submitted after the target. */
  sla: Array<'confirmation-late' | 'refund-late' | 'not-submitted'>;
}

export interface QueueAnswer {
  items: QueueItem[];
  total: number;
  /** How far into the sorted list pages reach (QUEUE_WINDOW): items past it are reached by narrower filters. */
  window: number;
  counts: { refund: Record<string, number>; void: Record<string, number> };
}

export interface QueueEnv {
  now: Date;
  /** Minutes a refund may stay at status 0 (not yet submitted to the airline) before it is flagged. */
  submitTargetMinutes: number;
}

/** Refunds (and, below, voids) with every column a filter or sort reads, the SLA flags computed. */
function refundsSql(env: QueueEnv): RawBuilder<unknown> {
  const today = DateTime.fromJSDate(env.now, { zone: 'UTC' }).toFormat('yyyyMMdd');
  const submitBy = new Date(env.now.getTime() - env.submitTargetMinutes * 60_000);
  return sql`
    select 'refund' as kind, r.refund_code as code, r.client_id, r.order_no, r.carrier, o.payment_method, r.reason, r.status, r.path,
      r.currency, r.estimated_refund_minor as amount_minor, r.actual_refund_minor as actual_minor, r.created_at, r.updated_at,
      r.details->>'expectedConfirmationDate' as expected_confirmation, r.details->>'expectedRefundDate' as expected_refund, r.cancel_reason,
      (r.status in (0, 1) and ${today}::text > coalesce(r.details->>'expectedConfirmationDate', '99999999')) as confirmation_late,
      (r.status in (0, 1, 3) and ${today}::text > coalesce(r.details->>'expectedRefundDate', '99999999')) as refund_late,
      (r.status = 0 and r.created_at < ${submitBy}::timestamptz) as not_submitted
    from refund_orders r join orders o on o.order_no = r.order_no`;
}

/** Voids with the same columns: their quote's expected dates are in `details` as a refund's (found by a review: never flagged late). */
function voidsSql(env: QueueEnv): RawBuilder<unknown> {
  const today = DateTime.fromJSDate(env.now, { zone: 'UTC' }).toFormat('yyyyMMdd');
  const submitBy = new Date(env.now.getTime() - env.submitTargetMinutes * 60_000);
  return sql`
    select 'void' as kind, v.void_code as code, v.client_id, v.order_no, v.carrier, o.payment_method, '4' as reason, v.status, v.path,
      v.currency, v.void_amount_minor as amount_minor, v.actual_refund_minor as actual_minor, v.created_at, v.updated_at,
      v.details->>'expectedConfirmationDate' as expected_confirmation, v.details->>'expectedRefundDate' as expected_refund, v.cancel_reason,
      (v.status in (0, 1) and ${today}::text > coalesce(v.details->>'expectedConfirmationDate', '99999999')) as confirmation_late,
      (v.status in (0, 1, 3) and ${today}::text > coalesce(v.details->>'expectedRefundDate', '99999999')) as refund_late,
      (v.status = 0 and v.created_at < ${submitBy}::timestamptz) as not_submitted
    from void_orders v join orders o on o.order_no = v.order_no`;
}

/**
 * How far offset + limit may reach. Each page sorts and cuts both branches to offset + limit rows, so a deep
 * offset is a sorted scan of that many refunds and voids (a viewer could ask for 10⁷ with every click); past
 * the window an operator narrows the filters (airline, status, age) or reverses the sort instead.
 */
export const QUEUE_WINDOW = 10_000;

/** A page reaching past the window: refused (400) with what to do instead. */
export class QueueWindowExceeded extends Error {
  constructor(offset: number, limit: number) {
    super(`offset ${offset} with ${limit} items reaches past the queue's first ${QUEUE_WINDOW.toLocaleString('en')}: narrow the filters or reverse the sort to see the rest`);
    this.name = 'QueueWindowExceeded';
  }
}

type Counted = { kind: 'refund' | 'void'; status: number; n: number | string };

/**
 * The counts per kind and status under the filter (the status filter aside: the counts show every status).
 * Without other filters than the kind and the airline: the maintained counts (console_queue_counts, migrations
 * 0018 and 0025), a few dozen rows whatever the number of refunds. With filters on the refund's own columns
 * (client, reason, age; the airline is one since 0025): counted on refund_orders and void_orders alone
 * (client: an index of its own). Only the payment method and the SLA badges, which need the order or the
 * refund's dates, count the joined rows.
 */
function countsSql(f: QueueFilter, env: QueueEnv, union: RawBuilder<unknown>): RawBuilder<Counted> {
  const kinds = f.kind ? [f.kind] : (['refund', 'void'] as const);
  if (!f.payment && !f.late) {
    if (!f.client && !f.reason && f.minAgeHours === undefined) {
      return sql<Counted>`
        select kind, status, sum(n) as n from console_queue_counts where kind in (${sql.join(kinds.map((k) => sql`${k}`))})
        ${f.airline ? sql`and carrier = ${f.airline}` : sql``}
        group by kind, status having sum(n) <> 0`;
    }
    const own = (table: 'refund_orders' | 'void_orders', reason: RawBuilder<unknown>) => {
      const c: RawBuilder<unknown>[] = [sql`true`];
      if (f.airline) c.push(sql`carrier = ${f.airline}`);
      if (f.client) c.push(sql`client_id = ${f.client}`);
      if (f.reason) c.push(sql`${reason} = ${f.reason}`);
      if (f.minAgeHours !== undefined) c.push(sql`created_at <= ${new Date(env.now.getTime() - f.minAgeHours * 3_600_000)}::timestamptz`);
      return sql`select status, count(*) as n from ${sql.table(table)} where ${sql.join(c, sql` and `)} group by status`;
    };
    const parts = kinds.map((k) => (k === 'refund' ? sql`select 'refund' as kind, x.* from (${own('refund_orders', sql`reason`)}) x` : sql`select 'void' as kind, y.* from (${own('void_orders', sql`'4'`)}) y`));
    return sql<Counted>`${sql.join(parts, sql` union all `)}`;
  }
  return sql<Counted>`select q.kind, q.status, count(*) as n from (${union}) q where ${conditions(f, env, false)} group by q.kind, q.status`;
}

function conditions(f: QueueFilter, env: QueueEnv, withStatus: boolean): RawBuilder<unknown> {
  const c: RawBuilder<unknown>[] = [sql`true`];
  if (f.kind) c.push(sql`q.kind = ${f.kind}`);
  if (withStatus && f.status !== undefined) c.push(sql`q.status = ${f.status}`);
  if (f.airline) c.push(sql`q.carrier = ${f.airline}`);
  if (f.client) c.push(sql`q.client_id = ${f.client}`);
  if (f.payment) c.push(sql`q.payment_method = ${f.payment}`);
  if (f.reason) c.push(sql`q.reason = ${f.reason}`);
  if (f.minAgeHours !== undefined) c.push(sql`q.created_at <= ${new Date(env.now.getTime() - f.minAgeHours * 3_600_000)}::timestamptz`);
  if (f.late) c.push(sql`(q.confirmation_late or q.refund_late or q.not_submitted)`);
  return sql.join(c, sql` and `);
}

const SORT_COLUMN = { created: 'created_at', updated: 'updated_at', amount: 'amount_minor', status: 'status' } as const;

interface Row {
  kind: 'refund' | 'void';
  code: string;
  client_id: string;
  order_no: string;
  carrier: string;
  payment_method: string | null;
  reason: string;
  status: number;
  path: string;
  currency: string;
  amount_minor: number | string;
  actual_minor: number | string | null;
  created_at: Date | string;
  updated_at: Date | string;
  expected_confirmation: string | null;
  expected_refund: string | null;
  cancel_reason: string | null;
  confirmation_late: boolean;
  refund_late: boolean;
  not_submitted: boolean;
}

export async function refundQueue(db: Kysely<Database>, filter: QueueFilter, env: QueueEnv): Promise<QueueAnswer> {
  // Airlines are stored upper-case (IATA codes): the filter is matched as such, whatever case it came in.
  const f: QueueFilter = filter.airline ? { ...filter, airline: filter.airline.toUpperCase() } : filter;
  const union = sql`${refundsSql(env)} union all ${voidsSql(env)}`;
  const column = sql.raw(SORT_COLUMN[f.sort ?? 'created']);
  const dir = sql.raw(f.dir === 'asc' ? 'asc' : 'desc');
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 200);
  const offset = Math.max(f.offset ?? 0, 0);
  if (offset + limit > QUEUE_WINDOW) throw new QueueWindowExceeded(offset, limit);
  // Each branch sorted and cut to the page's end on its own (an index scan when sorted by a date), then merged.
  const order = sql`order by q.${column} ${dir}, q.code ${dir}`;
  const branch = (b: RawBuilder<unknown>) => sql`(select * from (${b}) q where ${conditions(f, env, true)} ${order} limit ${offset + limit})`;
  const { rows } = await sql<Row>`
    select * from (${branch(refundsSql(env))} union all ${branch(voidsSql(env))}) q
    ${order} limit ${limit} offset ${offset}`.execute(db);
  const { rows: counted } = await countsSql(f, env, union).execute(db);
  const counts: QueueAnswer['counts'] = { refund: {}, void: {} };
  let total = 0;
  for (const c of counted) {
    counts[c.kind][String(c.status)] = Number(c.n);
    if (f.status === undefined || c.status === f.status) total += Number(c.n);
  }
  return {
    total,
    window: QUEUE_WINDOW,
    counts,
    items: rows.map((r) => ({
      kind: r.kind,
      code: r.code,
      clientId: r.client_id,
      orderNo: r.order_no,
      carrier: r.carrier,
      paymentMethod: r.payment_method,
      reason: r.reason,
      status: r.status,
      path: r.path,
      currency: r.currency,
      amountMinor: Number(r.amount_minor),
      actualMinor: r.actual_minor === null ? null : Number(r.actual_minor),
      createdAt: new Date(r.created_at).toISOString(),
      updatedAt: new Date(r.updated_at).toISOString(),
      expectedConfirmationDate: r.expected_confirmation,
      expectedRefundDate: r.expected_refund,
      cancelReason: r.cancel_reason,
      sla: [
        ...(r.confirmation_late ? (['confirmation-late'] as const) : []),
        ...(r.refund_late ? (['refund-late'] as const) : []),
        ...(r.not_submitted ? (['not-submitted'] as const) : []),
      ],
    })),
  };
}

/**
 * The values the queue's filter menus offer: the airlines and clients with refunds or voids, and the payment methods.
 * Read from the kept counts (per airline) and the clients table with one index probe per client (a review: a
 * distinct over orders with two subqueries per row scanned the whole table at every queue or case page open — 3.9 s at
 * 10⁶ orders on PostgreSQL, 170–400 ms at 2·10⁵ on PGlite, where it held the only connection).
 */
export async function queueFacets(db: Kysely<Database>): Promise<{ airlines: string[]; clients: string[]; payments: string[] }> {
  const { rows } = await sql<{ facet: 'airline' | 'client'; value: string }>`
    select 'airline' as facet, carrier as value from console_queue_counts group by carrier having sum(n) > 0
    union all
    select 'client', c.client_id from clients c
    where exists (select 1 from refund_orders r where r.client_id = c.client_id) or exists (select 1 from void_orders v where v.client_id = c.client_id)`.execute(db);
  const of = (facet: 'airline' | 'client') => rows.filter((r) => r.facet === facet).map((r) => r.value).sort();
  return { airlines: of('airline'), clients: of('client'), payments: [...PAYMENT_METHOD_NAMES].sort() };
}
