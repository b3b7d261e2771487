// Status codes of the refund endpoints (spec 7.1), the refund order's own statuses (refundStatus, spec 3.1)
// and the cancelReason texts (spec 2.11).
export const REFUND_STATUS = {
  OK: 0,
  ORDER_NOT_FOUND: 801,
  CHILD_ALONE: 802,
  ALREADY_SUBMITTED: 803,
  PNR_TOGETHER: 804,
  SEGMENT_NOT_FOUND: 8041,
  OFFER_EXPIRED: 805,
  SELF_REFUND: 806,
  PASSENGER_NOT_FOUND: 807,
  NON_REFUNDABLE: 808,
  NOT_TICKETED: 809,
  INVALID: 810,
  INCOMPLETE_ITINERARY: 811,
  PASSENGER_INCONSISTENT: 812,
  OFFER_ILLEGAL_STATE: 813,
  SUBMISSION_IN_PROGRESS: 814,
  TICKET_NOT_FOUND: 815,
  ORDER_DUPLICATE: 816,
  ORDER_REFUNDED_AT_AIRLINE: 817,
  ORDER_VOID_AFTER_REFUND: 818,
  CLAIM_PAYMENT_UNSUPPORTED: 819,
  TICKET_USED: 820,
  REFUND_DEADLINE: 821,
  VOID_DEADLINE: 822,
  ALL_PASSENGERS: 823,
  ANCILLARY_ORDER: 824,
  OPERATOR_CONSOLE: 825,
  TAX_UNCONFIRMED: 826,
  CLIENT_CRITERIA: 840,
  PAYMENT_UNSUPPORTED: 841,
  AIRLINE_NOT_SERVED: 842,
  ROUTE_NOT_SERVED: 843,
} as const;

/** spec 2.11 */
export const CANCEL_REASON = {
  POLICY: 'does not match airline policy',
  NO_SCHEDULE_CHANGE: 'no schedule change from the airline, see fare rules for cancellation charges',
  VOLUNTARY_NON_REFUNDABLE: 'voluntary cancellation is non-refundable',
  VOUCHER_ONLY: 'airline policy allows only a voucher refund',
  USER_CANCELLED: 'refund request cancelled by the user',
  TRAVEL_COMPLETED: 'travel already completed',
  NOT_RECEIVED: 'refund not yet received from the airline, try later',
  OWN_VIRTUAL_CARD: "order paid by the caller's own virtual card, refund it yourself",
  OWN_B2B: "issued through the caller's own B2B account, refund it yourself",
  CONSUMER_WEBSITE: "refund available through the airline's consumer website, refund it yourself",
  VOUCHER_INVALID: 'refund claim voucher invalid',
  DUPLICATE: 'duplicate refund record',
  MORE_MATERIAL: 'more supporting material needed to meet airline requirements',
  BELOW_SERVICE_FEE: 'actual refund amount below the service fee, so rejected',
} as const;

/**
 * refundStatus of a refund order (spec 3.1). Paths (docs/architecture.md "Refund lifecycle"): deposit
 * 0 → 1 → 3 → 2, 0 or 1 → 4; pass-through virtual card and refund claims 0 → 1 → 5, 0 or 1 → 4, 0 or 1 → 6.
 */
export const REFUND_ORDER_STATUS = {
  /** Processing by the service: recorded, not yet submitted to the airline. */
  PROCESSING: 0,
  /** Submitted to the airline, which is processing it. */
  AIRLINE_PROCESSING: 1,
  REFUNDED: 2,
  /** Accepted by the airline, refund under way (deposit). */
  AIRLINE_REFUNDING: 3,
  REJECTED: 4,
  /** Fulfilment done (pass-through virtual card, refund claims). */
  FULFILLED: 5,
  /** Withdrawn at the airline (refund claims only). */
  WITHDRAWN: 6,
} as const;
export type RefundOrderStatus = (typeof REFUND_ORDER_STATUS)[keyof typeof REFUND_ORDER_STATUS];
