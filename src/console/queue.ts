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
  /** The page after this row (a cursor: the `next` of the page before). */
  after?: string;
  /** The page before this row (the `prev` of the page after). */
  before?: string;
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
  /** The cursor of the page after this one (its last row), null at the end. */
  next: string | null;
  /** The cursor of the page before this one (its first row), null at the start. */
  prev: string | null;
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
      r.expected_confirmation as expected_confirmation, r.expected_refund as expected_refund, r.cancel_reason,
      (r.status in (0, 1) and ${today}::text > coalesce(r.expected_confirmation, '99999999')) as confirmation_late,
      (r.status in (0, 1, 3) and ${today}::text > coalesce(r.expected_refund, '99999999')) as refund_late,
      (r.status = 0 and r.created_at < ${submitBy}::timestamptz) as not_submitted
    from (
      -- the quote's dates: columns since migration 0043; a refund stored before has them in its details (decision 0053)
      select x.*, coalesce(x.expected_confirmation_date, x.details->>'expectedConfirmationDate') as expected_confirmation,
        coalesce(x.expected_refund_date, x.details->>'expectedRefundDate') as expected_refund
      from refund_orders x
    ) r join orders o on o.order_no = r.order_no`;
}

/**
 * Voids with the same columns: their quote's expected dates (found by a review: never flagged late), columns since
 * migration 0045, in `details` for a void stored before (decision 0058).
 */
function voidsSql(env: QueueEnv): RawBuilder<unknown> {
  const today = DateTime.fromJSDate(env.now, { zone: 'UTC' }).toFormat('yyyyMMdd');
  const submitBy = new Date(env.now.getTime() - env.submitTargetMinutes * 60_000);
  return sql`
    select 'void' as kind, v.void_code as code, v.client_id, v.order_no, v.carrier, o.payment_method, '4' as reason, v.status, v.path,
      v.currency, v.void_amount_minor as amount_minor, v.actual_refund_minor as actual_minor, v.created_at, v.updated_at,
      v.expected_confirmation, v.expected_refund, v.cancel_reason,
      (v.status in (0, 1) and ${today}::text > coalesce(v.expected_confirmation, '99999999')) as confirmation_late,
      (v.status in (0, 1, 3) and ${today}::text > coalesce(v.expected_refund, '99999999')) as refund_late,
      (v.status = 0 and v.created_at < ${submitBy}::timestamptz) as not_submitted
    from (
      select x.*, coalesce(x.expected_confirmation_date, x.details->>'expectedConfirmationDate') as expected_confirmation,
        coalesce(x.expected_refund_date, x.details->>'expectedRefundDate') as expected_refund
      from void_orders x
    ) v join orders o on o.order_no = v.order_no`;
}

/** A cursor the queue cannot read, or one made under another sort: refused (400). */
export class QueueCursorInvalid extends Error {
  constructor(why: string) {
    super(`${why}: page from the first page again`);
    this.name = 'QueueCursorInvalid';
  }
}

/**
 * A page's cursor: a row's place in the sorted list — its sort value as the database wrote it (a timestamp's
 * microseconds kept), its kind and code — not an offset, so rows changing meanwhile neither skip nor repeat the
 * rows not yet shown. It carries the value the row had when shown: the row changed since keeps its old place
 * for the paging. Opaque to the console (base64url of JSON).
 */
interface Cursor {
  sort: NonNullable<QueueFilter['sort']>;
  value: string;
  kind: 'refund' | 'void';
  code: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.value, c.kind, c.code])).toString('base64url');
}

function decodeCursor(text: string, sort: Cursor['sort']): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw new QueueCursorInvalid('not a cursor of the queue');
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((x): x is string => typeof x === 'string')) throw new QueueCursorInvalid('not a cursor of the queue');
  const [s, value, kind, code] = parsed;
  if (s !== sort) throw new QueueCursorInvalid(`a cursor of the sort by ${String(s)}, not by ${sort}`);
  if (kind !== 'refund' && kind !== 'void') throw new QueueCursorInvalid('not a cursor of the queue');
  const valid = sort === 'amount' ? /^[A-Z]{3}:-?\d{1,20}$/.test(value!) : sort === 'created' || sort === 'updated' ? /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d{1,6})?([+-]\d\d(:?\d\d)?|Z)?$/.test(value!) : /^-?\d{1,20}$/.test(value!);
  if (!valid) throw new QueueCursorInvalid('not a cursor of the queue');
  return { sort, value: value!, kind, code: code! };
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

/**
 * What each sort orders by. The amount is the one the queue shows (the actual refund once known, else the
 * estimate: coalesce), and minor units of different currencies are not comparable (JPY 1000 is not more than
 * EUR 9.99): the amount sort orders by currency (A to Z, whatever the direction) and by amount within each.
 */
const SORT_COLUMN = { created: 'q.created_at', updated: 'q.updated_at', amount: 'coalesce(q.actual_minor, q.amount_minor)', status: 'q.status' } as const;
/** The type a cursor's value is read back as, to compare with the sort column. */
const SORT_TYPE = { created: 'timestamptz', updated: 'timestamptz', amount: 'bigint', status: 'int' } as const;

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
  sort_value: string;
}

export async function refundQueue(db: Kysely<Database>, filter: QueueFilter, env: QueueEnv): Promise<QueueAnswer> {
  // Airlines are stored upper-case (IATA codes): the filter is matched as such, whatever case it came in.
  const f: QueueFilter = filter.airline ? { ...filter, airline: filter.airline.toUpperCase() } : filter;
  const union = sql`${refundsSql(env)} union all ${voidsSql(env)}`;
  const sort = f.sort ?? 'created';
  const column = sql.raw(SORT_COLUMN[sort]);
  const byCurrency = sort === 'amount';
  const limit = Math.min(Math.max(f.limit ?? 50, 1), 200);
  if (f.after !== undefined && f.before !== undefined) throw new QueueCursorInvalid('after or before, not both');
  const cursor = f.after ?? f.before;
  const from = cursor === undefined ? null : decodeCursor(cursor, sort);
  // The page before a row is read in the reverse order from it, then turned back.
  const backwards = f.before !== undefined;
  const asc = (f.dir === 'asc') !== backwards;
  const dir = sql.raw(asc ? 'asc' : 'desc');
  const cmp = sql.raw(asc ? '>' : '<');
  let keyset = sql``;
  if (from && byCurrency) {
    // currencies A to Z (Z to A when read backwards), then the amount in the chosen direction
    const [currency, amount] = from.value.split(':') as [string, string];
    keyset = sql`and (q.currency ${sql.raw(backwards ? '<' : '>')} ${currency} or (q.currency = ${currency} and (${column}, q.code, q.kind) ${cmp} (cast(${amount} as bigint), ${from.code}, ${from.kind})))`;
  } else if (from) {
    keyset = sql`and (${column}, q.code, q.kind) ${cmp} (cast(${from.value} as ${sql.raw(SORT_TYPE[sort])}), ${from.code}, ${from.kind})`;
  }
  // Each branch sorted and cut to the page on its own (an index scan when sorted by a date), then merged; one
  // row more than the page tells whether another page follows.
  const currencyFirst = byCurrency ? sql`q.currency ${sql.raw(backwards ? 'desc' : 'asc')}, ` : sql``;
  const order = sql`order by ${currencyFirst}${column} ${dir}, q.code ${dir}, q.kind ${dir}`;
  const sortValue = byCurrency ? sql`q.currency || ':' || (${column})::text` : sql`(${column})::text`;
  const branch = (b: RawBuilder<unknown>) => sql`(select * from (${b}) q where ${conditions(f, env, true)} ${keyset} ${order} limit ${limit + 1})`;
  const { rows: read } = await sql<Row>`
    select q.*, ${sortValue} as sort_value from (${branch(refundsSql(env))} union all ${branch(voidsSql(env))}) q
    ${order} limit ${limit + 1}`.execute(db);
  const more = read.length > limit;
  const rows = backwards ? read.slice(0, limit).reverse() : read.slice(0, limit);
  const at = (r: Row | undefined) => (r ? encodeCursor({ sort, value: r.sort_value, kind: r.kind, code: r.code }) : null);
  // Forwards, rows before exist once a cursor was given; backwards, rows after exist (the cursor's own row).
  const next = backwards ? at(rows[rows.length - 1]) : more ? at(rows[rows.length - 1]) : null;
  const prev = backwards ? (more ? at(rows[0]) : null) : from ? (at(rows[0]) ?? cursor!) : null;
  const { rows: counted } = await countsSql(f, env, union).execute(db);
  const counts: QueueAnswer['counts'] = { refund: {}, void: {} };
  let total = 0;
  for (const c of counted) {
    counts[c.kind][String(c.status)] = Number(c.n);
    if (f.status === undefined || c.status === f.status) total += Number(c.n);
  }
  return {
    total,
    next,
    prev,
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
