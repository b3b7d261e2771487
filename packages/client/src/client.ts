// PostbookClient: one method per endpoint of the service, grouped by what a caller does (pnr, refunds, voids,
// seats, booking, webhooks, sandbox), and the helpers built on them (quoteAndSubmit, waitForFinal,
// seats.forSession). Request and answer types are generated from the service's schemas (generated/wire.ts).
import type * as W from './generated/wire.js';
import { ENDPOINTS } from './generated/wire.js';
import { PostbookClientError, PostbookError, RateLimitedError, TransportError, WaitTimeoutError } from './errors.js';
import { MAX_TIMER_MS, Transport, checkIdempotencyKey, sleep, type CallOptions, type ClientOptions, type EndpointKey, type RequestOf, type ResponseOf, type SubmitOptions } from './transport.js';

/** Which endpoint each method calls: `client.refunds.submit` → `POST /refund.do`. */
export const METHOD_ENDPOINTS = {
  'pnr.extract': 'POST /extractPnr.do',
  'pnr.claim': 'POST /pnr/claim.do',
  'refunds.quote': 'POST /refundQuotation.do',
  'refunds.submit': 'POST /refund.do',
  'refunds.query': 'POST /queryRefundOrders.do',
  'voids.quote': 'POST /voidQuotation.do',
  'voids.submit': 'POST /void.do',
  'voids.query': 'POST /queryVoidOrders.do',
  'webhooks.updateUrl': 'POST /updateWebhookURL.do',
  'seats.availability': 'POST /seatAvailability.do',
  'booking.search': 'POST /search.do',
  'booking.verify': 'POST /verify.do',
  'booking.getOffers': 'POST /getOffers.do',
  'booking.getLuggage': 'POST /getLuggage.do',
  'booking.order': 'POST /order.do',
  'booking.pay': 'POST /pay.do',
  'booking.queryOrder': 'POST /queryOrderDetails.do',
  'sandbox.clock': 'GET /sandbox/clock',
  'sandbox.moveClock': 'POST /sandbox/clock',
} as const satisfies Record<string, EndpointKey>;

// Compile-time coverage: an endpoint the service declares without a method here fails the typecheck.
type Uncovered = Exclude<EndpointKey, (typeof METHOD_ENDPOINTS)[keyof typeof METHOD_ENDPOINTS]>;
const everyEndpointHasAMethod: [Uncovered] extends [never] ? true : { missing: Uncovered } = true;
void everyEndpointHasAMethod;

export type RefundOrder = W.QueryRefundOrdersResponse['refundOrders'][number];
export type VoidOrder = W.QueryVoidOrdersResponse['voidOrders'][number];

/** spec 3.1: refunded, rejected, fulfilment done, withdrawn — no change follows. */
export const FINAL_REFUND_STATUSES: readonly number[] = [2, 4, 5, 6];
/** docs/voids.md: voided, rejected, completed, withdrawn. */
export const FINAL_VOID_STATUSES: readonly number[] = [2, 4, 5, 6];

export interface WaitOptions {
  /** Give up after this long (default 120 000 ms; Infinity: never): WaitTimeoutError. NaN or < 0 is refused. */
  timeoutMs?: number;
  /**
   * First pause between two queries (default 1 000 ms), doubled after each until `maxDelayMs` (default 15 000);
   * each a finite number ≥ 0, and no pause shorter than 250 ms (MIN_POLL_MS).
   */
  initialDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Hears every status read (including the final one); a promise it returns is awaited before the next query. */
  onStatus?: (status: number) => void | Promise<void>;
}

/** The part of a verify.do answer (or of a routing) that seats.forSession reads. */
export interface BookingSession {
  sessionId: string;
  routing: {
    fromSegments: SessionSegment[];
    retSegments?: SessionSegment[] | null;
  };
}
export type SessionSegment = Pick<W.VerifyResponse['routing']['fromSegments'][number], 'segmentIndex' | 'carrier' | 'flightNumber' | 'depAirport' | 'arrAirport' | 'depTime'>;

export interface QuoteAndSubmitOptions extends SubmitOptions {
  /** Decides on the quote before anything is submitted (amounts, refundability); false: nothing is submitted. Default: accept. */
  accept?: (quote: W.RefundQuotationResponse) => boolean | Promise<boolean>;
  /** displayCurrency of the submission. */
  displayCurrency?: string | null;
}

/** A failure a wait goes on after: no answer, HTTP 429 after the transport's retries, the service or a proxy in trouble (5xx). */
function transient(err: unknown): boolean {
  if (err instanceof TransportError || err instanceof RateLimitedError) return true;
  return err instanceof PostbookError && (err.httpStatus >= 500 || err.httpStatus === 408);
}

/** How many times refunds.quoteAndSubmit sends its submission again after no answer (or 814), under the same key. */
export const SUBMIT_RESENDS = 2;
/** spec 7.1 814: a submission of this offer or key is in progress. */
const SUBMISSION_IN_PROGRESS = 814;
/** The shortest pause between two queries of a wait: 0 polled the service without a pause for the whole wait (a review). */
export const MIN_POLL_MS = 250;
/** The pause before a submission answered 814 (the service already waited for the first ~10 s) or HTTP 5xx/408 is sent again. */
const IN_PROGRESS_PAUSE_MS = 1_000;

/** 128 random bits in hex: crypto.getRandomValues is there in Node and in every browser page, https or not. */
function newIdempotencyKey(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class PostbookClient {
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
  }

  /** Any endpoint by its key (`'POST /refund.do'`): the typed escape hatch under every method. */
  // async: every failure is a rejected promise, never a throw at the call site (a review: `.catch()` missed them)
  async call<K extends EndpointKey>(key: K, body: RequestOf<K> | undefined, options?: SubmitOptions): Promise<ResponseOf<K>> {
    if (options?.idempotencyKey !== undefined && !this.idempotent(key)) throw new PostbookClientError(`${key} takes no Idempotency-Key`);
    return this.transport.call(key, body, options);
  }

  private idempotent(key: EndpointKey): boolean {
    return ENDPOINTS.some((e) => `${e.method} ${e.path}` === key && e.idempotent);
  }

  /** spec 4.5, 4.6: airline records. */
  readonly pnr = {
    /** extractPnr.do: the airline's current record, for a caller who knows a passenger's name and the e-mail. */
    extract: (body: W.ExtractPnrRequest, options?: CallOptions) => this.call('POST /extractPnr.do', body, options),
    /** pnr/claim.do: the record becomes an order of this client (claiming again answers the same orderNo). */
    claim: (body: W.PnrClaimRequest, options?: SubmitOptions) => this.call('POST /pnr/claim.do', body, options),
  };

  /** spec 4.1–4.3: refunds. */
  readonly refunds = {
    /** refundQuotation.do: the amounts and a refundOfferId. */
    quote: (body: W.RefundQuotationRequest, options?: CallOptions) => this.call('POST /refundQuotation.do', body, options),
    /** refund.do: submit an offer (refundOfferId) or a refundRequestList in one step; answers the refundCode. */
    submit: (body: W.RefundRequest, options?: SubmitOptions) => this.call('POST /refund.do', body, options),
    /** queryRefundOrders.do: refund orders of an order, newest first (or the one of a refundCode). */
    query: (body: W.QueryRefundOrdersRequest, options?: CallOptions) => this.call('POST /queryRefundOrders.do', body, options),

    /**
     * Quotes, lets `accept` decide, then submits the quoted offer for the same order. Resolves with the quote and
     * the submission (null when `accept` said no). A failure of either call is thrown as a PostbookError. The
     * submission always carries an Idempotency-Key (yours, or one made here) and is sent again with it, up to
     * SUBMIT_RESENDS times, when it got no answer (a TransportError), an answer that is no verdict of the service
     * (HTTP 5xx or 408) or 814 (in progress): the service answers the refund it made, or makes it. Found by a review:
     * a caller who retried the whole call on a lost answer, as the errors table advised, quoted again and got 803
     * (refund already submitted). Still none: the error's `resubmit` holds the request and the key to send again
     * later with `refunds.submit` (a RateLimitedError's too, not resent).
     */
    quoteAndSubmit: async (body: W.RefundQuotationRequest, options: QuoteAndSubmitOptions = {}): Promise<{ quote: W.RefundQuotationResponse; refund: W.RefundResponse | null }> => {
      const { accept, displayCurrency, idempotencyKey, ...call } = options;
      // A key the service would refuse is refused before the quote (else an offer was made for nothing: a review)
      if (idempotencyKey !== undefined) checkIdempotencyKey(idempotencyKey);
      const quote = await this.refunds.quote(body, call);
      if (accept && !(await accept(quote))) return { quote, refund: null };
      const submission: W.RefundRequest = {
        orderNo: body.orderNo ?? null,
        airlinePNR: body.airlinePNR ?? null,
        carrier: body.carrier ?? null,
        displayCurrency: displayCurrency ?? null,
        refundOfferId: quote.refundOfferId,
        refundRequestList: null,
      };
      const key = idempotencyKey ?? newIdempotencyKey();
      const resubmit = { body: submission, idempotencyKey: key };
      // The caller's signal aborting once the submission may be on its way (during a call or a pause between two):
      // a TransportError carrying the key, since the refund may have been made (a review: the abort's own reason
      // came out and the key the SDK made was lost with it).
      const aborted = (reason: unknown) =>
        Object.assign(new TransportError('POST /refund.do', 'aborted by the caller while submitting: the refund may have been made; send resubmit again', reason), { resubmit });
      for (let resent = 0; ; resent++) {
        try {
          return { quote, refund: await this.refunds.submit(submission, { ...call, idempotencyKey: key }) };
        } catch (err) {
          if (call.signal?.aborted) throw err instanceof PostbookError ? Object.assign(err, { resubmit }) : aborted(call.signal.reason);
          // 814: the first submission under this key is still in progress, or died in progress (its key is taken
          // over by a resend of the same body after a while): sent again too (a review: the key the SDK made was
          // lost with the error). So is an answer that is no service's verdict — a 5xx or 408 (a proxy's 502/504,
          // the service's 500): the refund may have been made, and only the same key can tell (a review: a 504
          // came out without the key). A 429 past the transport's retries is not resent, but carries the key.
          const inProgress = err instanceof PostbookError && err.status === SUBMISSION_IN_PROGRESS;
          if (err instanceof RateLimitedError) throw Object.assign(err, { resubmit });
          if (!(err instanceof TransportError || err instanceof PostbookError) || (!transient(err) && !inProgress)) throw err;
          if (resent >= SUBMIT_RESENDS) {
            err.resubmit = resubmit;
            throw err;
          }
          if (err instanceof PostbookError) {
            try {
              await sleep(IN_PROGRESS_PAUSE_MS, call.signal);
            } catch (reason) {
              throw aborted(reason);
            }
          }
        }
      }
    },

    /**
     * Polls queryRefundOrders.do with exponential backoff until the refund reaches a final status (2, 4, 5
     * or 6) and resolves with its refund order; WaitTimeoutError after `timeoutMs` (its `cause` the last
     * query's failure, when the last query failed). A query without an answer, a 429 past the retries or a
     * 5xx does not end the wait: the next query comes after the backoff (or the Retry-After, if longer).
     */
    waitForFinal: (refundCode: string, options: WaitOptions = {}): Promise<RefundOrder> =>
      this.waitFor('refund', refundCode, FINAL_REFUND_STATUSES, options, async (signal) => {
        const answer = await this.refunds.query({ refundCode }, { signal });
        const order = answer.refundOrders.find((o) => o.refundCode === refundCode);
        return order ? { status: order.refundStatus, value: order } : null;
      }),
  };

  /** Voids of a whole order on the day of issue (the service's docs/voids.md). */
  readonly voids = {
    quote: (body: W.VoidQuotationRequest, options?: CallOptions) => this.call('POST /voidQuotation.do', body, options),
    submit: (body: W.VoidRequest, options?: SubmitOptions) => this.call('POST /void.do', body, options),
    query: (body: W.QueryVoidOrdersRequest, options?: CallOptions) => this.call('POST /queryVoidOrders.do', body, options),
    /** As refunds.waitForFinal, for a voidCode (final: 2, 4, 5, 6). */
    waitForFinal: (voidCode: string, options: WaitOptions = {}): Promise<VoidOrder> =>
      this.waitFor('void', voidCode, FINAL_VOID_STATUSES, options, async (signal) => {
        const answer = await this.voids.query({ voidCode }, { signal });
        const order = answer.voidOrders.find((o) => o.voidCode === voidCode);
        return order ? { status: order.voidStatus, value: order } : null;
      }),
  };

  /** spec 4.4: seat maps inside a booking chain (the ancillary rate pool). */
  readonly seats = {
    /** seatAvailability.do as is. */
    availability: (body: W.SeatAvailabilityRequest, options?: CallOptions) => this.call('POST /seatAvailability.do', body, options),
    /**
     * The seat map of every flight of a verify.do session: builds the seatAvailability.do request from the
     * session's routing (outbound and return segments, their indexes and local departure times). The carrier
     * is the first segment's unless given.
     */
    forSession: async (session: BookingSession, options: CallOptions & { carrier?: string } = {}) => {
      const { carrier, ...call } = options;
      const seg = (s: SessionSegment) => ({ segmentIndex: s.segmentIndex, flightNumber: s.flightNumber, depAirport: s.depAirport, arrAirport: s.arrAirport, depTime: s.depTime });
      const first = session.routing.fromSegments[0];
      if (!first) throw new PostbookClientError('seats.forSession: the session has no outbound segment');
      const ret = session.routing.retSegments ?? [];
      return this.seats.availability(
        { sessionId: session.sessionId, carrier: carrier ?? first.carrier, outboundSegments: session.routing.fromSegments.map(seg), inboundSegments: ret.length > 0 ? ret.map(seg) : null },
        call,
      );
    },
  };

  /** The booking chain: search → verify (or getOffers) → seats / luggage → order → pay → queryOrder. */
  readonly booking = {
    search: (body: W.SearchRequest, options?: CallOptions) => this.call('POST /search.do', body, options),
    verify: (body: W.VerifyRequest, options?: CallOptions) => this.call('POST /verify.do', body, options),
    getOffers: (body: W.GetOffersRequest, options?: CallOptions) => this.call('POST /getOffers.do', body, options),
    getLuggage: (body: W.GetLuggageRequest, options?: CallOptions) => this.call('POST /getLuggage.do', body, options),
    /**
     * order.do. Status 308/322 (re-priced) is thrown as a PostbookError whose `body` carries the new price and session.
     * With `idempotencyKey` a retry books once and answers the first answer.
     */
    order: (body: W.OrderRequest, options?: SubmitOptions) => this.call('POST /order.do', body, options),
    /** pay.do. With `idempotencyKey` a retry after a lost answer answers the payment, not 404 "already paid". */
    pay: (body: W.PayRequest, options?: SubmitOptions) => this.call('POST /pay.do', body, options),
    queryOrder: (body: W.QueryOrderDetailsRequest, options?: CallOptions) => this.call('POST /queryOrderDetails.do', body, options),
  };

  /** Webhook registration; verify deliveries with `verifyWebhook` (exported beside this class). */
  readonly webhooks = {
    /** updateWebhookURL.do: the first registration answers the signing secret, once; `rotateSecret: true` answers a new one. */
    updateUrl: (body: W.UpdateWebhookURLRequest, options?: CallOptions) => this.call('POST /updateWebhookURL.do', body, options),
  };

  /** The sandbox clock (sandbox deployments; needs `adminToken`). */
  readonly sandbox = {
    clock: (options?: CallOptions) => this.call('GET /sandbox/clock', undefined, options),
    /** Forward by `advanceMinutes`, or to an instant `to`; the clock never goes back. */
    moveClock: (body: W.SandboxClockRequest, options?: CallOptions) => this.call('POST /sandbox/clock', body, options),
  };

  private async waitFor<T>(
    what: string,
    code: string,
    finals: readonly number[],
    options: WaitOptions,
    read: (signal: AbortSignal) => Promise<{ status: number; value: T } | null>,
  ): Promise<T> {
    // NaN (an unset variable read as a number) polled in a tight loop, or never timed out (a review): refused
    for (const [name, value, infinite] of [['timeoutMs', options.timeoutMs, true], ['initialDelayMs', options.initialDelayMs, false], ['maxDelayMs', options.maxDelayMs, false]] as const) {
      if (value !== undefined && (typeof value !== 'number' || Number.isNaN(value) || value < 0 || (!infinite && !Number.isFinite(value)))) {
        throw new PostbookClientError(`waitForFinal: ${name} must be a ${infinite ? '' : 'finite '}number ≥ 0, not ${String(value)}`);
      }
    }
    // Infinity: no deadline; past what a timer holds (2³¹−1 ms, ~24.8 days) a timer fires at once (a review)
    const timeoutMs = Math.max(0, options.timeoutMs ?? 120_000);
    const armed = Number.isFinite(timeoutMs) && timeoutMs <= MAX_TIMER_MS;
    const maxDelay = Math.max(MIN_POLL_MS, options.maxDelayMs ?? 15_000);
    let delay = Math.max(MIN_POLL_MS, options.initialDelayMs ?? 1_000);
    // The deadline aborts whatever runs when it passes — a query (its own time-out and 429 waits included) or a
    // pause — so the wait ends at `timeoutMs`, not after the query under way (a review: 30 s and 2 × 60 s over).
    // performance.now: a wall clock set back or forth moves no deadline.
    const started = performance.now();
    const deadline = new AbortController();
    const timeUp = new Error('wait time-out');
    // 0: one look, however long it takes (no deadline cuts it off)
    const timer = armed && timeoutMs > 0 ? setTimeout(() => deadline.abort(timeUp), timeoutMs) : null;
    const outer = options.signal;
    const onAbort = () => deadline.abort(outer!.reason);
    if (outer?.aborted) onAbort();
    else outer?.addEventListener('abort', onAbort, { once: true });
    let last: number | null = null;
    let failure: unknown = undefined;
    const waited = () => Math.round(performance.now() - started);
    try {
      for (;;) {
        let pause = delay;
        let seen: Awaited<ReturnType<typeof read>> | undefined;
        try {
          seen = await read(deadline.signal);
          failure = undefined;
        } catch (err) {
          if (deadline.signal.aborted) throw deadline.signal.reason;
          // A query that got no answer, a 429 past the transport's retries or a 5xx is waited through like a
          // status that is not final yet (the refund goes on meanwhile); anything else ends the wait.
          if (!transient(err)) throw err;
          failure = err;
          if (err instanceof RateLimitedError) pause = Math.max(pause, err.retryAfterMs);
        }
        if (seen === null) throw new PostbookClientError(`${what} ${code}: the query answered no ${what} order with that code`);
        if (seen !== undefined) {
          last = seen.status;
          await options.onStatus?.(seen.status);
          if (finals.includes(seen.status)) return seen.value;
        }
        if (timeoutMs === 0) throw timeUp;
        // a pause that outlasts the wait (a long Retry-After): waited out by the deadline, no query sooner than it asked
        await sleep(pause, deadline.signal);
        delay = Math.min(maxDelay, delay * 2);
      }
    } catch (err) {
      if (err === timeUp) throw new WaitTimeoutError(what, code, last, waited(), failure);
      throw err;
    } finally {
      if (timer !== null) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }
}
