// Row types of every table, as Kysely sees them. Keep in step with migrations/.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
/** jsonb: written as a JSON string (portable across pg and PGlite), read back parsed. */
type Json<T> = ColumnType<T, string, string>;

export interface ClientSettings {
  /** Refund transaction fee charged per refunded passenger, e.g. "EUR 5.00". */
  refundServiceFee?: string;
  [key: string]: unknown;
}

export interface ClientsTable {
  client_id: string;
  name: string;
  secret_hash: string;
  /** Previous secret, valid until previous_secret_expires_at (rotation grace period). */
  previous_secret_hash: string | null;
  previous_secret_expires_at: Timestamp | null;
  status: ColumnType<'active' | 'disabled', 'active' | 'disabled' | undefined, 'active' | 'disabled'>;
  settings: Json<ClientSettings>;
  /** Where the client's webhook events go (migration 0009); null: no deliveries. */
  webhook_url: ColumnType<string | null, string | null | undefined, string | null>;
  /** The webhook signing secret, encrypted (src/webhooks/secret.ts). */
  webhook_secret: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export type OrderStatus = '0' | '1' | '2' | '-3';
export type OrderSource = 'claim' | 'booking';
export const PAYMENT_METHOD_NAMES = ['deposit', 'virtualCard', 'ownAccount', 'merchant'] as const;
export type PaymentMethod = (typeof PAYMENT_METHOD_NAMES)[number];

export interface OrdersTable {
  order_no: string;
  client_id: string;
  source: OrderSource;
  status: OrderStatus;
  carrier: string;
  airline_pnr: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  payment_method: PaymentMethod | null;
  currency: string;
  /** fares + taxes + in-flow ancillaries, minor units */
  total_minor: ColumnType<number, number | bigint, number | bigint>;
  ticketed_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** Moved by triggers on every write to what a refund decision reads of the order (migration 0016, decision 0030). */
  ctx_version: Generated<number>;
}

export type PassengerType = 'ADT' | 'CHD' | 'INF';

export interface OrderPassengersTable {
  order_no: string;
  /** 1-based position on the order */
  pax_index: number;
  passenger_type: PassengerType;
  last_name: string;
  first_name: string;
  birthday: string | null;
  gender: string | null;
  document_type: string | null;
  document_number: string | null;
  document_expiry: string | null;
  document_issue_place: string | null;
  nationality: string | null;
}

export interface OrderSegmentsTable {
  order_no: string;
  /** 1-based, outbound then inbound */
  segment_index: number;
  direction: 'out' | 'ret';
  carrier: string;
  flight_number: string;
  dep_airport: string;
  arr_airport: string;
  /** airport-local wall time 'yyyy-MM-dd HH:mm', as booked */
  dep_local: string;
  arr_local: string;
  dep_at: Timestamp;
  arr_at: Timestamp;
  cabin_class: number | null;
  fare_family: string | null;
  operating_carrier: string | null;
  operating_flight_number: string | null;
  /** IANA zone of the departure airport (refund windows are airport-local). */
  dep_time_zone: string | null;
  /** 'yyyy-MM-dd HH:mm' as first booked, when the airline changed the schedule since. */
  booked_dep_local: string | null;
}

export type CouponStatus = 'OPEN_FOR_USE' | 'USED' | 'REFUND' | 'NOSHOW' | 'UNKNOWN';

export interface TicketsTable {
  ticket_no: string;
  order_no: string;
  pax_index: number;
  currency: string;
  fare_minor: ColumnType<number, number | bigint, number | bigint>;
  tax_minor: ColumnType<number, number | bigint, number | bigint>;
  issued_at: Timestamp | null;
  tax_status_confirmed: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface TicketCouponsTable {
  ticket_no: string;
  segment_index: number;
  status: CouponStatus;
}

export interface OrderAncillariesTable {
  id: Generated<number>;
  order_no: string;
  pax_index: number;
  segment_index: number | null;
  /** inflow = bought with the ticket; post = a post-ticketing service order */
  kind: 'inflow' | 'post';
  category: string;
  product_code: string | null;
  post_order_no: string | null;
  currency: string;
  price_minor: ColumnType<number, number | bigint, number | bigint>;
  details: Json<Record<string, unknown>>;
}

export interface IdempotencyKeysTable {
  client_id: string;
  endpoint: string;
  idem_key: string;
  request_hash: string;
  http_status: number;
  response: Json<unknown>;
  created_at: CreatedAt;
  /** The key's first claim, kept through take-overs of an abandoned request (migration 0040); null before one. */
  resumed_from: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export type RefundReasonCode = '0' | '1' | '4';
type Minor = ColumnType<number, number | bigint, number | bigint>;

export interface RefundOffersTable {
  offer_id: string;
  client_id: string;
  order_no: string;
  reason: RefundReasonCode;
  ticket_nos: string[];
  request: Json<unknown>;
  quote: Json<unknown>;
  /**
   * As stored: 'active' until used. Whether an active offer is superseded is derived (decision 0019,
   * OFFER_STATE_SQL in src/refunds/offers.ts); 'superseded' is only found in rows written before that.
   */
  status: 'active' | 'used' | 'superseded';
  expires_at: Timestamp;
  created_at: Timestamp;
  used_at: Timestamp | null;
  /** Write order of the offers (identity): a later offer of the same order sharing a ticket supersedes. */
  seq: Generated<string>;
}

export interface RefundOrdersTable {
  refund_code: string;
  client_id: string;
  order_no: string;
  /** The order's airline (migration 0025: the counts per airline are kept by trigger; filled from the order when not given). */
  carrier: ColumnType<string, string | undefined, string>;
  offer_id: string;
  reason: RefundReasonCode;
  status: number;
  path: 'deposit' | 'card';
  quote_type: 'AccurateQuote' | 'CannotQuote';
  refund_method: 'CashBackToOriginalPayment' | 'Voucher';
  currency: string;
  estimated_refund_minor: Minor;
  actual_refund_minor: Minor | null;
  post_refund_minor: Minor;
  service_fee_currency: string;
  service_fee_minor: Minor;
  display_currency: string | null;
  /**
   * What the refund adds to its quote (the airline's outcome once refunded, RefundOutcome); refunds stored before
   * decision 0053 hold their whole priced quote here too, the others' is their used offer's (refundQuote).
   */
  details: Json<unknown>;
  /** The quote's two dates, for the console's queue (migration 0043; null before it: the quote in `details` has them). */
  expected_confirmation_date: string | null;
  expected_refund_date: string | null;
  /** The quote's tickets in its order and their paid total, for the 0 → 1 batch read (migration 0043; null before it). */
  ticket_nos: string[] | null;
  paid_minor: Minor | null;
  cancel_reason: string | null;
  airline_refund_id: string | null;
  completed_on: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * When the lifecycle's sweep next calls the airline about the refund: at 0 to submit it (migration 0028, decision
   * 0035), at 1 or 3 to look at it (migration 0027, decision 0034); null: nobody will (its attempts gave up).
   */
  next_poll_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Calls at the airline in a row that failed, submissions at 0 or looks at 1 and 3 (0 after one that answered). */
  poll_failures: Generated<number>;
  /** The last failed call's message, or null. */
  poll_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface RefundTicketsTable {
  refund_code: string;
  ticket_no: string;
  pax_index: number;
  live: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface RefundStatusHistoryTable {
  id: Generated<number>;
  refund_code: string;
  from_status: number | null;
  to_status: number;
  at: Timestamp;
  cause: string;
}

/** The one sandbox clock of all processes (migration 0013): its offset from the real time. */
export interface SandboxClockTable {
  one: ColumnType<boolean, never, never>;
  offset_ms: ColumnType<number, number | bigint, number | bigint>;
  moved_at: Timestamp | null;
}

/** The sandbox airline's refund books (migration 0003): written only by airline/sandbox. */
export interface SandboxRefundsTable {
  refund_code: string;
  carrier: string;
  pnr: string;
  ticket_nos: Json<string[]>;
  reason: '0' | '1' | '4';
  currency: string;
  paid_minor: ColumnType<number, number | bigint, number | bigint>;
  quoted_refund_minor: ColumnType<number | null, number | bigint | null, number | bigint | null>;
  is_claim: boolean;
  airline_refund_id: string;
  /** How many times submitRefund was called with this refundCode. */
  submit_calls: ColumnType<number, number | undefined, number>;
  submitted_at: Timestamp;
  last_submitted_at: Timestamp;
  decision: 'accept' | 'reject' | 'withdraw';
  cancel_reason: string | null;
  processing_seconds: number;
  /** What the airline pays when it accepts. */
  refund_minor: ColumnType<number | null, number | bigint | null, number | bigint | null>;
  voucher: boolean;
  /** When postbook withdrew the refund (withdrawRefund, while the airline was still processing it); null: not withdrawn. */
  withdrawn_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface Database {
  clients: ClientsTable;
  orders: OrdersTable;
  order_passengers: OrderPassengersTable;
  order_segments: OrderSegmentsTable;
  tickets: TicketsTable;
  ticket_coupons: TicketCouponsTable;
  order_ancillaries: OrderAncillariesTable;
  idempotency_keys: IdempotencyKeysTable;
  refund_offers: RefundOffersTable;
  refund_orders: RefundOrdersTable;
  refund_tickets: RefundTicketsTable;
  refund_status_history: RefundStatusHistoryTable;
  sandbox_refunds: SandboxRefundsTable;
  booking_sessions: BookingSessionsTable;
  booking_orders: BookingOrdersTable;
  booking_attempts: BookingAttemptsTable;
  sandbox_bookings: SandboxBookingsTable;
  sandbox_seat_sales: SandboxSeatSalesTable;
  sandbox_seat_versions: SandboxSeatVersionsTable;
  sandbox_clock: SandboxClockTable;
  webhook_events: WebhookEventsTable;
  webhook_attempts: WebhookAttemptsTable;
  void_offers: VoidOffersTable;
  void_orders: VoidOrdersTable;
  void_status_history: VoidStatusHistoryTable;
  operators: OperatorsTable;
  console_sessions: ConsoleSessionsTable;
  audit_log: AuditLogTable;
  console_cases: ConsoleCasesTable;
  console_login_failures: ConsoleLoginFailuresTable;
  console_queue_counts: ConsoleQueueCountsTable;
}

/** voidQuotation.do answers (migration 0011): only the newest (largest seq) of an order can be submitted, once. */
export interface VoidOffersTable {
  offer_id: string;
  seq: Generated<string>;
  client_id: string;
  order_no: string;
  quote: Json<unknown>;
  expires_at: Timestamp;
  created_at: Timestamp;
  used_at: Timestamp | null;
}

/** A void order (migration 0011); status is voidStatus 0–6 (docs/voids.md). Never a refund order. */
export interface VoidOrdersTable {
  void_code: string;
  client_id: string;
  order_no: string;
  /** The order's airline (migration 0025, as refund_orders.carrier). */
  carrier: ColumnType<string, string | undefined, string>;
  offer_id: string;
  status: number;
  path: 'deposit' | 'card';
  currency: string;
  void_amount_minor: Minor;
  actual_refund_minor: Minor | null;
  ticket_nos: string[];
  /** `{}`: the quote is the used offer's (decision 0058); voids stored before hold their whole quote (VoidQuote) here. */
  details: Json<unknown>;
  /** The quote's two dates, for the console's queue (migration 0045; null before it: `details` has them). */
  expected_confirmation_date: ColumnType<string | null, string | null | undefined, string | null>;
  expected_refund_date: ColumnType<string | null, string | null | undefined, string | null>;
  cancel_reason: string | null;
  airline_void_id: string | null;
  completed_on: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /**
   * When the lifecycle's sweep next sends the void (0) or looks at it (1, 3); null once final (migration 0030,
   * decision 0045). Defaults to '-infinity', due at once, which both drivers read as the number -Infinity.
   */
  next_step_at: ColumnType<Date | number | null, Date | string | null | undefined, Date | string | null>;
  /** Failed airline calls in a row of the current step, and the last one's message. */
  step_failures: ColumnType<number, number | undefined, number>;
  step_error: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface VoidStatusHistoryTable {
  id: Generated<number>;
  void_code: string;
  from_status: number | null;
  to_status: number;
  at: Timestamp;
  cause: string;
}

// ---- webhooks (migration 0009) ----

export type WebhookEventState = 'pending' | 'delivered' | 'failed';

/** The outbox: written by a trigger on refund_status_history, read and settled by src/webhooks/. */
export interface WebhookEventsTable {
  id: Generated<number>;
  event_id: Generated<string>;
  client_id: string;
  /** 'order.refund' (later 'order.void') */
  type: string;
  /** refundCode (later voidCode): events of one subject are delivered in id order */
  subject: string;
  order_no: string;
  from_status: number | null;
  to_status: number;
  cancel_reason: string | null;
  data: Json<Record<string, unknown>>;
  occurred_at: Timestamp;
  state: ColumnType<WebhookEventState, WebhookEventState | undefined, WebhookEventState>;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  delivered_at: Timestamp | null;
  last_error: string | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: number;
  attempt: number;
  url: string;
  started_at: Timestamp;
  duration_ms: number;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export type ClientRow = Selectable<ClientsTable>;
export type OrderRow = Selectable<OrdersTable>;
export type NewOrder = Insertable<OrdersTable>;
export type OrderUpdate = Updateable<OrdersTable>;

// ---- booking chain (migration 0004) ----

export interface BookingSessionsTable {
  id: string;
  client_id: string;
  kind: 'search' | 'verify' | 'offer';
  carrier: string;
  flight_key: string;
  itinerary: Json<unknown>;
  pax: Json<{ adults: number; children: number; infants: number }>;
  expires_at: Timestamp;
  created_at: Timestamp;
}

export interface BookingOrdersTable {
  order_no: string;
  client_id: string;
  session_id: string;
  /** postbook's own booking reference: the wire's pnrCode (migration 0010). */
  booking_ref: string;
  payment_deadline: Timestamp;
  /** expired: the deadline passed unpaid (migration 0010; docs/decisions/0023). */
  pay_state: 'unpaid' | 'paying' | 'paid' | 'expired';
  /** When the payment began, while 'paying' (migration 0031); the expiry sweep settles one that stays too long. */
  paying_since: ColumnType<Date | number | null, Date | string | null | undefined, Date | string | null>;
  payment_method: string | null;
  card_last4: string | null;
  fee_minor: ColumnType<number, number | bigint, number | bigint>;
  details: Json<unknown>;
  created_at: Timestamp;
  paid_at: Timestamp | null;
  /** When the expiry sweep asks the airline to release an expired order's hold next; null: released, or nothing to release (migration 0036). */
  release_next_try_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The releases the airline did not answer (migration 0036). */
  release_tries: ColumnType<number, number | undefined, number>;
}

/**
 * An order.do's airline booking from before the airline is called until its order row is written (migration
 * 0032, decision 0046): the expiry sweep releases the hold of one that outlives an airline call.
 */
export interface BookingAttemptsTable {
  order_no: string;
  client_id: string;
  carrier: string;
  /** The BookingRequest as sent (its idempotency key is order_no). */
  request: Json<unknown>;
  started_at: Timestamp;
  /** When the expiry sweep takes it up (decision 0046): an airline call's time after it began, then backing off. */
  next_try_at: Timestamp;
  /** The sweep's attempts that the airline did not answer. */
  tries: ColumnType<number, number | undefined, number>;
  /** Set when the attempt was taken to be released: the order's transaction no longer records it. */
  recovering_since: Timestamp | null;
}

/** The sandbox airline's bookings made through the booking chain: written only by airline/sandbox. */
export interface SandboxBookingsTable {
  carrier: string;
  pnr: string;
  booking_key: string;
  status: 'OnHold' | 'Ticketed' | 'Cancelled';
  booking: Json<unknown>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface SandboxSeatSalesTable {
  flight_key: string;
  seat: string;
  carrier: string;
  pnr: string;
  sold_at: Timestamp;
}

// ---- seat inventory versions (migration 0006) ----

export interface SandboxSeatVersionsTable {
  flight_key: string;
  version: number;
}

// ---- the operator console (migration 0015) ----

export type OperatorRole = 'viewer' | 'agent' | 'admin';

export interface OperatorsTable {
  operator_id: string;
  /** lower case */
  login: string;
  password_hash: string;
  role: OperatorRole;
  disabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  last_login_at: Timestamp | null;
}

export interface ConsoleSessionsTable {
  /** SHA-256 of the cookie's token, hex */
  token_hash: string;
  operator_id: string;
  csrf_token: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface AuditLogTable {
  id: Generated<number>;
  operator_id: string;
  operator_login: string;
  at: Timestamp;
  action: string;
  target: string;
  before: ColumnType<unknown, string | null, string | null>;
  after: ColumnType<unknown, string | null, string | null>;
}

export type ConsoleCaseStatus = 'pending' | 'approved' | 'rejected';

/** A refund.do request answered 825, waiting for an agent's decision (decision 0029). */
export interface ConsoleCasesTable {
  case_id: string;
  client_id: string;
  order_no: string;
  request: Json<unknown>;
  request_hash: string;
  status: ColumnType<ConsoleCaseStatus, ConsoleCaseStatus | undefined, ConsoleCaseStatus>;
  refund_code: string | null;
  cancel_reason: string | null;
  decided_by: string | null;
  decided_at: Timestamp | null;
  created_at: Timestamp;
}

/** A failed console login (migration 0017): one row per failure and key, kept for the throttle's window. */
export interface ConsoleLoginFailuresTable {
  id: Generated<number>;
  /** SHA-256 of `login:<name>` or `ip:<address>`, hex */
  key_hash: string;
  at: Timestamp;
}

/** Refunds and voids per status (migration 0018) and airline (0025), maintained by triggers; a count is the sum over its slots. */
export interface ConsoleQueueCountsTable {
  kind: 'refund' | 'void';
  status: number;
  /** The airline (migration 0025): /metrics' refunds per status and airline. */
  carrier: string;
  slot: number;
  n: ColumnType<number, number | bigint, number | bigint>;
}
