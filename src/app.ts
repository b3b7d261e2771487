// Builds the HTTP application from its dependencies. No I/O at import time; server.ts owns the process.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import swagger, { type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { AirlineDirectory } from './airline/connector.js';
import type { World } from './airline/sandbox/world.js';
import { ClientAuthenticator } from './clients/auth.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { corsDelegator } from './http/cors.js';
import { ANSWER_CODINGS, ANSWER_ZLIB_OPTIONS, COMPRESS_THRESHOLD_BYTES, explicitCodings } from './http/encoding.js';
import { clientErrors, errorHandler, frameworkErrors, notFoundHandler, sendError } from './http/errors.js';
import { COMMON } from './errors.js';
import { Idempotency } from './http/idempotency.js';
import { bookingDepsOf, registerRoutes } from './http/routes.js';
import { requestIdOf } from './http/request-id.js';
import { AnswerLane, tookByLane } from './http/lane.js';
import { extractPnrLaneRoute, refundQuotationLaneRoute, seatMapLaneRoute } from './http/lane-routes.js';
import { addExamples, webhooksSection } from './http/openapi-docs.js';
import { Metrics } from './http/metrics.js';
import { wireValidatorCompiler } from './http/validation.js';
import { AccessLog, createLogger, elapsedMs, RequestLogger } from './log.js';
import type { Store } from './store/store.js';
import type { AppDeps } from './deps.js';
import type { RefundScheduler } from './refunds/deps.js';
import type { VoidScheduler } from './voids/deps.js';
import { worldRates } from './refunds/pricing.js';
import { createRatePools, type RatePools } from './ratelimit/pools.js';
import { createLookToBook } from './ratelimit/look-to-book.js';
import type { LookToBook } from './booking/look-to-book.js';
import { SeatMapCache } from './booking/seat-cache.js';
import { ChainSessions } from './booking/sessions.js';
import type { WebhookRegistry } from './webhooks/register.js';
import type { JobQueue } from './jobs/queue.js';
import type { SharedSandboxClock } from './sandbox-clock.js';
import { consolePlugin } from './console/plugin.js';

export interface AppOptions {
  config: Config;
  store: Store;
  airlines: AirlineDirectory;
  clock: Clock;
  /** The sandbox world when the sandbox connector is in use (admin token, demo data). */
  world?: World | null;
  /** A ready pino logger (tests capture its output); default: one built from config.logLevel. */
  logger?: FastifyBaseLogger;
  /** Schedules refund lifecycle jobs (the job queue); refunds are created with their first job. */
  refundScheduler: RefundScheduler;
  /** Schedules void lifecycle jobs on the same queue (src/voids/lifecycle.ts). */
  voidScheduler: VoidScheduler;
  /** Webhook URL registration (updateWebhookURL.do). */
  webhooks: WebhookRegistry;
  /** The job queue, whose state /readyz reports. */
  jobQueue: Pick<JobQueue, 'running' | 'stats'>;
  /** The sandbox clock shared through the store (sandbox mode), moved by POST /sandbox/clock. */
  sandboxClock?: SharedSandboxClock | null;
  /** Rate pools (spec 8); default: counted in this process's memory. */
  pools?: RatePools;
  /** Look-to-book counter (223); default: in memory, paid orders from the store. */
  lookToBook?: LookToBook;
  /** Seat maps, extracts and quotes written before Fastify's request cycle (decision 0050); default true (tests compare both). */
  answerLane?: boolean;
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config } = opts;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const access = new AccessLog(logger);
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: false,
    genReqId: (req) => requestIdOf(req.headers['x-request-id']),
    // Fastify's own 503 while closing has its own body and no request id: ours answers it (shedWhileClosing)
    return503OnClosing: false,
    frameworkErrors,
    clientErrorHandler: clientErrors,
    // X-Forwarded-For/-Proto believed from these peers only (TRUST_PROXY): request.ip and request.protocol
    trustProxy: config.trustProxy,
    logController: access,
    // request.log is built on its first line (decision 0033)
    childLoggerFactory: (parent, bindings, options) => new RequestLogger(parent, bindings, options),
    forceCloseConnections: 'idle',
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false } },
  });
  // TypeBox, then the values no store can hold, on every route (src/http/validation.ts)
  app.setValidatorCompiler(wireValidatorCompiler);
  // JSON only (spec 5): anything else is refused with 415 instead of being parsed as text.
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('client', null);
  app.decorateReply('bodyStatus', null);

  const deps = depsOf(opts, app.log);
  app.decorate('deps', deps);
  app.addHook('onClose', async () => deps.pools.close());
  app.addHook('onClose', async () => deps.metrics.close());
  const lifecycle = { closing: false };
  addResponseHooks(app, deps, lifecycle);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler(app));

  // Browser pages of CORS_ORIGINS (decision 0048): registered only when set, so no request pays for it otherwise.
  if (config.corsOrigins.length > 0) await app.register(cors, { hook: 'onRequest', delegator: corsDelegator(config.corsOrigins) });
  // After CORS's hook, so that a browser page can read the 503 too.
  shedWhileClosing(app, lifecycle);
  // Answers compressed one by one at zlib's fastest level (decision 0040); kept answers keep their own gzip.
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: [...ANSWER_CODINGS],
    zlibOptions: ANSWER_ZLIB_OPTIONS,
  });
  await app.register(swagger, openApiOptions(config));
  // The browsable reference at /docs: Swagger UI's own files from the npm package (no CDN), over /openapi.json.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    uiConfig: { layout: 'BaseLayout', docExpansion: 'list', deepLinking: true, displayRequestDuration: true, tryItOutEnabled: false },
  });
  registerRoutes(app, deps);
  // The operator console under /console (docs/console.md), out of the OpenAPI document.
  await app.register(consolePlugin({ config, db: deps.db, clock: deps.clock, refunds: deps.refunds, invalidateClient: (id) => deps.authenticator.invalidate(id), sandboxClock: deps.sandboxClock,
    world: deps.world, booking: bookingDepsOf(app, deps),
    usage: { pools: deps.pools, lookToBook: deps.lookToBook }, webhooks: deps.webhooks }));
  // In front of Fastify's own request listener once ready (decision 0050): the server and its settings stay Fastify's.
  const lane =
    opts.answerLane === false
      ? null
      : new AnswerLane(
          {
            authenticator: deps.authenticator,
            headerPrefix: config.headerPrefix,
            bodyLimitBytes: config.bodyLimitBytes,
            cors: config.corsOrigins.length > 0,
            lifecycle,
            metrics: deps.metrics,
            access,
            log: app.log,
          },
          [
            seatMapLaneRoute(bookingDepsOf(app, deps), deps.pools.ancillary, deps.answerSerializers),
            extractPnrLaneRoute(deps.airlines, deps.pools.pnr),
            refundQuotationLaneRoute(deps.refunds, deps.answerSerializers),
          ],
        );
  app.decorate('answerLane', lane);
  await app.ready();
  if (lane) {
    const [fastifyHandler] = app.server.listeners('request') as Parameters<AnswerLane['front']>;
    app.server.removeListener('request', fastifyHandler);
    app.server.on('request', lane.front(fastifyHandler));
  }
  return app;
}

/** What the routes see, built once per app. */
function depsOf(opts: AppOptions, log: FastifyBaseLogger): AppDeps {
  const { config, store, clock } = opts;
  const seatMaps = new SeatMapCache();
  return {
    config,
    store,
    db: store.db,
    airlines: opts.airlines,
    clock,
    world: opts.world ?? null,
    authenticator: new ClientAuthenticator(store.db, clock),
    idempotency: new Idempotency(store.db, clock, config.idempotencyTtlHours * 3_600_000),
    metrics: new Metrics({
      sources: {
        db: store.db,
        clock,
        jobQueue: opts.jobQueue,
        seatMaps,
        storeMaintenance: store.maintenance,
        storeFigures: { enabled: config.metricsStore.enabled, maxAgeMs: config.metricsStore.maxAgeSeconds * 1000 },
      },
    }),
    refunds: {
      db: store.db,
      airlines: opts.airlines,
      clock,
      rates: worldRates(opts.world),
      offerTtlMs: config.offerTtlMinutes * 60_000,
      scheduler: opts.refundScheduler,
    },
    voids: { db: store.db, airlines: opts.airlines, clock, offerTtlMs: config.offerTtlMinutes * 60_000, scheduler: opts.voidScheduler },
    pools: opts.pools ?? createRatePools({ redis: null, log }),
    lookToBook: opts.lookToBook ?? createLookToBook({ db: store.db, clock, log }),
    seatMaps,
    sessions: new ChainSessions(store.db),
    webhooks: opts.webhooks,
    jobQueue: opts.jobQueue,
    sandboxClock: opts.sandboxClock ?? null,
    answerSerializers: new Map(),
  };
}

/** The request id on every answer, metrics per route, and keep-alive closed while shutting down. */
function addResponseHooks(app: FastifyInstance, deps: AppDeps, lifecycle: { closing: boolean }): void {
  // While shutting down, answers close their keep-alive connections so that draining can finish.
  app.addHook('preClose', async () => {
    lifecycle.closing = true;
  });
  // Callback-style hooks (no promise per request): these run on every answer of every route.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // `*` as the codings it stands for, before @fastify/compress (or a kept answer) reads the header
    const accepted = request.headers['accept-encoding'];
    if (accepted !== undefined && accepted.includes('*')) request.headers['accept-encoding'] = explicitCodings(accepted);
    // A body's coding is case-insensitive (RFC 9110); @fastify/compress compares it as written (`GZIP` was refused)
    const coding = request.headers['content-encoding'];
    if (coding !== undefined) request.headers['content-encoding'] = coding.trim().toLowerCase();
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // The answer's body status, for the metrics: read from the object before it is serialized (answers sent
  // as ready bytes, the cached seat maps, set it themselves).
  app.addHook('preSerialization', (_request, reply, payload: unknown, done) => {
    const status = (payload as { status?: unknown } | null)?.status;
    if (typeof status === 'number') reply.bodyStatus = status;
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    deps.metrics.observe(request.routeOptions.url ?? 'unknown', reply.statusCode, reply.bodyStatus, elapsedMs(request, reply) / 1000);
    done();
  });
}

/**
 * A request that reaches the process once it is shutting down (its headers completed after the drain began, on a
 * connection busy at that moment) is not served: 503 in the wire envelope with the request id, `Retry-After: 1`
 * and `Connection: close`, before anything is read or written — another process answers the retry (decision 0003,
 * amended 2026-12-02; Fastify's own answer had a body of its own and no request id).
 */
function shedWhileClosing(app: FastifyInstance, lifecycle: { closing: boolean }): void {
  app.addHook('onRequest', (request, reply, done) => {
    // a request the answer lane took arrived before the drain began (its work may be done): served, not shed
    if (!lifecycle.closing || tookByLane(request.raw)) {
      done();
      return;
    }
    reply.header('connection', 'close').header('retry-after', '1');
    void sendError(request, reply, COMMON.UNAVAILABLE, 'the service is shutting down and did nothing with this request; send it again', 503);
  });
}

function openApiOptions(config: Config) {
  return {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'postbook', version: '0.1.0', description: 'Post-booking service: refunds, seats, PNR extraction and claim' },
      components: {
        securitySchemes: {
          clientId: { type: 'apiKey' as const, in: 'header', name: `x-${config.headerPrefix}-client-id` },
          clientSecret: { type: 'apiKey' as const, in: 'header', name: `x-${config.headerPrefix}-client-secret` },
        },
      },
      security: [{ clientId: [], clientSecret: [] }],
      // the webhook payloads (OpenAPI 3.1 top-level webhooks) and every operation's examples: src/http/openapi-docs.ts
      webhooks: webhooksSection(config),
    },
    transformObject: ((d) => ('openapiObject' in d ? addExamples(d.openapiObject) : d.swaggerObject)) satisfies SwaggerTransformObject,
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    /** The answer lane: seat maps, extracts and quotes answered before Fastify (decision 0050); null when built without it. */
    answerLane: AnswerLane | null;
  }
  interface FastifyReply {
    /** The answer's `status` field (the metrics' body status); null until known. */
    bodyStatus: number | null;
  }
}
