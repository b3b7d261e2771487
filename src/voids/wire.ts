// Wire schemas of voidQuotation.do, void.do and queryVoidOrders.do (docs/voids.md; the fields the original's
// guides name, docs/plans/original-chain.md §3.10, and the rest decided in docs/decisions/0025).
import Type, { type Static } from 'typebox';
import { Nullable } from '../wire.js';

// Optional strings accept "" as absent (decision 0021): no minLength on them.
const OrderRef = {
  orderNo: Nullable(Type.String({ maxLength: 40, description: 'the main ticket order number' })),
  airlinePNR: Nullable(Type.String({ maxLength: 8, description: 'with carrier, instead of orderNo' })),
  carrier: Nullable(Type.String({ pattern: '^([A-Za-z0-9]{2})?$' })),
};

export const VoidPassenger = Type.Object({
  lastName: Type.String({ minLength: 1, maxLength: 60 }),
  firstName: Type.String({ minLength: 1, maxLength: 60 }),
});

export const VoidQuotationRequest = Type.Object({
  ...OrderRef,
  passengers: Nullable(
    Type.Array(VoidPassenger, {
      maxItems: 99,
      description: 'optional: the passengers the caller means to void; a void covers the whole order, so a list without every passenger answers 823',
    }),
  ),
});
export type VoidQuotationRequest = Static<typeof VoidQuotationRequest>;

export const VoidSubmitRequest = Type.Object({
  ...OrderRef,
  voidOfferId: Nullable(Type.String({ maxLength: 64, description: 'the latest voidQuotation.do answer of the order (required)' })),
});
export type VoidSubmitRequest = Static<typeof VoidSubmitRequest>;

export const QueryVoidOrdersRequest = Type.Object({
  ...OrderRef,
  voidCode: Nullable(Type.String({ maxLength: 40 })),
});
export type QueryVoidOrdersRequest = Static<typeof QueryVoidOrdersRequest>;

export const VoidWindow = Type.Object({
  sameDayDeadlineTime: Type.String({ description: "last moment of the void window, 'yyyy-MM-dd HH:mm:ss' wall time in sameDayTimezone" }),
  sameDayTimezone: Type.String({ description: 'IANA zone of the airline the deadline is counted in' }),
});

const VoidMethod = Type.Literal('CashBackToOriginalPayment');

const Common = {
  orderNo: Type.String(),
  voidMethod: VoidMethod,
  currency: Type.String(),
  voidAmount: Type.Number({ description: 'what the void gives back: the tickets (fare + tax) and the bags and seats bought with them' }),
  ticketNos: Type.Array(Type.String()),
  expectedConfirmationDate: Type.String({ description: 'yyyyMMdd' }),
  expectedRefundDate: Type.String({ description: 'yyyyMMdd' }),
  voidWindow: VoidWindow,
};

export const VoidQuotationResponse = Type.Object({
  status: Type.Integer(),
  msg: Type.String(),
  isVoidable: Type.Boolean(),
  voidOfferId: Type.String(),
  voidOfferExpireTime: Type.String({ description: 'ISO 8601 UTC: void.do refuses the voidOfferId afterwards (805)' }),
  ...Common,
});
export type VoidQuotationResponse = Static<typeof VoidQuotationResponse>;

export const VoidSubmitResponse = Type.Object({
  status: Type.Integer(),
  msg: Type.String(),
  voidCode: Type.String(),
  voidOfferId: Type.String(),
  voidStatus: Type.Integer(),
  ...Common,
});
export type VoidSubmitResponse = Static<typeof VoidSubmitResponse>;

export const VoidOrderWire = Type.Object({
  voidCode: Type.String(),
  voidOfferId: Type.String(),
  voidStatus: Type.Integer({ description: '0 processing by the service, 1 airline processing, 2 voided, 3 airline voiding, 4 rejected, 5 completed, 6 withdrawn' }),
  cancelReason: Type.Union([Type.String(), Type.Null()]),
  actualRefundAmount: Type.Union([Type.Number(), Type.Null()], { description: 'what the airline gave back, once it did' }),
  createdTime: Type.String({ description: 'ISO 8601 UTC' }),
  updatedTime: Type.String({ description: 'ISO 8601 UTC, the last status change' }),
  completedDate: Type.Union([Type.String(), Type.Null()], { description: 'yyyyMMdd the void reached 2 or 5' }),
  ...Common,
});
export type VoidOrderWire = Static<typeof VoidOrderWire>;

export const QueryVoidOrdersResponse = Type.Object({
  status: Type.Integer(),
  msg: Type.String(),
  voidOrders: Type.Array(VoidOrderWire, { description: 'newest first' }),
});
export type QueryVoidOrdersResponse = Static<typeof QueryVoidOrdersResponse>;
