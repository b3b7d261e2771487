// voidStatus of a void order (docs/voids.md "Statuses"): the same 0–6 scale as refundStatus (spec 3.1), named
// for voids. The endpoint statuses are the refund family's (spec 7.1): src/refunds/statuses.ts.
export { REFUND_STATUS as VOID_STATUS } from '../refunds/statuses.js';

export const VOID_ORDER_STATUS = {
  /** Recorded by postbook, not yet sent to the airline. */
  PROCESSING: 0,
  /** Sent to the airline, which is processing it. */
  AIRLINE_PROCESSING: 1,
  /** Voided and refunded (deposit). */
  VOIDED: 2,
  /** Voided by the airline, money under way (deposit). */
  AIRLINE_VOIDING: 3,
  REJECTED: 4,
  /** Voided and refunded to the original payment (virtual card). */
  COMPLETED: 5,
  /** Withdrawn: never reached by a void today (the scale is shared with refunds). */
  WITHDRAWN: 6,
} as const;

/** Why a void ended rejected when the airline gave no reason of its own. */
export const VOID_CANCEL_REASON = {
  UNREACHABLE: 'the airline could not be reached in time; the order was not voided, request a refund instead',
  /** The airline refused the void and said no more (a ConnectorError without a reason of its own). */
  REFUSED: 'the airline refused the void; the order was not voided, request a refund instead',
} as const;
