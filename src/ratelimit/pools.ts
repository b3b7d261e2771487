// Rate pools (spec 8, docs/architecture.md "The booking chain"): per client, rolling 60 s. seatAvailability.do and
// getLuggage.do share the ancillary pool; verify.do and getOffers.do share the verify pool; search.do has a pool of
// its own over a rolling second (the original interface's 10 a second). Routes of a pool are registered inside one
// Fastify plugin scope, and the scope calls `pool.attach(scope)` first.
//
// The limiter is @fastify/rate-limit with a rolling-window store (window-store.ts): in memory by default,
// in Redis with REDIS_URL so a pool holds across API processes. It runs as a preHandler hook of the pool's
// scope, so authentication failures (onRequest) and failures of the request schema never reach it and never
// count; a request the handler then refuses with its family's validation status (seatAvailability.do's 220:
// a carrier or flights not the session's) is taken back; refused requests are not recorded by the store.
// Decision record 0013.
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { ApiError, VALIDATION_STATUS } from '../errors.js';
import type { Redis } from 'ioredis';
import { MemoryWindowStore, RedisWindowStore, storeCtor, type WindowStore } from './window-store.js';
import { throttledWarn } from './redis.js';

export type PoolName = 'ancillary' | 'verify' | 'pnr' | 'search';

export interface RatePool {
  readonly name: PoolName;
  /** Adds the limiter to this scope (register only the pool's routes in it); `onRefused` hears each 429. */
  attach(scope: FastifyInstance, onRefused?: (pool: PoolName) => void): void;
  /**
   * Counts one request of `client` as the scope's hook does (the same limiter and store), for the answer lane
   * (src/http/lane.ts), which answers outside Fastify's hooks: `counted` with the headers' figures,
   * `uncounted` (the store failed: the request passes, no headers), or `exceeded` (nothing recorded: the lane hands
   * the request to the hook, which refuses it). Null before attach().
   */
  take(client: { clientId: string; settings?: Record<string, unknown> }): Promise<PoolVerdict> | null;
  /** Takes back one request `take` counted (the lane hands a request to Fastify after all, which counts it). */
  untake(clientId: string): void;
}

export type PoolVerdict = { kind: 'counted'; limit: number; remaining: number } | { kind: 'uncounted' } | { kind: 'exceeded' };

export interface RatePools {
  ancillary: RatePool;
  verify: RatePool;
  /** extractPnr.do and pnr/claim.do: a PNR and a name must not be probed at line rate (decision 0026). */
  pnr: RatePool;
  /** search.do: 10 a second by default (the original interface's public notes), over a rolling second. */
  search: RatePool;
  /** Each pool's accepted requests of a client in the current window and its limit, without counting one. */
  usage(clientId: string, settings: Record<string, unknown> | undefined): Promise<PoolUsage[]>;
  close(): Promise<void>;
}

export interface PoolUsage {
  pool: PoolName;
  used: number;
  limit: number;
  windowSeconds: number;
}

export interface PoolDefaults {
  ancillaryPerMinute: number;
  verifyPerMinute: number;
  pnrPerMinute: number;
  searchPerSecond: number;
}

export const DEFAULT_POOL_LIMITS: PoolDefaults = { ancillaryPerMinute: 60, verifyPerMinute: 60, pnrPerMinute: 120, searchPerSecond: 10 };

export interface RatePoolsOptions {
  /** Counts in Redis when given (the caller owns the connection); in this process's memory when null. */
  redis: Redis | null;
  /** Requests per minute of a client without `rateLimits` in its settings. */
  defaults?: PoolDefaults;
  /** Prefix of the Redis keys (tests use their own). */
  keyPrefix?: string;
  /** Window length of the per-minute pools; 60 s in production. */
  windowMs?: number;
  /** Window length of the per-second pool (search); 1 s in production. */
  secondWindowMs?: number;
  /** Time source of the in-memory store (tests); Redis uses its own clock. */
  now?: () => number;
  /** Where a Redis failure is reported (the pools then let requests through: a limiter outage is no outage). */
  log?: Pick<FastifyBaseLogger, 'warn'>;
}

const SETTING: Record<PoolName, keyof PoolDefaults> = { ancillary: 'ancillaryPerMinute', verify: 'verifyPerMinute', pnr: 'pnrPerMinute', search: 'searchPerSecond' };
const POOLS: PoolName[] = ['ancillary', 'verify', 'pnr', 'search'];

/** The client's own limit for a pool (client settings `rateLimits`), else the default. */
export function poolLimit(settings: Record<string, unknown> | undefined, pool: PoolName, defaults: PoolDefaults): number {
  const limits = settings?.rateLimits as Partial<PoolDefaults> | undefined;
  const own = limits?.[SETTING[pool]];
  return typeof own === 'number' && Number.isInteger(own) && own >= 1 ? own : defaults[SETTING[pool]];
}

/** The wire body of a refused request (docs/architecture.md "Wire conventions": both spellings). */
export function overLimitBody(pool: PoolName, limit: number, retryAfter: number) {
  const message = `rate limit exceeded: the ${pool} pool allows ${limit} requests per ${pool === 'search' ? 'second' : 'minute'}; retry in ${retryAfter} s`;
  return { status: 429, msg: message, code: 429, message, limitType: pool, limit, retryAfter };
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** The statuses that refuse a request's own fields on its route: declared, else the family's validation status. */
function invalidStatuses(request: FastifyRequest): readonly number[] {
  const { invalid, family } = request.routeOptions.config;
  return invalid ?? (family !== undefined ? [VALIDATION_STATUS[family]] : []);
}

function createPool(name: PoolName, store: WindowStore, opts: { windowMs: number; defaults: PoolDefaults }): RatePool {
  let attached: FastifyInstance | null = null;
  let limiter: Limiter | undefined;
  const limiterOf = (scope: FastifyInstance) => (limiter ??= scope.createRateLimit());
  return {
    name,
    attach(scope, onRefused) {
      attached = scope;
      // fastify-plugin: the limiter decorates this scope only. global: false — the plugin's onRoute hook
      // would miss the routes this scope declares right after attach(), and its groupId does not share a
      // counter across routes (STACK.md, upstream #463); one hook on the scope with one key per client does.
      void scope.register(rateLimit, {
        global: false,
        hook: 'preHandler',
        store: storeCtor(store),
        timeWindow: opts.windowMs,
        max: (request: FastifyRequest) => poolLimit(request.client?.settings, name, opts.defaults),
        keyGenerator: (request: FastifyRequest) => `${name}:${request.client?.clientId ?? ''}`,
        // Only authenticated callers are counted; a scope without authentication is not limited.
        allowList: (request: FastifyRequest) => request.client == null,
        // The store reports Redis failures; the request then passes.
        skipOnError: true,
      });
      /** Requests this pool counted (a validation failure found by the handler is taken back). */
      const counted = new WeakSet<FastifyRequest>();
      // preHandler: after authentication (onRequest) and body validation, so neither failure counts.
      scope.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
        const verdict = await limiterOf(scope)(request);
        if (verdict.isAllowed) return;
        if (!verdict.isExceeded) {
          // The store counted it (current ≥ 1, so fewer remain than the limit) unless it failed and the request
          // passes uncounted: then there is nothing to take back later, nor a count to tell.
          if (verdict.remaining >= verdict.max) return;
          counted.add(request);
          reply.header('x-ratelimit-limit', verdict.max).header('x-ratelimit-remaining', verdict.remaining);
          return;
        }
        const retryAfter = Math.min(60, Math.max(0, verdict.ttlInSeconds));
        onRefused?.(name);
        return reply
          .code(429)
          .header('retry-after', String(retryAfter))
          .header('x-ratelimit-limit', verdict.max)
          .header('x-ratelimit-remaining', 0)
          .type('application/json; charset=utf-8')
          .serializer(JSON.stringify)
          .send(overLimitBody(name, verdict.max, retryAfter));
      });
      // A validation failure the handler found (a status the route declares `invalid`, by default its family's
      // validation status) does not count either (spec 8: validation failures are not counted; found by a review:
      // search.do's 101/102, verify.do's and getLuggage.do's 212 were counted). onError: nothing on the way of an
      // answered request.
      scope.addHook('onError', (request, _reply, error, done) => {
        if (counted.has(request) && error instanceof ApiError && invalidStatuses(request).includes(error.status)) {
          store.uncount(`${name}:${request.client?.clientId ?? ''}`);
        }
        done();
      });
    },
    take(client) {
      if (!attached) return null;
      // What the limiter reads of a request (keyGenerator, max, allowList above; groupId: none in these scopes)
      const asked = { client, routeOptions: { config: {} } } as unknown as FastifyRequest;
      return limiterOf(attached)(asked).then((verdict): PoolVerdict => {
        if (verdict.isAllowed) return { kind: 'uncounted' };
        if (verdict.isExceeded) return { kind: 'exceeded' };
        if (verdict.remaining >= verdict.max) return { kind: 'uncounted' };
        return { kind: 'counted', limit: verdict.max, remaining: verdict.remaining };
      });
    },
    untake(clientId) {
      store.uncount(`${name}:${clientId}`);
    },
  };
}

export function createRatePools(opts: RatePoolsOptions): RatePools {
  const defaults = opts.defaults ?? DEFAULT_POOL_LIMITS;
  const minute = opts.windowMs ?? 60_000;
  const windowOf = (pool: PoolName) => (pool === 'search' ? (opts.secondWindowMs ?? 1_000) : minute);
  const prefix = opts.keyPrefix ?? 'postbook:rate:';
  const onError = throttledWarn(opts.log, 'rate pool store failed; requests let through');
  const store: WindowStore = opts.redis ? new RedisWindowStore(opts.redis, prefix, onError) : new MemoryWindowStore(opts.now);
  const pool = (name: PoolName) => createPool(name, store, { windowMs: windowOf(name), defaults });
  return {
    ancillary: pool('ancillary'),
    verify: pool('verify'),
    pnr: pool('pnr'),
    search: pool('search'),
    async usage(clientId, settings) {
      // The same keys the limiter counts under (keyGenerator above).
      return Promise.all(
        POOLS.map(async (name) => {
          const windowMs = windowOf(name);
          return { pool: name, used: await store.count(`${name}:${clientId}`, windowMs), limit: poolLimit(settings, name, defaults), windowSeconds: windowMs / 1000 };
        }),
      );
    },
    // The Redis connection belongs to the caller; the in-memory logs go with the process.
    close: async () => undefined,
  };
}
