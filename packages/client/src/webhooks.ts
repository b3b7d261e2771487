// Verifies a webhook delivery as the service signs it: hex HMAC-SHA256 with the client's webhook secret over
// `<timestamp>.<raw body>`, in `x-<prefix>-webhook-signature`, the Unix-seconds timestamp in
// `x-<prefix>-webhook-timestamp` (the service's docs/webhooks.md). Web Crypto only, so it runs in Node 20+,
// browsers, and edge runtimes alike.
import { PostbookClientError, WebhookVerificationError } from './errors.js';

/** `data` of an `order.refund` event: one refund status change. */
export interface RefundEventData {
  orderNo: string;
  refundCode: string;
  /** null on the first event (the refund was accepted). */
  previousRefundStatus: number | null;
  /** spec 3.1: 0 processing, 1 airline processing, 2 refunded, 3 airline refunding, 4 rejected, 5 fulfilment done, 6 withdrawn. */
  refundStatus: number;
  cancelReason: string | null;
  refundReason: string | null;
  refundMethod: string | null;
  quoteType: string | null;
  currency: string | null;
  estimatedRefundAmount: number | null;
  actualRefundAmount: number | null;
  serviceFee: { currency: string | null; amount: number | null };
  ticketNos: string[];
  /** yyyyMMdd once the refund reached 2 or 5. */
  completedOn: string | null;
  /** Human text of the cause; never decide from it. */
  message: string | null;
}

/** `data` of an `order.void` event: one void status change. */
export interface VoidEventData {
  orderNo: string;
  voidCode: string;
  previousVoidStatus: number | null;
  voidStatus: number;
  cancelReason: string | null;
  currency: string | null;
  voidAmount: number | null;
  actualRefundAmount: number | null;
  ticketNos: string[];
  completedOn: string | null;
  message: string | null;
}

/** `data` of an `order.ticketed` event: an order booked through order.do was ticketed. */
export interface TicketedEventData {
  orderNo: string;
  /** 2: ticketed (as queryOrderDetails.do). */
  orderStatus: 2;
  /** These fields of queryOrderDetails.do's paxTicketInfos, one per passenger. */
  paxTicketInfos: Array<{
    /** LAST/FIRST, as sent to order.do. */
    name: string;
    /** 0 adult, 1 child, 2 infant. */
    passengerType: number;
    ticketNos: string[];
    airlinePNRs: string[];
    /** The seats and bags sold ([] if none), as queryOrderDetails.do lists them. */
    ancillaries: Array<Record<string, unknown>>;
  }>;
}

interface EventBase {
  /** The same on every retry of the event: de-duplicate on it. */
  eventId: string;
  /** Your client id. */
  cid: string;
  /** Always -1 (the original interface's internal field): never decide from it. */
  status: -1;
  /** When the status changed (ISO 8601 UTC, the service clock). */
  time: string;
  /** Grows with every event; within one refund or void, a later change has a larger number. */
  sequence: number;
}

export type RefundEvent = EventBase & { type: 'order.refund'; data: RefundEventData };
export type VoidEvent = EventBase & { type: 'order.void'; data: VoidEventData };
export type TicketedEvent = EventBase & { type: 'order.ticketed'; data: TicketedEventData };
export type WebhookEvent = RefundEvent | VoidEvent | TicketedEvent;

/** Request headers as a `Headers` object (fetch, edge runtimes) or a plain object (Node's `req.headers`, Express). */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookInput {
  /** The client's webhook secret (`whsec_…`, from updateWebhookURL.do or `postbook clients webhook`). */
  secret: string;
  headers: HeadersLike;
  /** The body exactly as received, before any JSON parsing (a string or its bytes). */
  body: string | Uint8Array;
  /** The deployment's HEADER_PREFIX (default `service`). */
  headerPrefix?: string;
  /** Oldest and newest timestamp accepted, in seconds either side of now (default 300): replays are refused. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch (default Date.now): the receiver's real time. */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: HeadersLike, name: string): string | null {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Equal length and content, in time that does not depend on where they differ. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * Checks a delivery's signature and timestamp and returns the parsed event; throws WebhookVerificationError
 * (with a `reason`) otherwise. Answer 2xx only after storing the event; skip an `eventId` already seen.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookEvent> {
  // empty: the service's own default, as the client's (its HEADER_PREFIX unset or blank reads 'service')
  const prefix = (input.headerPrefix?.trim() || 'service').toLowerCase();
  const tolerance = input.toleranceSeconds ?? 300;
  // NaN (a `Number()` of an unset variable) compared false with every age and turned the replay check off (found by a review)
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new PostbookClientError(`toleranceSeconds must be a finite number of seconds ≥ 0, got ${String(tolerance)}`);
  }
  if (!input.secret) throw new PostbookClientError('secret is required: the whsec_… secret updateWebhookURL.do answered');
  const timestamp = header(input.headers, `x-${prefix}-webhook-timestamp`);
  const signature = header(input.headers, `x-${prefix}-webhook-signature`);
  if (timestamp === null || signature === null) {
    throw new WebhookVerificationError('missing-header', `missing x-${prefix}-webhook-timestamp or x-${prefix}-webhook-signature`);
  }
  if (!/^\d{1,12}$/.test(timestamp.trim())) throw new WebhookVerificationError('stale-timestamp', 'the timestamp is not Unix seconds');
  // NaN, like a NaN tolerance, compared false with every age: refused (a review)
  if (input.now !== undefined && (typeof input.now !== 'number' || !Number.isFinite(input.now))) throw new PostbookClientError(`now must be a finite number of ms since the epoch, got ${String(input.now)}`);
  const now = (input.now ?? Date.now()) / 1000;
  if (Math.abs(now - Number(timestamp.trim())) > tolerance) {
    throw new WebhookVerificationError('stale-timestamp', `the timestamp is more than ${tolerance} s from now (a replay, or a clock off)`);
  }
  const given = signature.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(given)) throw new WebhookVerificationError('malformed-signature', 'the signature is not 64 hex digits');

  const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const head = encoder.encode(`${timestamp.trim()}.`);
  const signed = new Uint8Array(head.length + body.length);
  signed.set(head, 0);
  signed.set(body, head.length);
  // A browser page outside a secure context (http:// other than localhost) has no crypto.subtle.
  const subtle = (globalThis as { crypto?: typeof crypto }).crypto?.subtle;
  if (!subtle) throw new PostbookClientError('verifyWebhook needs Web Crypto (crypto.subtle): Node 20+, or a browser page served over https or from localhost');
  const key = await subtle.importKey('raw', encoder.encode(input.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await subtle.sign('HMAC', key, signed));
  if (!constantTimeEqual(expected, hexBytes(given))) throw new WebhookVerificationError('bad-signature', 'the signature does not match the body and the secret');

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('bad-body', 'the signed body is not JSON');
  }
  const e = event as Partial<WebhookEvent> | null;
  if (!e || typeof e !== 'object' || typeof e.eventId !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object') {
    throw new WebhookVerificationError('bad-body', 'the signed body is not a webhook event');
  }
  return event as WebhookEvent;
}
