// Rolling-window stores for @fastify/rate-limit. The plugin's own stores count fixed windows that start at a
// key's first request (60 requests at 0:59 and 60 more at 1:01 pass); spec 8 and docs/architecture.md ask for a
// rolling window, so these keep the time of every accepted request (a sliding log) and never record a
// refused one (docs/architecture.md: requests refused by the limiter do not count). Decision record 0013.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { RedisBreaker } from './redis.js';

/** The error a Redis store answers while its breaker is open: the request passes uncounted, nothing is logged. */
const REDIS_SKIPPED = new Error('rate pool store skipped: Redis failed within the last seconds');

type Result = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Result) => void;

/**
 * What the plugin needs of a store. `current` is the count including this request (more than `max` when
 * refused); `ttl` is how long until the next slot frees (the Retry-After of a refused request).
 */
export interface WindowStore {
  incr(key: string, cb: Callback, windowMs: number, max: number): void;
  child(): WindowStore;
  /** Accepted requests of a key in the window now, without recording one (the console's live usage). */
  count(key: string, windowMs: number): Promise<number>;
  /**
   * Takes back the key's latest accepted request: one that was counted and then turned out to be a validation
   * failure, which does not count (spec 8). The latest rather than that very request: the same count, and
   * no slot frees later than it would have.
   */
  uncount(key: string): void;
}

/** The plugin builds its store with `new options.store(params)`: hand it this one instance. */
export function storeCtor(store: WindowStore): FastifyRateLimitStoreCtor {
  const ctor = function () {
    return store;
  };
  return ctor as unknown as FastifyRateLimitStoreCtor;
}

/** Accepted request times of one key, oldest first, from `head` on (a queue without shifting on every call). */
interface Log {
  times: number[];
  head: number;
}

const SWEEP_AT_LEAST = 10_000;

/** In-process sliding log: per key, the times of accepted requests. Memory: 8 bytes per request in the window. */
export class MemoryWindowStore implements WindowStore, FastifyRateLimitStore {
  private readonly logs = new Map<string, Log>();
  /** The longest window any key is counted over: a sweep forgets only logs older than it (the pools' windows differ). */
  private longest = 0;
  /**
   * A new key sweeps when the store holds this many: 10,000, or twice what the last sweep left, so that many
   * keys all still in their windows cost one sweep per doubling, not a full pass for every new key.
   */
  private sweepAt = SWEEP_AT_LEAST;

  constructor(private readonly now: () => number = Date.now) {}

  incr(key: string, cb: Callback, windowMs: number, max: number): void {
    const t = this.now();
    if (windowMs > this.longest) this.longest = windowMs;
    let log = this.logs.get(key);
    if (!log) {
      if (this.logs.size >= this.sweepAt) {
        this.sweep(t, this.longest);
        this.sweepAt = Math.max(SWEEP_AT_LEAST, 2 * this.logs.size);
      }
      log = { times: [], head: 0 };
      this.logs.set(key, log);
    }
    const { times } = log;
    while (log.head < times.length && times[log.head]! <= t - windowMs) log.head++;
    if (log.head > 64 && log.head * 2 > times.length) {
      times.copyWithin(0, log.head);
      times.length -= log.head;
      log.head = 0;
    }
    const count = times.length - log.head;
    if (count < max) {
      times.push(t);
      cb(null, { current: count + 1, ttl: times[log.head]! + windowMs - t });
      return;
    }
    // Refused: not recorded. The next slot frees when the request that fills the limit leaves the window
    // (the limit may have been lowered below what the log holds).
    cb(null, { current: count + 1, ttl: times[times.length - max]! + windowMs - t });
  }

  child(): MemoryWindowStore {
    return this;
  }

  async count(key: string, windowMs: number): Promise<number> {
    const log = this.logs.get(key);
    if (!log) return 0;
    const since = this.now() - windowMs;
    let n = 0;
    for (let i = log.times.length - 1; i >= log.head && log.times[i]! > since; i--) n++;
    return n;
  }

  uncount(key: string): void {
    const log = this.logs.get(key);
    if (log && log.times.length > log.head) log.times.pop();
  }

  /** Keys held (a test reads it). */
  get keyCount(): number {
    return this.logs.size;
  }

  /** Sweeps so far (a test reads it). */
  get sweeps(): number {
    return this.sweepCount;
  }
  private sweepCount = 0;

  /** Forgets keys whose whole log has left the window. */
  private sweep(t: number, windowMs: number) {
    this.sweepCount++;
    for (const [key, log] of this.logs) {
      const last = log.times[log.times.length - 1];
      if (last === undefined || last <= t - windowMs) this.logs.delete(key);
    }
  }
}

// Runs in Redis: one atomic step per request, on Redis's clock so every API process agrees.
const SLIDING_LOG = `
local key = KEYS[1]
local window = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local n = redis.call('ZCARD', key)
if n < max then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, window)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return {n + 1, tonumber(first[2]) + window - now}
end
local at = redis.call('ZRANGE', key, n - max, n - max, 'WITHSCORES')
return {n + 1, tonumber(at[2]) + window - now}
`;

// Read only: the requests of a key still in the window, on Redis's clock.
const WINDOW_COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZCOUNT', KEYS[1], '(' .. (now - tonumber(ARGV[1])), '+inf')
`;

interface SlidingLogRedis extends Redis {
  postbookSlidingLog(key: string, windowMs: number, max: number, member: string): Promise<[number, number]>;
  postbookWindowCount(key: string, windowMs: number): Promise<number>;
}

/** Sliding log in a Redis sorted set per key: the pool holds across API processes. */
export class RedisWindowStore implements WindowStore, FastifyRateLimitStore {
  private readonly redis: SlidingLogRedis;
  private readonly memberPrefix = randomBytes(6).toString('hex');
  private seq = 0;

  constructor(
    redis: Redis,
    private readonly keyPrefix: string,
    private readonly onError: (err: Error) => void = () => undefined,
    private readonly breaker = new RedisBreaker(),
  ) {
    this.redis = redis as SlidingLogRedis;
    if (typeof this.redis.postbookSlidingLog !== 'function') {
      redis.defineCommand('postbookSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG });
    }
    if (typeof this.redis.postbookWindowCount !== 'function') {
      redis.defineCommand('postbookWindowCount', { numberOfKeys: 1, lua: WINDOW_COUNT });
    }
  }

  incr(key: string, cb: Callback, windowMs: number, max: number): void {
    if (!this.breaker.closed) return cb(REDIS_SKIPPED);
    // Members must be unique even for two requests in one millisecond from two processes.
    const member = `${this.memberPrefix}:${(this.seq = (this.seq + 1) % Number.MAX_SAFE_INTEGER)}`;
    this.redis.postbookSlidingLog(this.keyPrefix + key, windowMs, max, member).then(
      ([current, ttl]) => cb(null, { current, ttl }),
      (err: Error) => {
        this.breaker.trip();
        this.onError(err);
        cb(err);
      },
    );
  }

  child(): RedisWindowStore {
    return this;
  }

  async count(key: string, windowMs: number): Promise<number> {
    if (!this.breaker.closed) throw REDIS_SKIPPED;
    return Number(await this.redis.postbookWindowCount(this.keyPrefix + key, windowMs));
  }

  uncount(key: string): void {
    if (!this.breaker.closed) return;
    // the member of the highest score: the latest accepted request (of any process)
    this.redis.zpopmax(this.keyPrefix + key).catch((err: Error) => {
      this.breaker.trip();
      this.onError(err);
    });
  }
}
