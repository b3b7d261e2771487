// Look-to-book (spec 7.2 status 223, DESIGN "Look-to-book"): seat requests vs paid orders per client.
// The real counter is built in src/ratelimit/ by a colleague; until it is wired, NO-OP: nothing is counted
// and check() never refuses. seatAvailability.do calls check() then recordSeatRequest(); pay.do calls
// recordPaidOrder().
export interface LookToBook {
  /** Throws ApiError(223) when the client's seat requests per paid order passed its threshold. */
  check(clientId: string): Promise<void>;
  recordSeatRequest(clientId: string): Promise<void>;
  recordPaidOrder(clientId: string): Promise<void>;
}

export function noLookToBook(): LookToBook {
  return {
    check: async () => undefined,
    recordSeatRequest: async () => undefined,
    recordPaidOrder: async () => undefined,
  };
}
