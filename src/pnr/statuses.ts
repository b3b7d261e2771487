// Status codes of extractPnr.do and pnr/claim.do (the spec leaves them "not shown"; see
// docs/decisions/0004-pnr-status-codes.md).
export const PNR_STATUS = {
  OK: 0,
  INVALID: 100,
  /** no record with that PNR — or the names / e-mail do not match it (answered identically) */
  NOT_FOUND: 99005,
  /** the airline did not answer within `timeout` */
  TIMEOUT: 99006,
  /** the airline answered with a system error */
  AIRLINE_ERROR: 99007,
  /** no airline connection for that carrier */
  CARRIER_NOT_SERVED: 99008,
  /** claim: the claimed passengers are not exactly those of the record */
  PASSENGERS_MISMATCH: 99010,
  /** claim: the claimed segments are not those of the record */
  SEGMENTS_MISMATCH: 99011,
  /** claim: the record is cancelled */
  RECORD_CANCELLED: 99012,
  /** claim: the record is not ticketed yet */
  NOT_TICKETED: 99013,
  /** claim: the record belongs to another client */
  CLAIMED_BY_OTHER: 99014,
  /** claim: the airline does not allow claims */
  CLAIM_NOT_SUPPORTED: 99015,
  /** claim: a ticket of the record is on another order of the service (the airline moved it to this PNR) */
  TICKETS_ON_OTHER_ORDER: 99016,
} as const;
