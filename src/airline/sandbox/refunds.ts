// The sandbox airline's refund books and decisions. The books are a table in the service's own database
// (sandbox_refunds, migration 0003), so they survive a crash exactly as the service's records do; every
// time is the service clock's, so a moved sandbox clock moves the airline's timeline too.
//
// Timeline of one refund, from the first time the airline received its refundCode (submitted_at) and the
// processingSeconds p decided then:
//   [submitted_at, +p)    processing
//   [+p, +2p)             rejected / withdrawn (final), or, when accepted, refunding (money on its way)
//   [+2p, …)              refunded (accepted only; a voucher code when the airline refunds in vouchers)
// A refund postbook withdraws while processing (withdrawn_at) is withdrawn from that instant on.
import type { Kysely, Selectable } from 'kysely';
import { exponentOf, toMinor } from '../../money/money.js';
import type { Database, SandboxRefundsTable } from '../../store/schema.js';
import { preparedQuery } from '../../store/prepared.js';
import type { AirlineRefundState, AirlineRefundSubmission } from '../connector.js';
import type { WorldRefundBehaviour } from './world-schema.js';

export const DEFAULT_PROCESSING_SECONDS = 20;
export const DEFAULT_PAY_PERCENT_OF_QUOTE = 100;
export const DEFAULT_CANNOT_QUOTE_PERCENT_OF_PAID = 80;
export const DEFAULT_REJECT_REASON = 'does not match airline policy';
export const DEFAULT_WITHDRAW_REASON = 'refund request cancelled by the user';
export const DUPLICATE_REASON = 'duplicate refund record';

export type SandboxRefundRow = Selectable<SandboxRefundsTable>;

export interface SandboxDecision {
  decision: 'accept' | 'reject' | 'withdraw';
  cancelReason: string | null;
  processingSeconds: number;
  /** What the airline pays; null unless accepted. */
  refundMinor: number | null;
}

/** A JS number as a plain decimal string (no exponent notation). */
function decimalText(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(20).replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** `percent` % of `minor` minor units of `currency`, rounded half-up once to the currency's minor unit. */
export function percentOfMinor(minor: number, percent: number, currency: string): number {
  if (!Number.isSafeInteger(minor) || minor < 0) throw new RangeError(`amount ${minor} is not a non-negative integer of minor units`);
  if (!Number.isFinite(percent) || percent < 0) throw new RangeError(`percent ${percent} is not a non-negative number`);
  const [whole = '0', frac = ''] = decimalText(percent).split('.');
  // minor × percent / 100, written exactly as a decimal amount in major units: units / 10^scale.
  const units = BigInt(minor) * BigInt(whole + frac);
  const scale = frac.length + 2 + exponentOf(currency);
  const digits = units.toString().padStart(scale + 1, '0');
  return toMinor(scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`, currency);
}

/**
 * What the airline decides for a refund it receives for the first time. `behaviour` is the airline's
 * refundBehaviour overridden by the booking's; `duplicate` = the airline already accepted a refund of these
 * tickets (or of this booking, when it accepts one refund per booking).
 */
export function decideRefund(
  behaviour: WorldRefundBehaviour,
  submission: { isClaim: boolean; paidMinor: number; quotedRefundMinor: number | null; currency: string },
  duplicate: boolean,
): SandboxDecision {
  const processingSeconds = behaviour.processingSeconds ?? DEFAULT_PROCESSING_SECONDS;
  if (duplicate) return { decision: 'reject', cancelReason: DUPLICATE_REASON, processingSeconds, refundMinor: null };
  const decision = behaviour.decision ?? 'accept';
  // Only a refund claim can be withdrawn (spec 3.1, status 6); any other refund is rejected instead.
  if (decision === 'withdraw' && submission.isClaim) {
    return { decision, cancelReason: behaviour.cancelReason ?? DEFAULT_WITHDRAW_REASON, processingSeconds, refundMinor: null };
  }
  if (decision !== 'accept') {
    return { decision: 'reject', cancelReason: behaviour.cancelReason ?? DEFAULT_REJECT_REASON, processingSeconds, refundMinor: null };
  }
  const refundMinor =
    submission.quotedRefundMinor === null
      ? percentOfMinor(submission.paidMinor, behaviour.cannotQuotePercentOfPaid ?? DEFAULT_CANNOT_QUOTE_PERCENT_OF_PAID, submission.currency)
      : percentOfMinor(submission.quotedRefundMinor, behaviour.payPercentOfQuote ?? DEFAULT_PAY_PERCENT_OF_QUOTE, submission.currency);
  return { decision, cancelReason: null, processingSeconds, refundMinor };
}

/** Where a recorded refund stands at `now` (see the timeline at the top). */
export function refundStateAt(row: SandboxRefundRow, now: Date): AirlineRefundState {
  const start = new Date(row.submitted_at).getTime();
  const step = row.processing_seconds * 1000;
  const t = now.getTime();
  // Withdrawn at postbook's request while still processing (withdrawRefund): withdrawn from then on.
  if (row.withdrawn_at && t >= new Date(row.withdrawn_at).getTime()) return { state: 'withdrawn', cancelReason: DEFAULT_WITHDRAW_REASON };
  if (t < start + step) return { state: 'processing' };
  if (row.decision === 'reject') return { state: 'rejected', cancelReason: row.cancel_reason ?? DEFAULT_REJECT_REASON };
  if (row.decision === 'withdraw') return { state: 'withdrawn', cancelReason: row.cancel_reason ?? DEFAULT_WITHDRAW_REASON };
  const amountMinor = row.refund_minor ?? 0;
  if (t < start + 2 * step) return { state: 'refunding', amountMinor, currency: row.currency };
  return {
    state: 'refunded',
    amountMinor,
    currency: row.currency,
    voucherCode: row.voucher ? `V-${row.airline_refund_id}` : null,
    method: row.voucher ? 'Voucher' : 'CashBackToOriginalPayment',
  };
}

/** ticket_nos as stored (jsonb comes back parsed; tolerate a JSON string too). */
export function ticketNosOf(row: Pick<SandboxRefundRow, 'ticket_nos'>): string[] {
  const v: unknown = row.ticket_nos;
  const list: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(list) ? list.map(String) : [];
}

/** A submission as the airline books it: what postbook sent, and what the airline decided at its arrival. */
export interface NewSandboxRefund extends AirlineRefundSubmission {
  decision: SandboxDecision;
  voucher: boolean;
  /** How many submissions of this refundCode the call carries (more than 1: it repeated itself). */
  calls: number;
}

export type SandboxBookEntry = Pick<SandboxRefundRow, 'refund_code' | 'carrier' | 'pnr' | 'ticket_nos' | 'decision' | 'withdrawn_at'>;
// (A withdrawn refund no longer counts among the accepted ones of its booking: its tickets may be refunded again.)

// Fixed texts over arrays, whatever the batch size: named prepared statements, parsed and planned once.
// The books' read looks each refundCode and each booking up by its own key (a lateral lookup per element), not
// `refund_code = any(…) or pnr = any(…)`: that form is a sequential scan in any plan made while the books were
// small or unanalyzed, and PostgreSQL keeps a prepared statement's generic plan until an ANALYZE (2.8–7 ms per
// batch at 6,000 books, growing, on PostgreSQL with autovacuum off and on PGlite before decision 0032). It is the
// function sandbox_refund_books (migration 0021), whose own settings rule out sequential scans: a plan made
// while the books were analyzed empty would otherwise scan them whole until the next ANALYZE.
// What the books say about a batch of refunds of a carrier ($1 its refundCodes, $2 the carrier, $3 its bookings): the
// rows of these refundCodes (whichever booking they belong to) and every accepted refund of these bookings. Read
// inside the statement that records a batch (recordQueryIfUnbooked); src/store/hot-path-indexes.test.ts plans it alone.
export const SANDBOX_BOOKS_SQL = 'select refund_code, carrier, pnr, ticket_nos, decision, withdrawn_at from sandbox_refund_books($1::text[], $2::text, $3::text[])';

/**
 * A new refund's airline reference: `<carrier>-RF-` and 12 hex digits of the sequence `sandbox_refund_ids` (migration
 * 0046, decision 0060), in the order the refunds are inserted, so that the unique index on airline_refund_id grows at
 * its end instead of at a random leaf page. The sequence stops at 16^12 − 1 rather than give a 13th digit that lpad
 * would cut. A resend keeps the reference of its first arrival (the conflict's update leaves it).
 */
const NEW_AIRLINE_REFUND_ID_SQL = `$1 || '-RF-' || lpad(upper(to_hex(nextval('sandbox_refund_ids'))), 12, '0')`;

/** The books' insert over the batch's arrays ($1 carrier, $2 time, $3–$16 one element per refund): recordRefunds. */
const RECORD_INSERT = `insert into sandbox_refunds (refund_code, carrier, pnr, ticket_nos, reason, currency, paid_minor, quoted_refund_minor, is_claim,
     airline_refund_id, submit_calls, submitted_at, last_submitted_at, decision, cancel_reason, processing_seconds, refund_minor, voucher)
   select v.refund_code, $1, v.pnr, v.ticket_nos::jsonb, v.reason, v.currency, v.paid_minor, v.quoted_refund_minor, v.is_claim,
     ${NEW_AIRLINE_REFUND_ID_SQL}, v.submit_calls, $2::timestamptz, $2::timestamptz, v.decision, v.cancel_reason, v.processing_seconds, v.refund_minor, v.voucher
   from unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::boolean[], $11::int[],
     $12::text[], $13::text[], $14::int[], $15::bigint[], $16::boolean[])
     as v(refund_code, pnr, ticket_nos, reason, currency, paid_minor, quoted_refund_minor, is_claim, submit_calls,
       decision, cancel_reason, processing_seconds, refund_minor, voucher)`;
const RECORD_ON_CONFLICT = `on conflict (refund_code) do update
     set submit_calls = sandbox_refunds.submit_calls + excluded.submit_calls, last_submitted_at = excluded.last_submitted_at
     where sandbox_refunds.carrier = excluded.carrier and sandbox_refunds.pnr = excluded.pnr
   returning refund_code, airline_refund_id, submit_calls`;

/**
 * The books' statements commit without waiting for the WAL's flush (decision 0052), each its own transaction: a
 * condition of their insert, `set_config` evaluated once per statement, for that transaction alone.
 */
const BOOKS_WITHOUT_FLUSH = `(select set_config('synchronous_commit', 'off', true)) = 'off'`;

const recordQuery = preparedQuery<{ refund_code: string; airline_refund_id: string; submit_calls: number }>(
  'sandbox_refund_record',
  `${RECORD_INSERT}
   where ${BOOKS_WITHOUT_FLUSH}
   ${RECORD_ON_CONFLICT}`,
);

/** A row of recordQueryIfUnbooked: a book entry that stopped it (`booked`), or a refund it recorded. */
type UnbookedRow = (SandboxBookEntry & { booked: true }) | { booked: false; refund_code: string; airline_refund_id: string; submit_calls: number };

/**
 * recordQuery only if the books hold nothing about the batch ($3 its refundCodes, $17 its bookings, distinct): what
 * sandbox_refund_books answers for it (SANDBOX_BOOKS_SQL), read in the same statement. Answers the book entries
 * (booked, nothing written) or the refunds recorded.
 */
const recordQueryIfUnbooked = preparedQuery<UnbookedRow>(
  'sandbox_refund_record_if_unbooked',
  `with books as materialized (
     select * from sandbox_refund_books($3::text[], $1::text, $17::text[])
   ),
   recorded as (
     ${RECORD_INSERT}
     where not exists (select 1 from books) and ${BOOKS_WITHOUT_FLUSH}
     ${RECORD_ON_CONFLICT}
   )
   select true as booked, b.refund_code, b.carrier, b.pnr, b.ticket_nos, b.decision, b.withdrawn_at, null::text as airline_refund_id, null::int as submit_calls
   from books b
   union all
   select false, r.refund_code, null, null, null, null, null, r.airline_refund_id, r.submit_calls from recorded r`,
);

/** The insert's parameters for a batch of refunds, in refundCode order (the rows' lock order). */
function recordParams(carrier: string, at: Date, refunds: readonly NewSandboxRefund[]): unknown[] {
  const rs = [...refunds].sort((a, b) => (a.refundCode < b.refundCode ? -1 : a.refundCode > b.refundCode ? 1 : 0));
  return [
    carrier,
    at,
    rs.map((r) => r.refundCode),
    rs.map((r) => r.pnr),
    rs.map((r) => JSON.stringify(r.ticketNos)),
    rs.map((r) => r.reason),
    rs.map((r) => r.currency),
    rs.map((r) => r.paidMinor),
    rs.map((r) => r.quotedRefundMinor),
    rs.map((r) => r.isClaim),
    rs.map((r) => r.calls),
    rs.map((r) => r.decision.decision),
    rs.map((r) => r.decision.cancelReason),
    rs.map((r) => r.decision.processingSeconds),
    rs.map((r) => r.decision.refundMinor),
    rs.map((r) => r.voucher),
  ];
}

export type RecordedRefunds = Map<string, { airlineRefundId: string; submitCalls: number }>;

/**
 * Records refunds of `carrier` received at `at`, in one statement, idempotent on refundCode: a new refundCode
 * is a new row with its decision; a known one only counts the calls (submit_calls + calls) and keeps what was
 * decided at its first arrival. Safe under concurrency: the conflicting row's lock serialises the updates,
 * so exactly one caller ever sees a refundCode's first call; rows go in refundCode order, so two batches
 * never wait on each other's rows crosswise. The refundCodes must be distinct. Answers the refundCodes
 * recorded (new or counted) with their airline reference and calls so far; a refundCode recorded for
 * another booking is absent.
 */
export async function recordRefunds(
  db: Kysely<Database>,
  carrier: string,
  at: Date,
  refunds: readonly NewSandboxRefund[],
): Promise<RecordedRefunds> {
  const out: RecordedRefunds = new Map();
  if (refunds.length === 0) return out;
  const { rows } = await db.executeQuery(recordQuery(recordParams(carrier, at, refunds)));
  for (const row of rows) out.set(row.refund_code, { airlineRefundId: row.airline_refund_id, submitCalls: Number(row.submit_calls) });
  return out;
}

/**
 * recordRefunds for a batch the books know nothing about — none of its refundCodes, no accepted refund of its
 * bookings — in one statement with the read that makes sure of it: the refunds recorded, or, when the books hold
 * anything about the batch, nothing written and what they hold about it (SANDBOX_BOOKS_SQL; the decisions made
 * without the books may not stand: the caller decides again and calls recordRefunds). A batch's first submission
 * is thus one round trip instead of two.
 */
export async function recordRefundsIfUnbooked(
  db: Kysely<Database>,
  carrier: string,
  at: Date,
  refunds: readonly NewSandboxRefund[],
): Promise<{ books: SandboxBookEntry[] } | { recorded: RecordedRefunds }> {
  if (refunds.length === 0) return { recorded: new Map() };
  const pnrs = [...new Set(refunds.map((r) => r.pnr))];
  const { rows } = await db.executeQuery(recordQueryIfUnbooked([...recordParams(carrier, at, refunds), pnrs]));
  const books: SandboxBookEntry[] = [];
  const recorded: RecordedRefunds = new Map();
  for (const row of rows) {
    if (row.booked) books.push({ refund_code: row.refund_code, carrier: row.carrier, pnr: row.pnr, ticket_nos: row.ticket_nos, decision: row.decision, withdrawn_at: row.withdrawn_at });
    else recorded.set(row.refund_code, { airlineRefundId: row.airline_refund_id, submitCalls: Number(row.submit_calls) });
  }
  // (the insert wrote nothing when the books held anything: no row is then of the other kind)
  return books.length > 0 ? { books } : { recorded };
}
