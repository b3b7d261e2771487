// Status codes of the booking chain (docs/architecture.md "The booking chain"; the numbers inside each documented
// range are ours: docs/decisions/0012).
export const BOOKING_STATUS = {
  OK: 0,
  INVALID: 100,
  // search.do / verify.do / getOffers.do (200–213, 299)
  ROUTING_INVALID: 201,
  FLIGHT_NOT_FOUND: 202,
  PASSENGERS_INVALID: 203,
  SOLD_OUT: 204,
  NOT_BOOKABLE: 205,
  AIRLINE_ERROR: 299,
  // order.do
  SESSION_INVALID: 301,
  PASSENGERS_MISMATCH: 302,
  ANCILLARY_INVALID: 309,
  SEAT_NOT_FOUND: 320,
  SEAT_UNAVAILABLE: 328,
  // pay.do
  PAY_BAD_PARAMETERS: 400,
  PAY_DEADLINE_PASSED: 401,
  PAY_STATE: 402,
  PAY_METHOD_UNSUPPORTED: 403,
  PAY_ALREADY_PAID: 404,
  PAY_IN_PROGRESS: 406,
  // queryOrderDetails.do
  SEVERAL_ORDERS: 701,
  PNR_NOT_FOUND: 703,
  ORDER_NOT_FOUND: 800,
} as const;
