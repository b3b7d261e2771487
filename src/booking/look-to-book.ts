// Look-to-book (spec 7.2 status 223, docs/architecture.md "The booking chain"): seat requests vs paid orders per client.
// The counter is src/ratelimit/look-to-book.ts. seatAvailability.do calls check() then recordSeatRequest();
// pay.do calls recordPaidOrder().
export interface LookToBook {
  /** Throws ApiError(223) when the client's seat requests per paid order passed its threshold (`settings`: the client's, when the caller has them). */
  check(clientId: string, settings?: Record<string, unknown>): Promise<void>;
  recordSeatRequest(clientId: string): Promise<void>;
  recordPaidOrder(clientId: string): Promise<void>;
}
