// The Redis connection of the rate pools and the look-to-book counters (REDIS_URL). Fails fast: a command
// that cannot reach Redis errors at once instead of queueing, so a Redis outage lets requests through
// (logged) rather than holding them.
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The client, its module loaded on first use: a deployment without REDIS_URL (the default) never loads ioredis, whose
 * ~45 modules cost every process start ~0.3 s of CPU here (the CLI's commands and the tests' processes among them).
 */
export async function openRedis(url: string, log?: Pick<FastifyBaseLogger, 'warn'>): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
    // A command that timed out was answered without Redis (the request let through): it must not be sent again
    // at the reconnect, when it would count that request in its pool at the time Redis comes back (found by a
    // review: every request of a stall landed in the pools at once, and a wave of 429s followed the outage).
    autoResendUnfulfilledCommands: false,
    // keep reconnecting, at most every 2 s
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  let last = 0;
  redis.on('error', (err: Error) => {
    // one line per 10 s is enough while Redis is away
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    log?.warn({ err: { message: err.message } }, 'redis connection error');
  });
  return redis;
}

/** A warning at most once per `everyMs` (a Redis outage would otherwise log one line per request). */
export function throttledWarn(log: Pick<FastifyBaseLogger, 'warn'> | undefined, msg: string, everyMs = 10_000): (err: unknown) => void {
  let last = -Infinity;
  let skipped = 0;
  return (err) => {
    const now = Date.now();
    if (now - last < everyMs) {
      skipped++;
      return;
    }
    last = now;
    log?.warn({ err: { message: err instanceof Error ? err.message : String(err) }, ...(skipped > 0 ? { alikeSinceLast: skipped } : {}) }, msg);
    skipped = 0;
  };
}

/**
 * After a failed Redis call, the rate pools and look-to-book counters leave Redis alone for `ms`: their requests
 * pass at once (as they would after the call's time-out) instead of each waiting its 1 s, and no commands pile up
 * in the client's queue while Redis does not answer.
 */
export class RedisBreaker {
  private openUntil = 0;
  constructor(private readonly ms = 2_000) {}
  /** Whether Redis may be called now. */
  get closed(): boolean {
    return Date.now() >= this.openUntil;
  }
  trip(): void {
    this.openUntil = Date.now() + this.ms;
  }
}

/** Waits for the first connection (boot refuses to start against an unreachable REDIS_URL). */
export async function connectRedis(url: string, log?: Pick<FastifyBaseLogger, 'warn'>, timeoutMs = 5_000): Promise<Redis> {
  const redis = await openRedis(url, log);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`REDIS_URL: no connection within ${timeoutMs} ms`)), timeoutMs);
      redis.once('ready', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return redis;
}

/**
 * Ends the connection: QUIT when Redis answers, else at once. quit() refuses straight away while Redis is
 * unreachable (no offline queue), which failed the shutdown before the store was closed (a review).
 */
export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}
