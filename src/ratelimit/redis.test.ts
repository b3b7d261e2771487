// REDIS_URL: configuration and connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../config.js';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { closeRedis, connectRedis } from './redis.js';
import { createRatePools } from './pools.js';
import { poolCall, poolTestApp } from '../test-support/pool-app.js';
import { waitFor } from '../test-support/wait.js';

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

/** A TCP relay in front of the test Redis that can stall (hold every byte) or drop its connections. */
async function relay(target: URL) {
  let mode: 'pass' | 'stall' | 'drop' = 'pass';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (mode === 'drop') return client.destroy();
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (d) => void (mode === 'pass' && upstream.write(d)));
    upstream.on('data', (d) => void (mode === 'pass' && client.write(d)));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `redis://127.0.0.1:${(server.address() as net.AddressInfo).port}${target.pathname}`,
    set(m: typeof mode) {
      mode = m;
      if (m === 'drop') for (const s of sockets) s.destroy();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

test("a Redis that stops answering: requests pass within its 1 s time-out and then at once; none of them is counted when it answers again (found by a review: the stalled commands were sent again at the reconnect)", { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const r = await relay(new URL(process.env.REDIS_URL!));
  const warnings: string[] = [];
  const log = { warn: (_o: unknown, msg?: string) => void warnings.push(msg ?? '') };
  const redis = await connectRedis(r.url, log);
  const keyPrefix = `postbook:test-stall:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const app = await poolTestApp(createRatePools({ redis, keyPrefix, log }), { small: { rateLimits: { ancillaryPerMinute: 5 } } });
  try {
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 200);
    r.set('stall');
    let t0 = Date.now();
    const stalled = await Promise.all(Array.from({ length: 20 }, () => poolCall(app, '/getLuggage.do', 'small')));
    assert.deepEqual([...new Set(stalled.map((a) => a.http))], [200], 'let through while Redis does not answer');
    assert.ok(Date.now() - t0 < 2_500, `${Date.now() - t0} ms`);
    t0 = Date.now();
    for (let i = 0; i < 10; i++) assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 200);
    assert.ok(Date.now() - t0 < 500, `after a failure Redis is left alone for a moment: ${Date.now() - t0} ms for 10 requests`);
    r.set('drop'); // the connection breaks; ioredis reconnects through the relay once it passes again
    r.set('pass');
    await waitFor('Redis back', async () => redis.status === 'ready' && (await redis.ping().catch(() => null)) === 'PONG', 10_000, 100);
    await new Promise((done) => setTimeout(done, 2_100)); // the breaker's pause
    assert.equal(await redis.zcard(`${keyPrefix}ancillary:small`), 1, 'only the request Redis answered is counted');
    for (let i = 0; i < 4; i++) assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 200);
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 429, 'the pool counts again');
    assert.ok(warnings.filter((w) => w.startsWith('rate pool store failed')).length <= 2, `one warning per 10 s, not one per request: ${warnings.join(' | ')}`);
  } finally {
    await app.close();
    const keys = await redis.keys(`${keyPrefix}*`).catch(() => []);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await r.close();
  }
});

test('closeRedis ends a connection whose Redis went away (quit() alone refused: the shutdown failed before the store was closed)', { skip: process.env.REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const target = new URL(process.env.REDIS_URL!);
  const sockets = new Set<net.Socket>();
  const relay = net.createServer((client) => {
    const up = net.connect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(up);
    client.pipe(up).pipe(client);
    client.on('error', () => {});
    up.on('error', () => {});
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const redis = await connectRedis(`redis://127.0.0.1:${(relay.address() as net.AddressInfo).port}`);
  assert.equal(await redis.ping(), 'PONG');
  relay.close();
  for (const s of sockets) s.destroy();
  await waitFor('the connection lost', async () => redis.status !== 'ready', 2_000, 20);
  await assert.rejects(redis.quit(), /writeable/, 'quit() alone refuses');
  await assert.doesNotReject(closeRedis(redis));
});
