// The Redis connection of the rate pools and the look-to-book counters (REDIS_URL). Fails fast: a command
// that cannot reach Redis errors at once instead of queueing, so a Redis outage lets requests through
// (logged) rather than holding them.
import { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';

export function openRedis(url: string, log?: Pick<FastifyBaseLogger, 'warn'>): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 1_000,
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

/** Waits for the first connection (boot refuses to start against an unreachable REDIS_URL). */
export async function connectRedis(url: string, log?: Pick<FastifyBaseLogger, 'warn'>, timeoutMs = 5_000): Promise<Redis> {
  const redis = openRedis(url, log);
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
