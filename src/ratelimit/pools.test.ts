// Rate pools: sharing within a pool, independence across pools and clients, per-client limits, the
// counting rules of docs/architecture.md "The booking chain", the 429 answer, the rolling window, and (with REDIS_URL) one pool across
// two app instances.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createRatePools, poolLimit, DEFAULT_POOL_LIMITS } from './pools.js';
import { poolCall, poolTestApp, POOL_ROUTES, type TestClients } from '../test-support/pool-app.js';

const CLIENTS: TestClients = {
  alpha: {},
  beta: {},
  small: { rateLimits: { ancillaryPerMinute: 3, verifyPerMinute: 5 } },
};

/** Accepted (HTTP 200) answers among n calls spread over the given urls. */
async function accepted(app: Parameters<typeof poolCall>[0], urls: readonly string[], n: number, client = 'alpha') {
  let ok = 0;
  for (let i = 0; i < n; i++) if ((await poolCall(app, urls[i % urls.length]!, client)).http === 200) ok++;
  return ok;
}

test('the two routes of a pool share one counter of 60 per client; the other pool and other clients are independent', async () => {
  const app = await poolTestApp(createRatePools({ redis: null }), CLIENTS);
  try {
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 80), 60);
    // both routes of the pool are now refused
    for (const url of POOL_ROUTES.ancillary) assert.equal((await poolCall(app, url, 'alpha')).http, 429);
    // the verify pool has its own 60
    assert.equal(await accepted(app, POOL_ROUTES.verify, 61), 60);
    // another client has its own counters
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 60, 'beta'), 60);
  } finally {
    await app.close();
  }
});

test('a per-client limit from the client settings applies to each pool', async () => {
  const app = await poolTestApp(createRatePools({ redis: null }), CLIENTS);
  try {
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 10, 'small'), 3);
    assert.equal(await accepted(app, POOL_ROUTES.verify, 10, 'small'), 5);
  } finally {
    await app.close();
  }
  assert.equal(poolLimit({ rateLimits: { ancillaryPerMinute: 0 } }, 'ancillary', DEFAULT_POOL_LIMITS), 60, 'invalid setting → default');
  assert.equal(poolLimit({ rateLimits: { verifyPerMinute: 7 } }, 'ancillary', DEFAULT_POOL_LIMITS), 60, 'other pool setting → default');
  assert.equal(poolLimit(undefined, 'verify', { ancillaryPerMinute: 1, verifyPerMinute: 9, pnrPerMinute: 3, searchPerSecond: 2 }), 9, 'configured default');
  assert.equal(poolLimit({ rateLimits: { pnrPerMinute: 5 } }, 'pnr', DEFAULT_POOL_LIMITS), 5, 'the pnr pool has its own setting');
  assert.equal(DEFAULT_POOL_LIMITS.pnrPerMinute, 120);
});

test('invalid bodies and missing or wrong credentials do not count; business failures do', async () => {
  const app = await poolTestApp(createRatePools({ redis: null }), CLIENTS);
  try {
    for (let i = 0; i < 20; i++) {
      const invalid = await poolCall(app, '/seatAvailability.do', 'small', { sessionId: '' });
      assert.equal(invalid.http, 200);
      assert.equal(invalid.body.status, 220, 'validation failure answers the seat family code');
      assert.equal((await poolCall(app, '/getLuggage.do', null)).http, 401);
      const wrong = await app.inject({
        method: 'POST',
        url: '/getLuggage.do',
        headers: { 'content-type': 'application/json', 'x-service-client-id': 'small', 'x-service-client-secret': 'nope' },
        payload: '{"sessionId":"s"}',
      });
      assert.equal(wrong.statusCode, 401);
    }
    // spec 8: a validation failure found by the handler (seatAvailability.do's 220 for a carrier or flights not
    // the session's) is taken back once answered
    for (let i = 0; i < 20; i++) {
      const invalid = await poolCall(app, '/seatAvailability.do', 'small', { sessionId: 's', invalid: true });
      assert.equal(invalid.http, 200);
      assert.equal(invalid.body.status, 220);
    }
    // the client's 3 are all still there; a business failure (status 214) uses one of them
    const failed = await poolCall(app, '/seatAvailability.do', 'small', { sessionId: 's', fail: true });
    assert.equal(failed.http, 200);
    assert.equal(failed.body.status, 214);
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 5, 'small'), 2);
  } finally {
    await app.close();
  }
});

test('over the limit: HTTP 429, the documented body, Retry-After in whole seconds; refusals are not counted and the window rolls', async () => {
  let now = 1_000_000;
  const app = await poolTestApp(createRatePools({ redis: null, now: () => now }), CLIENTS);
  try {
    // requests at t=0 s, 10 s, 20 s fill the 3 of client "small"
    for (const at of [0, 10_000, 20_000]) {
      now = 1_000_000 + at;
      assert.equal((await poolCall(app, '/seatAvailability.do', 'small')).http, 200);
    }
    now = 1_000_000 + 30_500;
    const refused = await poolCall(app, '/getLuggage.do', 'small');
    assert.equal(refused.http, 429);
    assert.match(String(refused.headers['content-type']), /^application\/json/);
    assert.deepEqual(Object.keys(refused.body).sort(), ['code', 'limit', 'limitType', 'message', 'msg', 'retryAfter', 'status']);
    assert.equal(refused.body.status, 429);
    assert.equal(refused.body.code, 429);
    assert.equal(refused.body.limitType, 'ancillary');
    assert.equal(refused.body.limit, 3);
    assert.equal(refused.body.msg, refused.body.message);
    // the first request leaves the window at t=60 s: 29.5 s from now → 30 whole seconds
    assert.equal(refused.body.retryAfter, 30);
    assert.equal(refused.headers['retry-after'], '30');
    // many refusals later, the first slot still frees at t=60 s (refusals were not recorded)
    for (let i = 0; i < 50; i++) assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 429);
    now = 1_000_000 + 59_999;
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 429);
    now = 1_000_000 + 60_000;
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 200, 'rolling: one slot freed');
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 429, 'rolling: only one');
    now = 1_000_000 + 70_000;
    assert.equal((await poolCall(app, '/getLuggage.do', 'small')).http, 200, 'the t=10 s request left the window');
    // accepted answers carry the remaining count
    now = 1_000_000 + 200_000;
    const fresh = await poolCall(app, '/seatAvailability.do', 'small');
    assert.equal(fresh.headers['x-ratelimit-limit'], '3');
    assert.equal(fresh.headers['x-ratelimit-remaining'], '2');
  } finally {
    await app.close();
  }
});

const REDIS_URL = process.env.REDIS_URL;

test('with Redis, a validation failure found by the handler is taken back from the shared pool', { skip: REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const keyPrefix = `postbook:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(REDIS_URL!);
  const pools = createRatePools({ redis, keyPrefix });
  const app = await poolTestApp(pools, CLIENTS);
  try {
    for (let i = 0; i < 10; i++) assert.equal((await poolCall(app, '/getLuggage.do', 'small', { sessionId: 's', invalid: true })).body.status, 220);
    // the same connection: the take-backs are done before these
    assert.equal((await pools.usage('small', CLIENTS.small)).find((u) => u.pool === 'ancillary')!.used, 0);
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 5, 'small'), 3);
  } finally {
    await app.close();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
});

test('with Redis, two app instances share one pool: exactly 60 of 80 accepted', { skip: REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const keyPrefix = `postbook:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redisA = new Redis(REDIS_URL!);
  const redisB = new Redis(REDIS_URL!);
  const appA = await poolTestApp(createRatePools({ redis: redisA, keyPrefix }), CLIENTS);
  const appB = await poolTestApp(createRatePools({ redis: redisB, keyPrefix }), CLIENTS);
  try {
    const calls = Array.from({ length: 80 }, (_, i) => poolCall(i % 2 ? appA : appB, POOL_ROUTES.ancillary[i % 4 < 2 ? 0 : 1], 'alpha'));
    const answers = await Promise.all(calls);
    assert.equal(answers.filter((a) => a.http === 200).length, 60);
    const refused = answers.filter((a) => a.http === 429);
    assert.equal(refused.length, 20);
    for (const r of refused) {
      assert.equal(r.body.limitType, 'ancillary');
      const retry = Number(r.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 0 && retry <= 60, `Retry-After ${retry}`);
      assert.equal(r.body.retryAfter, retry);
    }
    // the verify pool and another client are untouched, across instances too
    assert.equal((await poolCall(appA, '/verify.do', 'alpha')).http, 200);
    assert.equal((await poolCall(appB, '/getLuggage.do', 'beta')).http, 200);
  } finally {
    await appA.close();
    await appB.close();
    const keys = await redisA.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redisA.del(...keys);
    redisA.disconnect();
    redisB.disconnect();
  }
});

test('with Redis down, requests pass and the failure is logged — once, not once per request', async () => {
  // a port nothing listens on; fail fast instead of queueing
  const redis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  const warnings: unknown[] = [];
  const app = await poolTestApp(createRatePools({ redis, log: { warn: (obj: unknown) => void warnings.push(obj) } }), CLIENTS);
  try {
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 5, 'small'), 5);
    assert.equal(warnings.length, 1);
  } finally {
    await app.close();
    redis.disconnect();
  }
});

test('the in-memory log stays exact over many windows and large limits', async () => {
  const { MemoryWindowStore } = await import('./window-store.js');
  let now = 0;
  const store = new MemoryWindowStore(() => now);
  const incr = (max: number) =>
    new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr('k', (err, r) => (err || !r ? reject(err ?? new Error('no result')) : resolve(r)), 60_000, max));
  // 10 requests a second for 10 minutes against a limit of 500 per minute: exactly 500 in any 60 s
  const accepted: number[] = [];
  for (let i = 0; i < 6000; i++) {
    now = i * 100;
    if ((await incr(500)).current <= 500) accepted.push(now);
  }
  for (let i = 0; i < accepted.length; i++) {
    const inWindow = accepted.filter((t) => t > accepted[i]! - 60_000 && t <= accepted[i]!).length;
    assert.ok(inWindow <= 500, `at ${accepted[i]} ms: ${inWindow} in the window`);
  }
  assert.equal(accepted.length, 500 * 10);
});

test('usage(): each pool\'s accepted requests of a client in the window and its limit, read without counting one', async () => {
  const pools = createRatePools({ redis: null });
  const app = await poolTestApp(pools, CLIENTS);
  try {
    assert.equal(await accepted(app, POOL_ROUTES.ancillary, 5, 'small'), 3);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(
        (await pools.usage('small', CLIENTS.small)).map((u) => [u.pool, u.used, u.limit, u.windowSeconds]),
        [['ancillary', 3, 3, 60], ['verify', 0, 5, 60], ['pnr', 0, 120, 60], ['search', 0, 10, 1]],
      );
    }
    assert.deepEqual((await pools.usage('alpha', CLIENTS.alpha)).map((u) => u.used), [0, 0, 0, 0]);
  } finally {
    await app.close();
  }
});

test('search.do has a pool of its own: 10 a rolling second per client (the original interface\'s public notes), its own setting, its 429 says per second', async () => {
  let now = 5_000_000;
  const app = await poolTestApp(createRatePools({ redis: null, now: () => now }), { ...CLIENTS, quick: { rateLimits: { searchPerSecond: 3 } } });
  try {
    for (let i = 0; i < 10; i++) {
      now = 5_000_000 + i * 50;
      assert.equal((await poolCall(app, '/search.do', 'alpha')).http, 200, `search ${i + 1}`);
    }
    now = 5_000_000 + 900;
    const refused = await poolCall(app, '/search.do', 'alpha');
    assert.equal(refused.http, 429);
    assert.deepEqual([refused.body.limitType, refused.body.limit, refused.body.retryAfter], ['search', 10, 1]);
    assert.match(String(refused.body.msg), /10 requests per second/);
    // the other pools and clients are their own
    assert.equal((await poolCall(app, '/verify.do', 'alpha')).http, 200);
    assert.equal((await poolCall(app, '/search.do', 'beta')).http, 200);
    now = 5_000_000 + 1_000;
    assert.equal((await poolCall(app, '/search.do', 'alpha')).http, 200, 'rolling: the first left the window at 1 s');
    assert.equal((await poolCall(app, '/search.do', 'alpha')).http, 429, 'rolling: only one slot freed');
    now = 5_000_000 + 2_000;
    assert.equal(await accepted(app, POOL_ROUTES.search, 5, 'quick'), 3, 'a client\'s own searchPerSecond');
  } finally {
    await app.close();
  }
  assert.equal(DEFAULT_POOL_LIMITS.searchPerSecond, 10);
});

test('the in-memory store forgets a key only once it left the longest window (the search pool\'s second does not drop the minute pools\' logs)', async () => {
  const { MemoryWindowStore } = await import('./window-store.js');
  let now = 0;
  const store = new MemoryWindowStore(() => now);
  const incr = (key: string, windowMs: number, max: number) =>
    new Promise<number>((resolve, reject) => store.incr(key, (err, r) => (err || !r ? reject(err ?? new Error('no result')) : resolve(r.current)), windowMs, max));
  assert.equal(await incr('verify:a', 60_000, 1), 1);
  // 10,000 other keys counted over a second make the store sweep
  now = 2_000;
  for (let i = 0; i < 10_001; i++) await incr(`search:c${i}`, 1_000, 10);
  now = 3_000;
  assert.equal(await incr('verify:a', 60_000, 1), 2, 'still refused: its request of t=0 is in its minute');
});

test('the in-memory store with many keys all still in their window sweeps once per doubling, not on every new key (found by a review: a full pass for each new key past 10,000)', async () => {
  const { MemoryWindowStore } = await import('./window-store.js');
  let now = 0;
  const store = new MemoryWindowStore(() => now);
  const incr = (key: string) => store.incr(key, () => undefined, 60_000, 10);
  for (let i = 0; i < 30_000; i++) incr(`verify:c${i}`);
  assert.equal(store.keyCount, 30_000, 'every key still counted');
  assert.equal(store.sweeps, 2, 'swept at 10,000 and at 20,000');
  // once their minute is over, the next sweep forgets them all
  now = 61_000;
  for (let i = 0; i < 10_001; i++) incr(`verify:d${i}`);
  assert.equal(store.sweeps, 3, 'at 40,000');
  assert.equal(store.keyCount, 10_001, 'the 30,000 of the first minute forgotten');
});

test('the in-memory count leaves the window as the limiter does', async () => {
  const { MemoryWindowStore } = await import('./window-store.js');
  let now = 0;
  const store = new MemoryWindowStore(() => now);
  const incr = () => new Promise<void>((resolve) => store.incr('k', () => resolve(), 60_000, 10));
  for (const t of [0, 10_000, 59_000]) {
    now = t;
    await incr();
  }
  now = 60_000;
  assert.equal(await store.count('k', 60_000), 2, 'the request at 0 left the window at 60 s');
  now = 119_000;
  assert.equal(await store.count('k', 60_000), 0);
  assert.equal(await store.count('nobody', 60_000), 0);
});

test('with Redis, usage() reads the shared pool of two app instances without counting', { skip: REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const keyPrefix = `postbook:test:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redisA = new Redis(REDIS_URL!);
  const redisB = new Redis(REDIS_URL!);
  const poolsA = createRatePools({ redis: redisA, keyPrefix });
  const poolsB = createRatePools({ redis: redisB, keyPrefix });
  const appA = await poolTestApp(poolsA, CLIENTS);
  const appB = await poolTestApp(poolsB, CLIENTS);
  try {
    assert.equal(await accepted(appA, POOL_ROUTES.ancillary, 2, 'small'), 2);
    for (let i = 0; i < 3; i++) assert.equal((await poolsB.usage('small', CLIENTS.small))[0]!.used, 2);
    assert.equal(await accepted(appB, POOL_ROUTES.ancillary, 2, 'small'), 1, 'the reads took nothing: one slot was left');
    assert.deepEqual((await poolsA.usage('small', CLIENTS.small)).map((u) => `${u.pool} ${u.used}/${u.limit}`), ['ancillary 3/3', 'verify 0/5', 'pnr 0/120', 'search 0/10']);
  } finally {
    await appA.close();
    await appB.close();
    const keys = await redisA.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redisA.del(...keys);
    redisA.disconnect();
    redisB.disconnect();
  }
});
