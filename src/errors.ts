// The one error type every failure a caller may see is thrown as, and the status families. Below every
// other module: commands throw ApiError, src/http/errors.ts turns it into the answer.

/** Endpoint families: each has its own validation status (docs/architecture.md "Wire conventions"). */
export type Family = 'pnr' | 'refund' | 'seat' | 'booking' | 'admin' | 'webhook' | 'verify' | 'luggage' | 'order' | 'pay';

export const VALIDATION_STATUS: Record<Family, number> = {
  pnr: 100,
  refund: 810,
  seat: 220,
  booking: 100,
  admin: 100,
  webhook: 100,
  // verify.do and getLuggage.do: illegal request parameter (docs/decisions/0021, 0024; the original documents no 100
  // for either)
  verify: 212,
  luggage: 212,
  // order.do: illegal booking parameters; pay.do: illegal parameter (docs/decisions/0023)
  order: 307,
  pay: 400,
};

/** Statuses shared by every endpoint (docs/architecture.md "Wire conventions"). */
export const COMMON = {
  UNAUTHORIZED: 900,
  /** Credentials not checked now (too many new ones at once, or too many failures from the address): HTTP 429. */
  AUTH_BUSY: 429,
  NOT_JSON: 901,
  BODY_TOO_LARGE: 413,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The process is shutting down and did nothing with the request: HTTP 503, Retry-After. */
  UNAVAILABLE: 503,
  SYSTEM_ERROR: 9999,
} as const;

/** A failure with its body status and msg. HTTP 200 unless the wire conventions say otherwise. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly msg: string,
    readonly httpStatus = 200,
  ) {
    super(msg);
    this.name = 'ApiError';
  }
}

export interface ErrorBody {
  status: number;
  msg: string;
}
