// Wire schemas of refundQuotation.do, refund.do and queryRefundOrders.do (spec 2.1–2.11, 4.1–4.3).
import Type, { type Static } from 'typebox';
import { Nullable, OrNull } from '../wire.js';
import type { RefundRule } from './engine/index.js';

const Code3 = Type.String({ pattern: '^[A-Za-z]{3}$' });

// ---- requests ----

export const RefundSegment = Type.Object({
  depDate: Type.String({ pattern: '^\\d{8}$', format: 'yyyyMMdd', description: 'yyyyMMdd' }),
  flightNo: Type.String({ minLength: 1, maxLength: 8, pattern: '^[A-Za-z0-9]+$' }),
  depAirport: Code3,
  arrAirport: Code3,
});

export const RefundRequestItem = Type.Object({
  lastName: Type.String({ minLength: 1, maxLength: 60 }),
  firstName: Type.String({ minLength: 1, maxLength: 60 }),
  segments: Type.Array(RefundSegment, { minItems: 1, maxItems: 16 }),
  // Any text is accepted by the schema so that unsupported reasons get their own message (spec 1 rule 1).
  refundReason: Type.String({ maxLength: 8, description: "'0' involuntary, '1' voluntary, '4' void" }),
});
export type RefundRequestItem = Static<typeof RefundRequestItem>;

const OrderRef = {
  orderNo: Nullable(Type.String({ minLength: 1, maxLength: 40 })),
  airlinePNR: Nullable(Type.String({ minLength: 1, maxLength: 8 })),
  carrier: Nullable(Type.String({ pattern: '^[A-Za-z0-9]{2}$' })),
};

export const RefundQuotationRequest = Type.Object({
  ...OrderRef,
  refundRequestList: Type.Array(RefundRequestItem, { minItems: 1, maxItems: 99 }),
});
export type RefundQuotationRequest = Static<typeof RefundQuotationRequest>;

export const RefundSubmitRequest = Type.Object({
  ...OrderRef,
  displayCurrency: Nullable(Code3),
  refundOfferId: Nullable(Type.String({ minLength: 1, maxLength: 64 })),
  refundRequestList: Nullable(Type.Array(RefundRequestItem, { minItems: 1, maxItems: 99 })),
});
export type RefundSubmitRequest = Static<typeof RefundSubmitRequest>;

export const QueryRefundOrdersRequest = Type.Object({
  ...OrderRef,
  refundCode: Nullable(Type.String({ minLength: 1, maxLength: 40 })),
  displayCurrency: Nullable(Code3),
});
export type QueryRefundOrdersRequest = Static<typeof QueryRefundOrdersRequest>;

// ---- response parts ----

export const RefundTicket = Type.Object({ lastName: Type.String(), firstName: Type.String(), ticketNo: Type.String() });

export const RefundFareAmount = Type.Object({
  currency: Type.String(),
  originalFareAmount: Type.Number(),
  estimatedRefundAmount: Type.Number(),
  displayOriginalFareAmount: OrNull(Type.Number()),
  displayEstimatedRefundAmount: OrNull(Type.Number()),
});

export const RefundPostTicketingServiceAmount = Type.Object({
  postTicketingOrderNo: Type.String(),
  currency: Type.String(),
  originalPostTicketingServiceAmount: Type.Number(),
  estimatedRefundAmount: Type.Number(),
  displayPostTicketingServiceAmount: OrNull(Type.Number()),
  displayEstimatedRefundAmount: OrNull(Type.Number()),
});

export const RefundVoucher = Type.Object({
  voucherId: OrNull(Type.String()),
  voucherCode: OrNull(Type.String()),
  eligiblePassengers: OrNull(Type.Array(Type.Object({ name: OrNull(Type.String()) }))),
  airline: OrNull(Type.String()),
  estimatedRefundAmount: Type.Number(),
  currency: Type.String(),
  voucherStartDate: OrNull(Type.String()),
  voucherEndDate: OrNull(Type.String()),
  travelStartDate: OrNull(Type.String()),
  travelEndDate: OrNull(Type.String()),
  note: OrNull(Type.String()),
});

export const ServiceFeeQuote = Type.Object({ currency: Type.String(), transactionFee: Type.Number() });
export const ServiceFee = Type.Object({ currency: Type.String(), transactionFee: Type.Number(), displayTransactionFee: OrNull(Type.Number()) });

export const RefundRuleWire = Type.Object({
  airline: Type.String(),
  ruleType: Type.Enum(['0', '1', '2', '3', '4'] as const),
  passengerType: Type.Optional(Type.Enum(['ADT', 'CHD', 'INF'] as const)),
  penaltyAmount: Type.Optional(Type.String()),
  penaltyPercent: Type.Optional(Type.Number()),
  penaltyPercentBase: Type.Optional(Type.Enum(['fare', 'fare+tax'] as const)),
  airlineFee: Type.Optional(Type.String()),
  taxRefundable: Type.Optional(Type.Boolean()),
  fareRefundable: Type.Optional(Type.Boolean()),
  refundableAncillaries: Type.Optional(Type.Array(Type.String())),
  startMinute: Type.Optional(Type.Integer()),
  endMinute: Type.Optional(Type.Integer()),
  refundMethod: Type.Optional(Type.Enum(['CashBackToOriginalPayment', 'Voucher'] as const)),
});
export type RefundRuleWire = Static<typeof RefundRuleWire>;
/** The wire shape of a rule is the engine's RefundRule (refunds/engine/types.ts), the one declaration: checked here. */
export type RuleWireIsEngineRule = RefundRuleWire extends RefundRule ? true : never;
const _ruleWireIsEngineRule: RuleWireIsEngineRule = true;

const QuoteType = Type.Enum(['AccurateQuote', 'CannotQuote'] as const);
const Method = Type.Enum(['CashBackToOriginalPayment', 'Voucher'] as const);

const QuoteFields = {
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  fastConfirmation: Type.Enum([0, 1] as const),
  expectedConfirmationDate: Type.String(),
  expectedRefundDate: Type.String(),
  refundQuoteType: QuoteType,
  refundOfferId: Type.String(),
  refundMethod: Method,
  refundTickets: Type.Array(RefundTicket),
  refundFareAmount: OrNull(RefundFareAmount),
  refundPostTicketingServiceAmounts: OrNull(RefundPostTicketingServiceAmount),
  refundVouchers: OrNull(Type.Array(RefundVoucher)),
  refundRules: Type.Array(RefundRuleWire),
  orderNo: Type.String(),
  isRefundable: Type.Boolean(),
};

/** spec 2.9 without the submit-only fields */
export const RefundQuotationResponse = Type.Object({ ...QuoteFields, serviceFee: ServiceFeeQuote });
export type RefundQuotationResponse = Static<typeof RefundQuotationResponse>;

/** spec 2.9 with refundStatus and refundCode */
export const RefundSubmitResponse = Type.Object({
  ...QuoteFields,
  serviceFee: ServiceFee,
  displayCurrency: OrNull(Type.String()),
  refundStatus: Type.Integer({ minimum: 0, maximum: 6 }),
  refundCode: Type.String(),
  cancelReason: OrNull(Type.String()),
  refundReason: OrNull(Type.Enum(['0', '1', '4'] as const)),
});
export type RefundSubmitResponse = Static<typeof RefundSubmitResponse>;

/** spec 2.10 */
export const RefundOrderWire = Type.Object({
  orderNo: Type.String(),
  refundCode: Type.String(),
  displayCurrency: OrNull(Type.String()),
  expectedConfirmationDate: Type.String(),
  expectedRefundDate: Type.String(),
  refundQuoteType: QuoteType,
  refundTickets: Type.Array(RefundTicket),
  refundFareAmount: OrNull(RefundFareAmount),
  refundPostTicketingServiceAmounts: OrNull(Type.Array(RefundPostTicketingServiceAmount)),
  refundVouchers: OrNull(Type.Array(RefundVoucher)),
  serviceFee: ServiceFee,
  refundRules: Type.Array(RefundRuleWire),
  refundStatus: Type.Integer({ minimum: 0, maximum: 6 }),
  refundOfferId: Type.String(),
  refundMethod: Method,
  cancelReason: OrNull(Type.String()),
});
export type RefundOrderWire = Static<typeof RefundOrderWire>;

export const QueryRefundOrdersResponse = Type.Object({
  refundOrders: Type.Array(RefundOrderWire),
  status: Type.Integer(),
  msg: OrNull(Type.String()),
});
export type QueryRefundOrdersResponse = Static<typeof QueryRefundOrdersResponse>;
