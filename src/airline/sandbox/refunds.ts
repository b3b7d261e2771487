// The sandbox airline's refund books and decisions. The books are a table in the service's own database
// (sandbox_refunds, migration 0003), so they survive a crash exactly as the service's records do; every
// time is the service clock's, so a moved sandbox clock moves the airline's timeline too.
//
// Timeline of one refund, from the first time the airline received its refundCode (submitted_at) and the
// processingSeconds p decided then:
//   [submitted_at, +p)    processing
//   [+p, +2p)             rejected / withdrawn (final), or, when accepted, refunding (money on its way)
//   [+2p, …)              refunded (accepted only; a voucher code when the airline refunds in vouchers)
import { randomBytes } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { exponentOf, toMinor } from '../../money/money.js';
import type { Database, SandboxRefundsTable } from '../../store/schema.js';
import type { AirlineRefundState } from '../connector.js';
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
  if (t < start + step) return { state: 'processing' };
  if (row.decision === 'reject') return { state: 'rejected', cancelReason: row.cancel_reason ?? DEFAULT_REJECT_REASON };
  if (row.decision === 'withdraw') return { state: 'withdrawn', cancelReason: row.cancel_reason ?? DEFAULT_WITHDRAW_REASON };
  const amountMinor = row.refund_minor ?? 0;
  if (t < start + 2 * step) return { state: 'refunding', amountMinor, currency: row.currency };
  return { state: 'refunded', amountMinor, currency: row.currency, voucherCode: row.voucher ? `V-${row.airline_refund_id}` : null };
}

export function newAirlineRefundId(carrier: string): string {
  return `${carrier}-RF-${randomBytes(5).toString('hex').toUpperCase()}`;
}

/** ticket_nos as stored (jsonb comes back parsed; tolerate a JSON string too). */
export function ticketNosOf(row: Pick<SandboxRefundRow, 'ticket_nos'>): string[] {
  const v: unknown = row.ticket_nos;
  const list: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(list) ? list.map(String) : [];
}

export interface NewSandboxRefund {
  refundCode: string;
  carrier: string;
  pnr: string;
  ticketNos: string[];
  reason: '0' | '1' | '4';
  currency: string;
  paidMinor: number;
  quotedRefundMinor: number | null;
  isClaim: boolean;
  decision: SandboxDecision;
  voucher: boolean;
  at: Date;
}

/**
 * Records a refund, idempotent on refundCode: one INSERT … ON CONFLICT DO UPDATE that counts the call.
 * Safe under concurrency (the row lock of the conflicting row serialises the updates): exactly one caller
 * sees submit_calls = 1. Null when the refundCode is already recorded for another booking.
 */
export async function recordRefund(
  db: Kysely<Database>,
  r: NewSandboxRefund,
): Promise<{ airlineRefundId: string; submitCalls: number } | null> {
  const row = await db
    .insertInto('sandbox_refunds')
    .values({
      refund_code: r.refundCode,
      carrier: r.carrier,
      pnr: r.pnr,
      ticket_nos: JSON.stringify(r.ticketNos),
      reason: r.reason,
      currency: r.currency,
      paid_minor: r.paidMinor,
      quoted_refund_minor: r.quotedRefundMinor,
      is_claim: r.isClaim,
      airline_refund_id: newAirlineRefundId(r.carrier),
      submit_calls: 1,
      submitted_at: r.at,
      last_submitted_at: r.at,
      decision: r.decision.decision,
      cancel_reason: r.decision.cancelReason,
      processing_seconds: r.decision.processingSeconds,
      refund_minor: r.decision.refundMinor,
      voucher: r.voucher,
    })
    .onConflict((oc) =>
      oc
        .column('refund_code')
        .doUpdateSet((eb) => ({ submit_calls: eb('sandbox_refunds.submit_calls', '+', 1), last_submitted_at: r.at }))
        .where((eb) => eb.and([eb('sandbox_refunds.carrier', '=', eb.ref('excluded.carrier')), eb('sandbox_refunds.pnr', '=', eb.ref('excluded.pnr'))])),
    )
    .returning(['airline_refund_id', 'submit_calls'])
    .executeTakeFirst();
  return row ? { airlineRefundId: row.airline_refund_id, submitCalls: row.submit_calls } : null;
}
