// Shapes of the pure refund-rules engine: what goes in (ticket, rules, clock, rates) and the itemised quote out.
// Amounts inside are integer minor units per ISO 4217 (see src/money/money.ts).
import type { NowRange } from './now-range.js';

/** refundReason on the wire: '0' involuntary, '1' voluntary, '4' void. */
export type RefundReason = '0' | '1' | '4';

/** RefundRule.ruleType: 0 involuntary, 1 voluntary, 2 tax refund, 3 special (never automatic), 4 void. */
export type RuleType = '0' | '1' | '2' | '3' | '4';

export type PassengerType = 'ADT' | 'CHD' | 'INF';

export type RefundMethod = 'CashBackToOriginalPayment' | 'Voucher';

export type QuoteType = 'AccurateQuote' | 'CannotQuote';

export type AncillaryCategory =
  | 'StandardCheckInBaggage'
  | 'CabinBaggage'
  | 'CabinBaggageUnderSeat'
  | 'CabinBaggageOverheadLocker'
  | 'Seat'
  // Other categories are tolerated; they are refunded only if a rule lists them.
  | (string & {});

/**
 * Spec §2.8 RefundRule, as stored/received. Absent and null mean the same thing everywhere (edge cases):
 * absent booleans are false, absent amounts and percents count 0, absent window bounds are open.
 */
export interface RefundRule {
  airline: string;
  ruleType: RuleType;
  passengerType?: PassengerType | null;
  /** Monetary value with currency code, "EUR 50.00". */
  penaltyAmount?: string | null;
  /** Percent of the base (12.5 means 12.5 %). */
  penaltyPercent?: number | null;
  /** Absent means 'fare'. */
  penaltyPercentBase?: 'fare' | 'fare+tax' | null;
  /** Monetary value with currency code, "EUR 10.00". */
  airlineFee?: string | null;
  taxRefundable?: boolean | null;
  fareRefundable?: boolean | null;
  refundableAncillaries?: readonly AncillaryCategory[] | null;
  /** Minutes before departure (negative = after); the window is (endMinute, startMinute]. */
  startMinute?: number | null;
  endMinute?: number | null;
  /** Absent means CashBackToOriginalPayment. */
  refundMethod?: RefundMethod | null;
}

/** Ancillary bought in the booking flow together with the ticket (its price is part of RefundFareAmount). */
export interface InFlowAncillary {
  category: AncillaryCategory;
  priceMinor: number;
  currency: string;
}

/** Service bought after ticketing under its own order (listed in refundPostTicketingServiceAmounts). */
export interface PostTicketingService {
  postTicketingOrderNo: string;
  category: AncillaryCategory;
  priceMinor: number;
  currency: string;
}

export interface LocalDeparture {
  /** Airport-local scheduled departure of the ticket's first segment, 'yyyy-MM-dd HH:mm'. */
  local: string;
  /** IANA zone of the departure airport, e.g. 'Europe/Berlin'. */
  timeZone: string;
}

export interface TicketForQuote {
  ticketNo: string;
  /** 2-letter carrier whose rules apply. */
  carrier: string;
  passengerType: PassengerType;
  /** Currency of fare, tax and the quote. */
  currency: string;
  fareMinor: number;
  taxMinor: number;
  firstDeparture: LocalDeparture;
  ancillaries: readonly InFlowAncillary[];
  postTicketingServices: readonly PostTicketingService[];
}

/**
 * Currency conversion rates as decimal strings (or numbers), either a table keyed 'FROM->TO' ({ 'USD->EUR': '0.92' })
 * or a function returning the rate (undefined/null when none). Only direct rates are used: the inverse of 'EUR->USD'
 * is not derived, because inverting introduces a rounding choice the rate's owner did not make.
 */
export type Rates =
  | Readonly<Record<string, string | number>>
  | ((from: string, to: string) => string | number | null | undefined);

export interface RuleWindow {
  startMinute: number | null;
  endMinute: number | null;
}

export interface AppliedRule {
  rule: RefundRule;
  /** Position in the `rules` list that was passed in. */
  index: number;
}

export interface AncillaryRefund {
  category: AncillaryCategory;
  /** Price as paid, in `currency`. */
  priceMinor: number;
  currency: string;
  /** Refund in the quote (ticket) currency; 0 when not refundable. */
  refundMinor: number;
}

export interface PostTicketingRefund {
  postTicketingOrderNo: string;
  category: AncillaryCategory;
  /** The service order's own currency (post-ticketing amounts are never converted). */
  currency: string;
  originalMinor: number;
  refundMinor: number;
}

export interface TicketQuoteInput {
  ticket: TicketForQuote;
  rules: readonly RefundRule[];
  reason: RefundReason;
  now: Date;
  rates: Rates;
  /** false: leave `reasons` empty and skip building its text (the service's hot path; default true). */
  explain?: boolean;
  /** Narrowed to the instants at which the clock's readings give what they gave at `now` (NowRange: decision 0067). */
  nowRange?: NowRange;
}

export interface TicketQuote {
  ticketNo: string;
  carrier: string;
  passengerType: PassengerType;
  reason: RefundReason;
  quoteType: QuoteType;
  isRefundable: boolean;
  refundMethod: RefundMethod;
  /** ISO instant of the first departure after time-zone conversion. */
  departureUtc: string;
  minutesToDeparture: number;
  appliedRule: AppliedRule | null;
  window: RuleWindow | null;
  fallbackToTaxRule: boolean;
  /** Quote currency = ticket currency. */
  currency: string;
  /** As paid (not zeroed by CannotQuote: these are originals, not estimates). */
  fareMinor: number;
  taxMinor: number;
  /** In-flow ancillaries as paid, in the quote currency; null when one in another currency has no rate. */
  ancillaryPaidMinor: number | null;
  refundableMinor: number;
  penaltyMinor: number;
  airlineFeeMinor: number;
  ticketRefundMinor: number;
  ancillaryRefunds: AncillaryRefund[];
  postTicketingRefunds: PostTicketingRefund[];
  /** ticketRefundMinor + Σ ancillaryRefunds[].refundMinor (post-ticketing refunds are separate). */
  totalRefundMinor: number;
  /** The arithmetic step by step, as text (empty when the input said explain: false). */
  reasons: string[];
}

export interface AirlineTerms {
  confirmationDays: number;
  refundDays: number;
  fastConfirmation: boolean;
}

export interface MoneyMinor {
  currency: string;
  minor: number;
}

export interface RequestQuoteInput {
  /** `passenger`: whose ticket it is (a passenger may hold several: the fee is per passenger); absent, each ticket its own. */
  items: readonly { ticket: TicketForQuote; reason: RefundReason; passenger?: string }[];
  rules: readonly RefundRule[];
  now: Date;
  rates: Rates;
  airlineTerms: AirlineTerms;
  /** The client's configured transaction fee per refunded passenger. */
  serviceFeePerPassenger: MoneyMinor;
  /** Zone whose calendar gives "today" for the expected dates; default 'UTC'. */
  calendarZone?: string;
  /** false: no per-ticket `reasons` text (see TicketQuoteInput.explain). */
  explain?: boolean;
  /** As TicketQuoteInput.nowRange, for every ticket's readings and the calendar's. */
  nowRange?: NowRange;
}

export interface CurrencyTotal {
  currency: string;
  fareMinor: number;
  taxMinor: number;
  /** null when some in-flow ancillary could not be converted (see TicketQuote.ancillaryPaidMinor). */
  ancillaryPaidMinor: number | null;
  /** Estimated refund: Σ ticket totals (0 for a CannotQuote request). */
  refundMinor: number;
}

export interface PostTicketingTotal {
  currency: string;
  originalMinor: number;
  refundMinor: number;
}

export interface VoucherEstimate {
  airline: string;
  currency: string;
  valueMinor: number;
}

export interface RequestQuote {
  quoteType: QuoteType;
  isRefundable: boolean;
  /** ticketNos whose quote is not refundable (submitting → 808). */
  nonRefundableTickets: string[];
  refundMethod: RefundMethod;
  tickets: TicketQuote[];
  totals: CurrencyTotal[];
  postTicketingTotals: PostTicketingTotal[];
  /** One per airline and currency when refundMethod is Voucher, else null. */
  vouchers: VoucherEstimate[] | null;
  serviceFee: { currency: string; transactionFeeMinor: number; passengers: number };
  fastConfirmation: 0 | 1;
  expectedConfirmationDate: string;
  expectedRefundDate: string;
  /** The carriers' rules for the passenger types in the request (generic ones included), in list order. */
  refundRules: RefundRule[];
}

export type RequestQuoteResult =
  | { ok: true; quote: RequestQuote }
  | {
      ok: false;
      /** 810: tickets resolving to different refund methods cannot share one request. */
      status: 810;
      msg: string;
      methods: { ticketNo: string; refundMethod: RefundMethod }[];
      tickets: TicketQuote[];
    };
