// The answer lane (decision 0050, amended 2026-12-03): hot answers written outside Fastify's request cycle — served
// seat maps (bytes of the seat map cache, decision 0014), extractPnr.do's kept answers (kept-answer.ts) and refund
// quotes (lane-routes.ts). Around a kept answer the per-request stack (routing, eleven hooks, the body's parser, the
// reply's send and its hooks) cost more than the answer itself, and around a quote a good part of it (BENCHMARKS.md,
// "Where the time goes"). The lane takes a request before Fastify when it can only be an answer to serve: POST to one
// of its routes' exact paths, plain JSON of a known length, a credential this process has verified, no coding but
// gzip asked for, while the service is not shutting down. It parses and checks the body with the route's own
// validator, counts the route's rate pool, does the route's own work (`LaneRoute.prepare`) and writes the answer the
// route would, with the route's headers, access line and metrics. Anything else — any refusal, a failure, an exceeded
// pool, a credential not yet verified, an answer the lane cannot write as the route would — is handed to Fastify with
// the body already read (replayLaneBody), the pool's count taken back and nothing answered: the route then answers it
// as it always did, errors included. What goes with it: the client the lane verified (laneClientOf), its time in the
// lane (the access line's and metrics'), and the work the lane did (a failure it met, an answer it could not write:
// fromLane), which the route answers from instead of doing it again (an airline asked once, one offer recorded). A
// request the lane took is served even once the service is shutting down: it arrived before (tookByLane).
import type { IncomingMessage, ServerResponse, OutgoingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { TSchema } from 'typebox';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest, preParsingHookHandler } from 'fastify';
import type { ClientAuthenticator, AuthenticatedClient } from '../clients/auth.js';
import type { PoolVerdict, RatePool } from '../ratelimit/pools.js';
import type { Metrics } from './metrics.js';
import { noteLaneTime, type AccessLog } from '../log.js';
import { credentialHeaders, credentialOf, type CredentialHeaders } from './credentials.js';
import { acceptsGzip } from './encoding.js';
import { requestIdOf } from './request-id.js';
import { wireValidatorCompiler } from './validation.js';
import { BoundedMap } from '../bounded-map.js';
import { deepFreeze } from '../deep-freeze.js';

/** Larger bodies go to Fastify (a seat map request is ~300 bytes, an extract ~200; a round trip's segments a few hundred more). */
const MAX_LANE_BODY_BYTES = 4096;
/** What the lane hands Fastify with a request it took: the body it read, the client it verified, what its work came to. */
const LANE = Symbol('postbook.lane');
type Outcome = { value: unknown } | { error: Error };
interface Handed {
  /** Until Fastify's parser has it (replayLaneBody). */
  body: Buffer | undefined;
  client: AuthenticatedClient;
  /** Until the route takes it (fromLane). */
  outcome: Outcome | undefined;
}
type LaneRequest = IncomingMessage & { [LANE]?: Handed };

/** An answer as the lane writes it. */
export interface LaneBytes {
  bytes: Buffer;
  /** The bytes are gzip (Content-Encoding: gzip). */
  gzip: boolean;
  /** Vary: accept-encoding, as the route sends it. */
  vary: boolean;
  /** The answer's body status (the access line's, the metrics'). */
  bodyStatus: number;
  /** Called once the bytes are written out (a pooled buffer). */
  release?: () => void;
}

/** A route the lane answers: the route's path, body schema and pool, its work and the bytes it sends. */
export interface LaneRoute<Req = never, Prepared = unknown> {
  url: string;
  body: TSchema;
  /** The route's rate pool, or null for a route without one (nothing counted, no rate-limit headers). */
  pool: RatePool | null;
  /** False until the route has answered once (its serializer is known): the lane hands requests over meanwhile. */
  ready(): boolean;
  /** Whether the lane may answer a caller with this Accept-Encoding (gzip accepted or none sent; default: all such). */
  takes?(accept: string | undefined): boolean;
  /** The route's work, once the pool has counted the request: its result, or the route's error thrown. */
  prepare(client: AuthenticatedClient, request: Req): Promise<Prepared>;
  /**
   * The answer's bytes (the request counted in the route's other stores too, such as look-to-book): null, or thrown,
   * hands the request over with `prepared` and the pool's count taken back.
   */
  write(client: AuthenticatedClient, prepared: Prepared, gzip: boolean): Promise<LaneBytes | null>;
}

export interface AnswerLaneDeps {
  authenticator: ClientAuthenticator;
  headerPrefix: string;
  bodyLimitBytes: number;
  /** With CORS_ORIGINS set, a browser's request (Origin) is Fastify's: its headers come from @fastify/cors. */
  cors: boolean;
  lifecycle: { closing: boolean };
  metrics: Metrics;
  access: AccessLog;
  /** For a failure once an answer is out (nothing the route could answer again). */
  log: FastifyBaseLogger;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const UNCOUNTED: PoolVerdict = { kind: 'uncounted' };
type Validate = (value: unknown) => { value?: unknown; error?: unknown };

interface Lane {
  route: LaneRoute<unknown>;
  validate: Validate;
  /** Requests answered, by body text (bodies of at most MAX_LANE_BODY_BYTES: ~4 MB at most). */
  requests: BoundedMap<string, unknown>;
}

export class AnswerLane {
  private readonly credentialHeaders: CredentialHeaders;
  private readonly maxBody: number;
  private readonly lanes = new Map<string, Lane>();
  /** Requests the lane answered, and those it read and handed to Fastify (tests; the metrics count answers alike). */
  readonly stats = { answered: 0, handedOver: 0 };

  constructor(
    private readonly deps: AnswerLaneDeps,
    routes: ReadonlyArray<LaneRoute<never>>,
  ) {
    this.credentialHeaders = credentialHeaders(deps.headerPrefix);
    this.maxBody = Math.min(MAX_LANE_BODY_BYTES, deps.bodyLimitBytes);
    for (const route of routes) {
      // The route's validator (TypeBox, then the values no store can hold), compiled as Fastify compiles it.
      const validate = wireValidatorCompiler({ schema: route.body, method: 'POST', url: route.url, httpPart: 'body' }) as Validate;
      this.lanes.set(route.url, { route, validate, requests: new BoundedMap(1_000) });
    }
  }

  /** In front of Fastify's handler: `server.on('request', …)`. */
  front(fastify: Handler): Handler {
    return (req, res) => {
      if (!this.take(req, res, fastify)) fastify(req, res);
    };
  }

  /** Whether the lane took the request (it answers it, or hands it to `fastify` once its body is read). */
  private take(req: LaneRequest, res: ServerResponse, fastify: Handler): boolean {
    if (req.method !== 'POST' || this.deps.lifecycle.closing) return false;
    const lane = this.lanes.get(req.url!);
    if (lane === undefined || !lane.route.ready()) return false;
    const h = req.headers;
    if (h['content-encoding'] !== undefined || h['transfer-encoding'] !== undefined || h['x-no-compression'] !== undefined) return false;
    if (this.deps.cors && h.origin !== undefined) return false;
    const type = h['content-type'];
    if (type !== 'application/json' && type !== 'application/json; charset=utf-8') return false;
    const length = Number(h['content-length']);
    if (!(length > 0 && length <= this.maxBody)) return false;
    // Gzip or nothing: a route answers a caller that accepts neither in what @fastify/compress negotiates (deflate,
    // x-gzip as gzip, `*` rewritten first: app.ts), which is Fastify's to write.
    const accept = h['accept-encoding'];
    const gzip = accept !== undefined && !accept.includes('*') && acceptsGzip(accept);
    if (accept !== undefined && !gzip) return false;
    if (lane.route.takes && !lane.route.takes(accept)) return false;
    // the client hook's reading of the credential (credentials.ts): anything it would refuse is the route's to answer
    const credential = credentialOf(h, this.credentialHeaders);
    if (typeof credential === 'string') return false;
    const client = this.deps.authenticator.cached(credential.id, credential.secret, req.socket);
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
      const handed: Handed = { body, client, outcome: undefined };
      this.answer(lane, handed, res, gzip, requestIdOf(h['x-request-id']), started).then(
        (answered) => {
          if (answered) this.stats.answered++;
          else this.handOver(req, res, handed, started, fastify);
        },
        (err: unknown) => {
          if (!res.headersSent) this.handOver(req, res, handed, started, fastify);
          // a failure once the answer is out (its line, its metrics) is not the route's to answer again
          else this.deps.log.error({ err, route: lane.route.url }, 'answer lane: failed after its answer was written');
        },
      );
    });
    return true;
  }

  private handOver(req: LaneRequest, res: ServerResponse, handed: Handed, started: number, fastify: Handler): void {
    this.stats.handedOver++;
    req[LANE] = handed;
    // the route's access line and metrics count from the request's arrival, the lane's time included
    noteLaneTime(req, performance.now() - started);
    fastify(req, res);
  }

  /** The request a body text is, parsed and checked as the route does, or null (Fastify's answer: 400, 220…). */
  private check(lane: Lane, text: string): unknown {
    // Fastify's parser refuses these keys (400): its answer, not the lane's
    if (text.includes('__proto__') || text.includes('constructor')) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    const checked = lane.validate(parsed);
    return checked.error ? null : checked.value;
  }

  /**
   * Answers a request and returns true, or returns false with the pool's count taken back and what the route's work
   * came to in `handed.outcome`, if it was done. The pool counts first, as the route's hook counts before its handler
   * (a refused request does no work: an extract over the PNR pool reads no airline record, decision 0026).
   */
  private async answer(lane: Lane, handed: Handed, res: ServerResponse, gzip: boolean, reqId: string, started: number): Promise<boolean> {
    const { route } = lane;
    const { client } = handed;
    // A text the lane has answered before is not parsed and checked again (~50 µs an extract under load): a caller
    // repeats its request as it pages through a booking or looks at a refund again. Kept only once answered, so it
    // holds nothing the service does not hold already (a record's answer, an order's context): never a probe's wrong
    // name. Frozen: shared by every request of that text, which the commands only read.
    const text = handed.body!.toString('utf8');
    const known = lane.requests.get(text);
    const request = known ?? this.check(lane, text);
    if (request === null) return false;
    const verdict: PoolVerdict | null = route.pool === null ? UNCOUNTED : await route.pool.take(client);
    if (!verdict || verdict.kind === 'exceeded') return false;
    // The route's hook counts a request handed over after this again
    const untake = () => {
      if (verdict.kind === 'counted') route.pool!.untake(client.clientId);
    };
    let prepared: unknown;
    try {
      prepared = await route.prepare(client, request);
    } catch (error) {
      handed.outcome = { error: error instanceof Error ? error : new Error(String(error)) };
      untake();
      return false;
    }
    let out: LaneBytes | null;
    try {
      out = await route.write(client, prepared, gzip);
    } catch {
      out = null;
    }
    if (out === null) {
      handed.outcome = { value: prepared };
      untake();
      return false;
    }
    // The route's headers, in its order (seat-map-reply.ts, kept-answer.ts; the lane's tests compare the two).
    const headers: OutgoingHttpHeaders = { 'x-request-id': reqId };
    if (verdict.kind === 'counted') {
      headers['x-ratelimit-limit'] = verdict.limit;
      headers['x-ratelimit-remaining'] = verdict.remaining;
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    if (out.vary) headers.vary = 'accept-encoding';
    if (out.gzip) headers['content-encoding'] = 'gzip';
    headers['content-length'] = out.bytes.length;
    if (this.deps.lifecycle.closing) headers.connection = 'close';
    if (out.release) res.once('finish', out.release);
    res.writeHead(200, headers);
    res.end(out.bytes);
    if (known === undefined) lane.requests.set(text, deepFreeze(request));
    const ms = performance.now() - started;
    this.deps.metrics.observe(route.url, 200, out.bodyStatus, ms / 1000);
    this.deps.access.answered(reqId, route.url, 'POST', 200, out.bodyStatus, Math.round(ms * 100) / 100);
    return true;
  }
}

/** A lane route's preParsing hook: the body the lane read, given to Fastify's parser as the request's own. */
export const replayLaneBody: preParsingHookHandler = (request: FastifyRequest, _reply, payload, done) => {
  const handed = (request.raw as LaneRequest)[LANE];
  const body = handed?.body;
  if (body === undefined) {
    done(null, payload);
    return;
  }
  handed!.body = undefined;
  done(null, Readable.from([body], { objectMode: false }));
};

/**
 * A lane route's work: what the lane's `prepare` came to for this request when it handed the request over after it
 * (its result, or its error thrown again), else `work()`. The request's body is the one the lane checked.
 */
export function fromLane<T>(request: FastifyRequest, work: () => Promise<T>): Promise<T> {
  const handed = (request.raw as LaneRequest)[LANE];
  const outcome = handed?.outcome;
  if (outcome === undefined) return work();
  handed!.outcome = undefined;
  return 'error' in outcome ? Promise.reject(outcome.error) : Promise.resolve(outcome.value as T);
}

/**
 * The client the lane verified for a request it handed over (the client hook takes it: the request was
 * authenticated when it arrived, and a cache entry expiring or a client edited since does not refuse work the lane
 * has done — a quote's offer recorded); null for any other request.
 */
export function laneClientOf(raw: IncomingMessage): AuthenticatedClient | null {
  return (raw as LaneRequest)[LANE]?.client ?? null;
}

/**
 * Whether the lane took this request before handing it over: it arrived before the service began to shut down (the
 * lane takes none after), so it is served, not shed — the lane may have done its work already.
 */
export function tookByLane(raw: IncomingMessage): boolean {
  return (raw as LaneRequest)[LANE] !== undefined;
}

/** A route's compiled serializer of its 200 answer, by path: kept by the route once it has answered (keepSerializer). */
export type AnswerSerializers = Map<string, (answer: unknown) => string>;

/**
 * Keeps the route's own 200 serializer for the lane (the response schema's, as Fastify compiled it), and answers it
 * (undefined only for a route without a compiled one).
 */
export function keepSerializer(serializers: AnswerSerializers, url: string, reply: FastifyReply): ((answer: unknown) => string) | undefined {
  let serialize = serializers.get(url);
  if (serialize) return serialize;
  serialize = reply.getSerializationFunction('200') as ((answer: unknown) => string) | undefined;
  if (serialize) serializers.set(url, serialize);
  return serialize;
}
