// seatAvailability.do's served maps outside Fastify's request cycle (decision 0050). A seat map is bytes from
// the seat map cache (decision 0014); the per-request stack around them — routing, eleven hooks, the body's parser,
// the reply's send and its hooks — cost more than the answer itself (BENCHMARKS.md, "Where the time goes"). The lane
// takes a request before Fastify when it can only be an answer to serve: POST /seatAvailability.do, plain JSON of a
// known length, a credential this process has verified, while the service is not shutting down. It parses and
// checks the body with the route's own validator, asks the same seatAvailability() the route calls, counts the same
// rate pool and look-to-book, and writes the answer the route would, with the route's headers, access line and
// metrics. Anything else — any refusal, a failure, an exceeded pool, a credential not yet verified, a map the
// cache cannot write yet — is handed to Fastify with the body already read (replayLaneBody), before anything is
// counted or answered: the route then answers it as it always did, errors included.
import type { IncomingMessage, ServerResponse, OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { FastifyRequest, preParsingHookHandler } from 'fastify';
import type { ClientAuthenticator, AuthenticatedClient } from '../clients/auth.js';
import type { BookingDeps } from '../booking/airline-calls.js';
import { seatAvailability } from '../booking/seat-availability.js';
import { SeatAvailabilityRequest } from '../booking/seat-wire.js';
import type { RatePool } from '../ratelimit/pools.js';
import type { Metrics } from './metrics.js';
import type { AccessLog } from '../log.js';
import { acceptsGzip } from './encoding.js';
import { requestIdOf } from './request-id.js';
import { wireValidatorCompiler } from './validation.js';
import { BoundedMap } from '../bounded-map.js';

export const SEAT_MAP_ROUTE = '/seatAvailability.do';
/** Larger bodies go to Fastify (a seat map request is ~300 bytes; a round trip's segments a few hundred more). */
const MAX_LANE_BODY_BYTES = 4096;
/** The body the lane read before it handed the request to Fastify. */
const LANE_BODY = Symbol('postbook.seatMapLaneBody');
type LaneRequest = IncomingMessage & { [LANE_BODY]?: Buffer };

export interface SeatMapLaneDeps {
  authenticator: ClientAuthenticator;
  headerPrefix: string;
  bodyLimitBytes: number;
  /** With CORS_ORIGINS set, a browser's request (Origin) is Fastify's: its headers come from @fastify/cors. */
  cors: boolean;
  lifecycle: { closing: boolean };
  pool: RatePool;
  booking: BookingDeps;
  metrics: Metrics;
  access: AccessLog;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export class SeatMapLane {
  private readonly idHeader: string;
  private readonly secretHeader: string;
  private readonly maxBody: number;
  private readonly validate: (value: unknown) => { value?: unknown; error?: unknown };
  /** Requests the lane answered, and those it read and handed to Fastify (tests; the metrics count answers alike). */
  readonly stats = { answered: 0, handedOver: 0 };
  /** Checked requests by body text (bodies of at most MAX_LANE_BODY_BYTES: ~4 MB at most). */
  private readonly requests = new BoundedMap<string, SeatAvailabilityRequest>(1_000);

  constructor(private readonly deps: SeatMapLaneDeps) {
    this.idHeader = `x-${deps.headerPrefix}-client-id`;
    this.secretHeader = `x-${deps.headerPrefix}-client-secret`;
    this.maxBody = Math.min(MAX_LANE_BODY_BYTES, deps.bodyLimitBytes);
    // The route's validator (TypeBox, then the values no store can hold), compiled as Fastify compiles it.
    this.validate = wireValidatorCompiler({ schema: SeatAvailabilityRequest, method: 'POST', url: SEAT_MAP_ROUTE, httpPart: 'body' }) as SeatMapLane['validate'];
  }

  /** In front of Fastify's handler: `server.on('request', …)`. */
  front(fastify: Handler): Handler {
    return (req, res) => {
      if (!this.take(req, res, fastify)) fastify(req, res);
    };
  }

  /** Whether the lane took the request (it answers it, or hands it to `fastify` once its body is read). */
  private take(req: LaneRequest, res: ServerResponse, fastify: Handler): boolean {
    if (req.method !== 'POST' || req.url !== SEAT_MAP_ROUTE || this.deps.lifecycle.closing) return false;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined || h['x-no-compression'] !== undefined) return false;
    if (this.deps.cors && h.origin !== undefined) return false;
    const type = h['content-type'];
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8') return false;
    const length = Number(h['content-length']);
    if (!(length > 0 && length <= this.maxBody)) return false;
    // `*` is rewritten for @fastify/compress before any route reads it (app.ts): Fastify's
    const accept = h['accept-encoding'];
    if (accept !== undefined && accept.includes('*')) return false;
    const id = h[this.idHeader];
    const secret = h[this.secretHeader];
    if (typeof id !== 'string' || typeof secret !== 'string' || id === '' || secret === '' || id.length > 128 || secret.length > 256) return false;
    const client = this.deps.authenticator.cached(id, secret);
    if (!client) return false;

    const started = performance.now();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    // A caller gone before its body ended: nothing to answer (Fastify would answer no one either).
    req.on('error', () => undefined);
    req.once('end', () => {
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      this.answer(res, client, body, accept !== undefined && acceptsGzip(accept), requestIdOf(h['x-request-id']), started).then(
        (answered) => {
          if (answered) this.stats.answered++;
          else this.handOver(req, res, body, fastify);
        },
        // a failure once the answer is out (its line, its metrics) is not the route's to answer again
        () => {
          if (!res.headersSent) this.handOver(req, res, body, fastify);
        },
      );
    });
    return true;
  }

  private handOver(req: LaneRequest, res: ServerResponse, body: Buffer, fastify: Handler): void {
    this.stats.handedOver++;
    req[LANE_BODY] = body;
    fastify(req, res);
  }

  /**
   * The request a body text is, parsed and checked as the route does, or null (Fastify's answer: 400, 220…). A text
   * asked for again is not parsed again: a caller repeats its request as it pages through a booking (frozen: the
   * commands only read it).
   */
  private requestOf(text: string): SeatAvailabilityRequest | null {
    const known = this.requests.get(text);
    if (known) return known;
    // Fastify's parser refuses these keys (400): its answer, not the lane's
    if (text.includes('__proto__') || text.includes('constructor')) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    const checked = this.validate(parsed);
    if (checked.error) return null;
    const request = deepFreeze(checked.value) as SeatAvailabilityRequest;
    this.requests.set(text, request);
    return request;
  }

  /** Answers a served seat map and returns true, or returns false with nothing counted or written. */
  private async answer(res: ServerResponse, client: AuthenticatedClient, body: Buffer, gzip: boolean, reqId: string, started: number): Promise<boolean> {
    const { booking, pool } = this.deps;
    const serialize = booking.seatMaps.serializer;
    if (!serialize) return false;
    const request = this.requestOf(body.toString('utf8'));
    if (!request) return false;
    let answer;
    try {
      answer = await seatAvailability(booking, client.clientId, request, client.settings, { record: false });
    } catch {
      return false;
    }
    // Counted last: a request handed over after this is counted again by the pool's hook.
    const verdict = await pool.take(client);
    if (!verdict || verdict.kind === 'exceeded') return false;
    let out;
    try {
      out = booking.seatMaps.bytes(answer.parts, gzip, serialize);
      await booking.lookToBook.recordSeatRequest(client.clientId);
    } catch {
      out?.release?.();
      if (verdict.kind === 'counted') pool.untake(client.clientId);
      return false;
    }
    // The route's headers, in its order (src/http/seat-map-reply.ts; a test compares the two).
    const headers: OutgoingHttpHeaders = { 'x-request-id': reqId };
    if (verdict.kind === 'counted') {
      headers['x-ratelimit-limit'] = verdict.limit;
      headers['x-ratelimit-remaining'] = verdict.remaining;
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    headers.vary = 'accept-encoding';
    if (out.gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = out.bytes.length;
    if (this.deps.lifecycle.closing) headers.connection = 'close';
    if (out.release) res.once('finish', out.release);
    res.writeHead(200, headers);
    res.end(out.bytes);
    const ms = performance.now() - started;
    this.deps.metrics.observe(SEAT_MAP_ROUTE, 200, 0, ms / 1000);
    this.deps.access.answered(reqId, SEAT_MAP_ROUTE, 'POST', 200, 0, Math.round(ms * 100) / 100);
    return true;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The seat route's preParsing hook: the body the lane read, given to Fastify's parser as the request's own. */
export const replayLaneBody: preParsingHookHandler = (request: FastifyRequest, _reply, payload, done) => {
  const raw = request.raw as LaneRequest;
  const body = raw[LANE_BODY];
  if (body === undefined) {
    done(null, payload);
    return;
  }
  raw[LANE_BODY] = undefined;
  done(null, Readable.from([body], { objectMode: false }));
};
