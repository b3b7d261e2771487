// Status codes of the booking chain (docs/architecture.md "The booking chain"). search.do and verify.do use
// the original interface's codes (docs/decisions/0021), getOffers.do and getLuggage.do too (decision 0024);
// order.do still uses the numbers of docs/decisions/0012 until its own shapes are converted.
export const BOOKING_STATUS = {
  OK: 0,
  INVALID: 100,
  // search.do (plan §3.1; decision 0021)
  SEARCH_FORMAT: 101,
  SEARCH_ILLEGAL: 102,
  SEARCH_TIMEOUT: 112,
  SEARCH_AIRLINE_INACTIVE: 113,
  SEARCH_NO_FLIGHTS: 114,
  SEARCH_CURRENCY: 124,
  // verify.do (plan §3.2; decision 0021)
  VERIFY_ROUTING_ILLEGAL: 200,
  VERIFY_ROUTING_EXPIRED: 202,
  VERIFY_AIRLINE_CLOSED: 203,
  VERIFY_TIMEOUT: 205,
  VERIFY_FLIGHT_UNAVAILABLE: 207,
  VERIFY_FARE_FAMILY_SOLD_OUT: 210,
  VERIFY_ILLEGAL: 212,
  VERIFY_FLIGHT_CHANGED: 213,
  // getOffers.do (plan §3.3; decision 0024)
  OFFERS_FORMAT: 101,
  OFFERS_ILLEGAL: 102,
  OFFERS_TIMEOUT: 112,
  OFFERS_AIRLINE: 116,
  // getLuggage.do (plan §3.4; decision 0024)
  LUGGAGE_TIMEOUT: 205,
  LUGGAGE_ILLEGAL: 212,
  LUGGAGE_OFFER_UNKNOWN: 214,
  LUGGAGE_AIRLINE: 299,
  // order.do (decision 0012, until converted)
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
