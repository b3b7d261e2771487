// The SDK's errors. A call either returns the answer of a success (`status` 0) or throws one of these; a
// business failure (HTTP 200 with a non-zero `status`) is a PostbookError like a transport failure, never a
// silent success.

/** Every error the SDK throws (except an AbortSignal's own reason when the caller aborts). */
export class PostbookClientError extends Error {
  // Each class names itself in a literal: a minifying bundler renames classes (`new.target.name` read `O`).
  override name = 'PostbookClientError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface PostbookErrorInit {
  /** `POST /refund.do` */
  endpoint: string;
  httpStatus: number;
  /** The body's `status` (spec 7: non-zero is a failure); null when the answer carried none (not JSON, a proxy's page). */
  status: number | null;
  msg: string;
  /** The answer's `x-request-id` header: quote it when asking the operator about a failure. */
  requestId: string | null;
  /** The parsed answer (some failures carry more than status and msg: order.do's 308/322 carry the new price). */
  body: unknown;
}

/** The service answered with a failure: an HTTP error status, or HTTP 200 with a non-zero body `status`. */
export class PostbookError extends PostbookClientError {
  override name = 'PostbookError';
  readonly endpoint: string;
  readonly httpStatus: number;
  readonly status: number | null;
  readonly msg: string;
  readonly requestId: string | null;
  readonly body: unknown;
  /**
   * refunds.quoteAndSubmit only, when its submission stayed 814 (in progress) or HTTP 5xx/408 after its resends, or
   * was rate-limited: as TransportError's.
   */
  resubmit?: { body: unknown; idempotencyKey: string };

  constructor(init: PostbookErrorInit) {
    super(`${init.endpoint}: ${init.status === null ? `HTTP ${init.httpStatus}` : `status ${init.status}`} — ${init.msg}${init.requestId ? ` (request id ${init.requestId})` : ''}`);
    this.endpoint = init.endpoint;
    this.httpStatus = init.httpStatus;
    this.status = init.status;
    this.msg = init.msg;
    this.requestId = init.requestId;
    this.body = init.body;
  }
}

/** HTTP 429 after the configured retries (or a wait longer than the configured maximum). */
export class RateLimitedError extends PostbookError {
  override name = 'RateLimitedError';
  /** What the service asked to wait before the next call, in milliseconds. */
  readonly retryAfterMs: number;
  /** Calls made, the first one included. */
  readonly attempts: number;
  /** The rate pool that refused (`ancillary`, `verify`, `pnr`, `search`; `auth` when new credentials queue), when the body names it. */
  readonly limitType: string | null;

  constructor(init: PostbookErrorInit & { retryAfterMs: number; attempts: number; limitType: string | null }) {
    super(init);
    this.retryAfterMs = init.retryAfterMs;
    this.attempts = init.attempts;
    this.limitType = init.limitType;
  }
}

/** No answer: the network failed or the per-call time-out passed. The request may or may not have been handled. */
export class TransportError extends PostbookClientError {
  override name = 'TransportError';
  readonly endpoint: string;
  /**
   * refunds.quoteAndSubmit only, when its submission got no answer after its own retries: the refund.do request
   * and the Idempotency-Key it was sent with. Send it again with `refunds.submit(resubmit.body, { idempotencyKey:
   * resubmit.idempotencyKey })`: the service answers the refund it made, or makes it — quoting again would make a
   * new offer, which the first submission (if it was made) refuses with 803.
   */
  resubmit?: { body: unknown; idempotencyKey: string };
  constructor(endpoint: string, message: string, cause?: unknown) {
    super(`${endpoint}: ${message}`, cause === undefined ? undefined : { cause });
    this.endpoint = endpoint;
  }
}

/** `waitForFinal` saw no final status in time (`cause`: the last query's failure, when it failed). */
export class WaitTimeoutError extends PostbookClientError {
  override name = 'WaitTimeoutError';
  /** The refundCode or voidCode followed. */
  readonly code: string;
  /** The last status seen (null: none was read). */
  readonly lastStatus: number | null;
  readonly waitedMs: number;
  constructor(what: string, code: string, lastStatus: number | null, waitedMs: number, cause?: unknown) {
    super(
      `${what} ${code} reached no final status within ${waitedMs} ms (last status ${lastStatus ?? 'unknown'}${cause instanceof Error ? `; the last query failed: ${cause.message}` : ''})`,
      cause === undefined ? undefined : { cause },
    );
    this.code = code;
    this.lastStatus = lastStatus;
    this.waitedMs = waitedMs;
  }
}

export type WebhookFailure = 'missing-header' | 'stale-timestamp' | 'malformed-signature' | 'bad-signature' | 'bad-body';

/** A webhook delivery that did not verify: answer it with a 4xx and do not process it. */
export class WebhookVerificationError extends PostbookClientError {
  override name = 'WebhookVerificationError';
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}
