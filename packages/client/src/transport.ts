// One call to the service over fetch: the headers of spec 5 (with the deployment's header prefix), the
// request id, Idempotency-Key when asked, HTTP 429 (and the service's own 503 while shutting down) waited out
// and retried, and every failure turned into a typed error. Only web-standard globals (fetch, AbortController,
// setTimeout): Node 20+ and browsers.
import type { Endpoints } from './generated/wire.js';
import { PostbookError, RateLimitedError, TransportError, PostbookClientError } from './errors.js';

/** The subset of `fetch` the SDK uses; pass your own (a proxy agent, a test double, a polyfill). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Where the service answers, e.g. `https://postbook.example.com` (a path prefix is kept). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** The deployment's HEADER_PREFIX: headers are `x-<prefix>-client-id` / `-secret`. Default `service`. */
  headerPrefix?: string;
  /** The admin token, for the sandbox clock only (sandbox deployments). */
  adminToken?: string;
  /** Default: the global fetch. */
  fetch?: FetchLike;
  /** Time-out of one HTTP attempt in ms, up to 2³¹−1, or Infinity for none (default 30 000; an extractPnr.do with a longer `timeout` gets that and 5 s more). */
  timeoutMs?: number;
  /** HTTP 429 (and the service's own 503 while a process shuts down): how many times to retry (default 2) and the longest wait the SDK accepts (default 60 000 ms). */
  rateLimit?: { retries?: number; maxWaitMs?: number };
  /** Sent with every call (e.g. a tracing header). The SDK's own headers (auth, accept, content-type, request id, key) cannot be replaced this way, in any capitalisation. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Sent as `x-request-id` (1–64 of `A-Za-z0-9._:-`); the service logs it and echoes it. Default: the service makes one. */
  requestId?: string;
  /** Overrides the client's time-out for this call. */
  timeoutMs?: number;
}

/** Options of the calls that take an Idempotency-Key (pnr/claim.do, refund.do, void.do, order.do, pay.do). */
export interface SubmitOptions extends CallOptions {
  /** The same key with the same body replays the first answer instead of doing the work twice (1–255 visible ASCII). */
  idempotencyKey?: string;
}

export type EndpointKey = keyof Endpoints;
export type RequestOf<K extends EndpointKey> = Endpoints[K]['request'];
export type ResponseOf<K extends EndpointKey> = Endpoints[K]['response'];

const DEFAULT_TIMEOUT_MS = 30_000;
/** extractPnr.do's wait for the airline when its request sets no `timeout` (the service's default). */
const AIRLINE_WAIT_MS = 15_000;
const DEFAULT_RETRIES = 2;
const DEFAULT_MAX_WAIT_MS = 60_000;
/** What the service accepts as x-request-id and Idempotency-Key. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
/** A `Retry-After: 0` still waits this long: the window has not quite moved yet. */
const MIN_RETRY_WAIT_MS = 250;
/** The longest a timer holds: past it (2³¹−1 ms, ~24.8 days) setTimeout fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** A credential or token as a header carries it: visible ASCII, no space. */
const TOKEN_VALUE = /^[\x21-\x7e]+$/;
/** A header name (RFC 9110 token) and a value fetch sends as it is (visible ASCII, inner spaces and tabs). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^(?:[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?)?$/;

/**
 * A time-out in ms: a number in (0, 2³¹−1], or Infinity for none. Checked up front (a review): NaN, 0, a negative
 * value or one past what a timer holds fired the timer at once, so every call failed as "no answer" — after its
 * request had reached the service, which an integrator's retry without a key then did twice.
 */
export function checkTimeout(name: string, value: number | undefined): void {
  if (value === undefined || value === Infinity) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    throw new PostbookClientError(`${name} must be a number of ms in (0, ${MAX_TIMER_MS}] or Infinity (no time-out), not ${String(value)}`);
  }
}

type Json = Record<string, unknown>;

/** An HTTP answer, its body read. */
interface Answer {
  status: number;
  type: string;
  statusText: string;
  headers: Headers;
  text: string;
}

/** The key when the service would accept it as an Idempotency-Key; a PostbookClientError otherwise. */
export function checkIdempotencyKey(key: string): string {
  if (!IDEMPOTENCY_KEY.test(key)) throw new PostbookClientError('idempotencyKey must be 1–255 visible ASCII characters (no spaces)');
  return key;
}

/** Sleeps `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Seconds to wait from `Retry-After` (seconds or an HTTP date), else the body's `retryAfter` (seconds). */
export function retryAfterMs(header: string | null, body: unknown, now = Date.now()): number | null {
  if (header !== null && header.trim() !== '') {
    const h = header.trim();
    // Seconds (RFC 9110: whole ones; a proxy's "1.5" is read as such, not as a date in 2001: a review), or an HTTP-date
    if (/^\d+(\.\d+)?$/.test(h)) return Math.ceil(Number(h) * 1000);
    const at = /[a-z]/i.test(h) ? Date.parse(h) : NaN;
    if (!Number.isNaN(at)) return Math.max(0, at - now);
  }
  const field = (body as Json | null)?.retryAfter;
  if (typeof field === 'number' && Number.isFinite(field) && field >= 0) return field * 1000;
  return null;
}

export class Transport {
  /**
   * The options, credentials included, in a private field of the runtime (`#`): a TypeScript `private` field is an
   * ordinary property, which `util.inspect`, `console.log` and `JSON.stringify` of the client showed, the client
   * secret and the admin token with it (found by a review).
   */
  readonly #opts: ClientOptions;
  private readonly base: string;
  private readonly fetchImpl: FetchLike;
  private readonly prefix: string;
  private readonly retries: number;
  private readonly maxWaitMs: number;
  /**
   * The caller's headers by their lower-case names, made once: the SDK's own replace them whatever their
   * capitalisation (a review: `X-Service-Client-Id` was sent beside the SDK's and fetch joined the two). Private to
   * the runtime like the options: a header may carry a credential.
   */
  readonly #extraHeaders: Readonly<Record<string, string>>;

  constructor(opts: ClientOptions) {
    this.#opts = opts;
    if (!opts.baseUrl) throw new PostbookClientError('baseUrl is required');
    if (!opts.clientId || !opts.clientSecret) throw new PostbookClientError('clientId and clientSecret are required');
    // Checked here, never echoed: a control character made fetch throw a TypeError whose message carried the value
    // (a secret, into the caller's logs), reported as "no answer, may have been handled" and retried (a review).
    for (const [name, value] of [['clientId', opts.clientId], ['clientSecret', opts.clientSecret], ['adminToken', opts.adminToken]] as const) {
      if (value !== undefined && (typeof value !== 'string' || !TOKEN_VALUE.test(value))) throw new PostbookClientError(`${name} must be visible ASCII characters without spaces (its value is not shown)`);
    }
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      if (!HEADER_NAME.test(name)) throw new PostbookClientError(`headers: ${JSON.stringify(name)} is not a header name`);
      if (typeof value !== 'string' || !HEADER_VALUE.test(value)) throw new PostbookClientError(`headers: the value of ${name} is not one a header can carry (visible ASCII; its value is not shown)`);
    }
    checkTimeout('timeoutMs', opts.timeoutMs);
    for (const [name, value] of [['rateLimit.retries', opts.rateLimit?.retries], ['rateLimit.maxWaitMs', opts.rateLimit?.maxWaitMs]] as const) {
      // NaN turned the 429 retries off without a word (a review)
      if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0)) throw new PostbookClientError(`${name} must be a finite number ≥ 0, not ${String(value)}`);
    }
    this.base = opts.baseUrl.replace(/\/+$/, '');
    if (!opts.fetch && typeof globalThis.fetch !== 'function') throw new PostbookClientError('no fetch: pass options.fetch on a platform without a global fetch');
    // A bare reference to the global fetch loses its `this` in browsers ("Illegal invocation").
    this.fetchImpl = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
    // empty: the service's own default (its HEADER_PREFIX unset or blank reads 'service')
    this.prefix = (opts.headerPrefix?.trim() || 'service').toLowerCase();
    if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(this.prefix)) throw new PostbookClientError(`headerPrefix must be a word of letters, digits or dashes, got ${JSON.stringify(opts.headerPrefix)}`);
    this.retries = Math.max(0, Math.floor(opts.rateLimit?.retries ?? DEFAULT_RETRIES));
    this.maxWaitMs = Math.max(0, opts.rateLimit?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS);
    this.#extraHeaders = Object.fromEntries(Object.entries(opts.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  }

  private headersFor(path: string, hasBody: boolean, options: SubmitOptions): Record<string, string> {
    const h: Record<string, string> = { ...this.#extraHeaders, accept: 'application/json' };
    if (hasBody) h['content-type'] = 'application/json';
    if (path.startsWith('/sandbox/')) {
      if (!this.#opts.adminToken) throw new PostbookClientError(`${path} needs the admin token: pass options.adminToken`);
      h.authorization = `Bearer ${this.#opts.adminToken}`;
    } else {
      h[`x-${this.prefix}-client-id`] = this.#opts.clientId;
      h[`x-${this.prefix}-client-secret`] = this.#opts.clientSecret;
    }
    // Checked here, not by fetch: a character fetch cannot send threw a TypeError, reported as "no answer"
    // (a TransportError) and resent; one the service refuses came back as 810 or was silently replaced.
    if (options.requestId !== undefined) {
      if (!REQUEST_ID.test(options.requestId)) throw new PostbookClientError(`requestId must be 1–64 of A-Za-z0-9._:-, got ${JSON.stringify(options.requestId)}`);
      h['x-request-id'] = options.requestId;
    }
    if (options.idempotencyKey !== undefined) h['idempotency-key'] = checkIdempotencyKey(options.idempotencyKey);
    return h;
  }

  /** Calls an endpoint; resolves with the answer of a success, throws a typed error otherwise. */
  async call<K extends EndpointKey>(key: K, body: RequestOf<K> | undefined, options: SubmitOptions = {}): Promise<ResponseOf<K>> {
    const [method, path] = key.split(' ') as ['GET' | 'POST', string];
    checkTimeout('timeoutMs', options.timeoutMs);
    const headers = this.headersFor(path, body !== undefined, options);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    // A request with its own airline wait (extractPnr.do's `timeout`, up to 120 s, 15 s when absent) gets that wait
    // and 5 s more, unless the caller set this call's time-out (a review: 30 s cut a 60 s extraction off).
    const own = (body as { timeout?: unknown } | undefined)?.timeout;
    const airlineWaitMs = key === 'POST /extractPnr.do' ? (typeof own === 'number' && own > 0 ? own : AIRLINE_WAIT_MS) + 5_000 : 0;
    const attemptOptions = options.timeoutMs === undefined && airlineWaitMs > (this.#opts.timeoutMs ?? DEFAULT_TIMEOUT_MS) ? { ...options, timeoutMs: airlineWaitMs } : options;
    for (let attempt = 1; ; attempt++) {
      const res = await this.attempt(key, method, path, headers, payload, attemptOptions);
      const requestId = res.headers.get('x-request-id');
      const text = res.text;
      let parsed: unknown = null;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        parsed = null;
      }
      const json = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Json) : null;
      const status = typeof json?.status === 'number' ? json.status : null;
      const msg = typeof json?.msg === 'string' ? json.msg : json ? `HTTP ${res.status}` : (text.slice(0, 200) || res.statusText || `HTTP ${res.status}`);
      const failure = { endpoint: key, httpStatus: res.status, status, msg, requestId, body: parsed };

      if (res.status === 429) {
        const wait = Math.max(MIN_RETRY_WAIT_MS, retryAfterMs(res.headers.get('retry-after'), json) ?? 1000);
        if (attempt <= this.retries && wait <= this.maxWaitMs) {
          await sleep(wait, options.signal);
          continue;
        }
        const limitType = typeof json?.limitType === 'string' ? json.limitType : null;
        throw new RateLimitedError({ ...failure, retryAfterMs: wait, attempts: attempt, limitType });
      }
      // The service's own 503 (`status` 503: it was shutting down and did nothing with the request) is sent again
      // after its Retry-After, on the retries 429 uses: another process answers it. A 503 of anything else (a
      // proxy's) may have reached the service, and is the caller's to judge.
      if (res.status === 503 && status === 503 && attempt <= this.retries) {
        const wait = Math.max(MIN_RETRY_WAIT_MS, retryAfterMs(res.headers.get('retry-after'), json) ?? 1000);
        if (wait <= this.maxWaitMs) {
          await sleep(wait, options.signal);
          continue;
        }
      }
      if ((res.status >= 300 && res.status <= 399) || (res.status === 0 && res.type === 'opaqueredirect')) {
        throw new PostbookError({ ...failure, msg: `the address answered a redirect (HTTP ${res.status}), which the SDK does not follow (it would carry the credentials elsewhere): set baseUrl to the service's own address` });
      }
      if (res.status < 200 || res.status > 299) throw new PostbookError(failure);
      if (!json) throw new PostbookError({ ...failure, msg: `the answer is not a JSON object: ${text.slice(0, 200)}` });
      if (status !== null && status !== 0) throw new PostbookError(failure);
      return json as unknown as ResponseOf<K>;
    }
  }

  /** One HTTP exchange with the per-attempt time-out, tied to the caller's signal. */
  private async attempt(key: string, method: string, path: string, headers: Record<string, string>, payload: string | undefined, options: CallOptions): Promise<Answer> {
    const timeoutMs = options.timeoutMs ?? this.#opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const controller = new AbortController();
    const outer = options.signal;
    if (outer?.aborted) throw outer.reason;
    const onAbort = () => controller.abort(outer!.reason);
    outer?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer =
      timeoutMs === Infinity
        ? null
        : setTimeout(() => {
            timedOut = true;
            controller.abort();
          }, timeoutMs);
    try {
      // A redirect is not followed: fetch would send the request again to wherever it points, the client secret with
      // it (fetch drops only Authorization and cookies across origins; a review). It is answered as it came (a
      // PostbookError with its HTTP status; status 0 in a browser, which hides it).
      const res = await this.fetchImpl(`${this.base}${path}`, { method, headers, body: payload, signal: controller.signal, redirect: 'manual' });
      // The body is read inside the time-out too: a stalled body is no answer either.
      return { status: res.status, type: res.type, statusText: res.statusText, headers: res.headers, text: await res.text() };
    } catch (err) {
      if (outer?.aborted) throw outer.reason;
      if (timedOut) throw new TransportError(key, `no answer within ${timeoutMs} ms`, err);
      throw new TransportError(key, `the request failed: ${(err as Error)?.message ?? String(err)}`, err);
    } finally {
      if (timer !== null) clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }
}
