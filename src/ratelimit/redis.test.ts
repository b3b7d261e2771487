// REDIS_URL: configuration and connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../config.js';
import { connectRedis } from './redis.js';

test('REDIS_URL is optional and must be a redis:// or rediss:// URL', () => {
  assert.equal(loadConfig({}).redisUrl, null);
  assert.equal(loadConfig({ REDIS_URL: ' redis://127.0.0.1:6379 ' }).redisUrl, 'redis://127.0.0.1:6379');
  assert.equal(loadConfig({ REDIS_URL: 'rediss://user:pw@cache.example:6380/2' }).redisUrl, 'rediss://user:pw@cache.example:6380/2');
  for (const bad of ['127.0.0.1:6379', 'http://127.0.0.1:6379', 'redis://']) {
    assert.throws(
      () => loadConfig({ REDIS_URL: bad }),
      (err: unknown) => err instanceof ConfigError && err.problems.some((p) => p.startsWith('REDIS_URL')),
      bad,
    );
  }
});

test('connectRedis refuses an unreachable Redis within its timeout', async () => {
  await assert.rejects(connectRedis('redis://127.0.0.1:1', undefined, 300), /REDIS_URL/);
});

test('connectRedis connects to the Redis of REDIS_URL', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const redis = await connectRedis(process.env.REDIS_URL!);
  try {
    assert.equal(await redis.ping(), 'PONG');
  } finally {
    redis.disconnect();
  }
});
