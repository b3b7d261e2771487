// Look-to-book (223): the rule, the rolling day, paid orders from the store and from pay.do, clients
// without a setting, and (with REDIS_URL) seat requests shared by two processes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import fc from 'fast-check';
import { TestClock } from '../clock.js';
import { ApiError } from '../errors.js';
import { seedClients } from '../clients/clients.js';
import { openTestStore } from '../test-support/app.js';
import type { Store } from '../store/store.js';
import type { ClientSettings } from '../store/schema.js';
import { createLookToBook, exceeds, lookToBookSetting, RollingDay, type LookToBookCounter } from './look-to-book.js';

const STRICT: ClientSettings = { lookToBook: { maxRatio: 5, minRequests: 10 } };

async function setup(settings: Record<string, ClientSettings>) {
  const store = await openTestStore();
  const clock = new TestClock();
  clock.freeze();
  await seedClients(
    store.db,
    Object.entries(settings).map(([id, s]) => ({ id, name: id, secret: 'x'.repeat(20), settings: s })),
    clock.now(),
  );
  return { store, clock };
}

let orderSeq = 0;
async function addOrder(store: Store, clientId: string, o: { source?: 'booking' | 'claim'; status?: '0' | '2'; ticketedAt: Date | null }) {
  await store.db
    .insertInto('orders')
    .values({
      order_no: `9${process.pid}${++orderSeq}${randomBytes(3).toString('hex')}`,
      client_id: clientId,
      source: o.source ?? 'booking',
      status: o.status ?? '2',
      carrier: 'XS',
      currency: 'EUR',
      total_minor: 10000,
      ticketed_at: o.ticketedAt,
      updated_at: new Date(),
    })
    .execute();
}

async function refused(l2b: LookToBookCounter, clientId: string, settings?: ClientSettings): Promise<boolean> {
  try {
    await l2b.check(clientId, settings);
    return false;
  } catch (err) {
    if (err instanceof ApiError && err.status === 223) {
      assert.equal(err.httpStatus, 200, '223 is a business answer: HTTP 200');
      return true;
    }
    throw err;
  }
}

/** Requests until refused (at most `limit`), recording each accepted one as seatAvailability.do does. */
async function acceptedUntilRefused(l2b: LookToBookCounter, clientId: string, limit = 1000): Promise<number> {
  for (let i = 0; i < limit; i++) {
    if (await refused(l2b, clientId)) return i;
    await l2b.recordSeatRequest(clientId);
  }
  return limit;
}

test('the rule: refused once requests reach minRequests and requests per paid order pass maxRatio', () => {
  const s = { maxRatio: 5, minRequests: 10 };
  assert.equal(exceeds(s, 9, 0), false, 'below the minimum volume');
  assert.equal(exceeds(s, 10, 0), true, '10 requests, no paid order: 10 > 5');
  assert.equal(exceeds(s, 10, 2), false, '10 ÷ 2 = 5 is not above 5');
  assert.equal(exceeds(s, 11, 2), true);
  assert.equal(exceeds({ maxRatio: 20, minRequests: 0 }, 20, 0), false, 'max(1, paid): 20 ÷ 1 = 20');
  assert.equal(lookToBookSetting({}), null);
  assert.equal(lookToBookSetting({ lookToBook: { maxRatio: 'x', minRequests: 1 } }), null);
  assert.deepEqual(lookToBookSetting(STRICT), { maxRatio: 5, minRequests: 10 });
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 0, max: 1000 }), fc.nat(5000), fc.nat(100), (ratio, min, requests, paid) => {
      const s2 = { maxRatio: ratio, minRequests: min };
      // more paid orders never turns an accepted client into a refused one; more requests never the reverse
      if (!exceeds(s2, requests, paid)) assert.equal(exceeds(s2, requests, paid + 1), false);
      if (exceeds(s2, requests, paid)) assert.equal(exceeds(s2, requests + 1, paid), true);
    }),
  );
});

test('RollingDay keeps exactly the last 1440 minutes', () => {
  const day = new RollingDay();
  day.add(100, 3);
  day.add(101);
  day.add(100 + 1439, 2);
  assert.equal(day.total(100 + 1439), 6);
  assert.equal(day.total(100 + 1440), 3, 'minute 100 left the day');
  assert.equal(day.total(101 + 1440), 2);
  day.add(101 + 1440 + 5000);
  assert.equal(day.total(101 + 1440 + 5000), 1, 'a long gap clears everything');
  // the same slot reused a day later starts from zero
  const again = new RollingDay();
  again.add(7, 4);
  again.add(7 + 1440);
  assert.equal(again.total(7 + 1440), 1);
});

test('a client with a setting is refused with 223; paid booking orders of the last day in the store raise its allowance', async () => {
  const { store, clock } = await setup({ strict: STRICT, free: {} });
  try {
    const l2b = createLookToBook({ db: store.db, clock });
    assert.equal(await acceptedUntilRefused(l2b, 'strict'), 10, 'minRequests 10, no paid order → the 11th is refused');
    await assert.rejects(l2b.check('strict'), (err: unknown) => err instanceof ApiError && err.status === 223 && /paid order/.test(err.msg));

    // orders that do not count: a claim, an unpaid order, one ticketed more than a day ago
    await addOrder(store, 'strict', { source: 'claim', ticketedAt: clock.now() });
    await addOrder(store, 'strict', { status: '0', ticketedAt: null });
    await addOrder(store, 'strict', { ticketedAt: new Date(clock.now().getTime() - 25 * 3600_000) });
    // two that do
    await addOrder(store, 'strict', { ticketedAt: new Date(clock.now().getTime() - 3600_000) });
    await addOrder(store, 'strict', { ticketedAt: clock.now() });
    assert.equal(await refused(l2b, 'strict'), true, 'the paid count is cached for 30 s');
    clock.advance(30_000);
    // 10 ÷ 2 = 5 passes; the 11th request: 11 ÷ 2 > 5
    assert.equal(await acceptedUntilRefused(l2b, 'strict'), 1);
  } finally {
    await store.close();
  }
});

test('paid orders within the day and the rolling day, step by step', async () => {
  const { store, clock } = await setup({ strict: STRICT });
  try {
    const l2b = createLookToBook({ db: store.db, clock, cacheMs: 1 });
    await addOrder(store, 'strict', { ticketedAt: clock.now() });
    await addOrder(store, 'strict', { ticketedAt: clock.now() });
    // 2 paid orders: 11 requests pass (10 ÷ 2 = 5 is not above 5), the 12th is refused
    assert.equal(await acceptedUntilRefused(l2b, 'strict'), 11);
    // pay.do records a paid order: counted at once, before the store is read again
    const cached = createLookToBook({ db: store.db, clock });
    for (let i = 0; i < 10; i++) await cached.recordSeatRequest('strict');
    await cached.check('strict'); // reads and caches 2 paid orders
    await cached.recordSeatRequest('strict');
    assert.equal(await refused(cached, 'strict'), true, '11 ÷ 2');
    await cached.recordPaidOrder('strict');
    assert.equal(await refused(cached, 'strict'), false, '11 ÷ 3');

    // the requests were made over the day: half an hour later nothing has aged out
    clock.advance(30 * 60_000);
    assert.equal(await refused(l2b, 'strict'), true);
    // a day after the paid orders they no longer count either; a day after the requests all is clear
    clock.advance(24 * 3600_000);
    assert.equal(await acceptedUntilRefused(l2b, 'strict'), 10, 'fresh day: the minimum volume again');
  } finally {
    await store.close();
  }
});

test('no setting, no check: a client without lookToBook is never refused; settings given by the caller win', async () => {
  const { store, clock } = await setup({ free: {}, strict: STRICT });
  try {
    let lookups = 0;
    const l2b = createLookToBook({
      db: store.db,
      clock,
      settingsOf: async (id) => {
        lookups++;
        return id === 'strict' ? STRICT : {};
      },
    });
    assert.equal(await acceptedUntilRefused(l2b, 'free', 500), 500);
    assert.equal(lookups, 1, 'settings are cached');
    assert.equal(await acceptedUntilRefused(l2b, 'strict'), 10);
    assert.equal(await refused(l2b, 'strict', {}), false, 'the caller passed settings without lookToBook');
    assert.equal(await refused(l2b, 'free', { lookToBook: { maxRatio: 1, minRequests: 1 } }), true);
    // the default lookup reads the clients table
    const fromDb = createLookToBook({ db: store.db, clock });
    for (let i = 0; i < 10; i++) await fromDb.recordSeatRequest('strict');
    assert.equal(await refused(fromDb, 'strict'), true);
    assert.equal(await refused(fromDb, 'free'), false);
  } finally {
    await store.close();
  }
});

const REDIS_URL = process.env.REDIS_URL;

test('with Redis, two processes count one client\'s seat requests together', { skip: REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const { store, clock } = await setup({ strict: STRICT });
  const keyPrefix = `postbook:test-l2b:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redisA = new Redis(REDIS_URL!);
  const redisB = new Redis(REDIS_URL!);
  try {
    const a = createLookToBook({ db: store.db, clock, redis: redisA, keyPrefix, redisReadMs: 0 });
    const b = createLookToBook({ db: store.db, clock, redis: redisB, keyPrefix, redisReadMs: 0 });
    for (let i = 0; i < 5; i++) await a.recordSeatRequest('strict');
    for (let i = 0; i < 5; i++) await b.recordSeatRequest('strict');
    await redisA.ping(); // the increments are not awaited by recordSeatRequest
    await redisB.ping();
    assert.equal(await refused(a, 'strict'), true, '5 + 5 requests reach the minimum in either process');
    assert.equal(await refused(b, 'strict'), true);
    clock.advance(24 * 3600_000);
    assert.equal(await refused(a, 'strict'), false, 'a day later the buckets are out of the window');
    assert.equal(await redisA.hlen(`${keyPrefix}strict`), 0, 'and dropped from Redis');
  } finally {
    const keys = await redisA.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redisA.del(...keys);
    redisA.disconnect();
    redisB.disconnect();
    await store.close();
  }
});

test("with Redis, a client without a setting keeps at most a day and an hour of minutes, not every minute it ever had (found by a review: check() never reads its counts, so nothing trimmed them)", { skip: REDIS_URL ? false : 'REDIS_URL is not set (.ci/run sets it)' }, async () => {
  const { store, clock } = await setup({ free: {} });
  const keyPrefix = `postbook:test-l2b:${process.pid}:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(REDIS_URL!);
  try {
    const l2b = createLookToBook({ db: store.db, clock, redis, keyPrefix });
    // three days of a seat map every two minutes, each after its check (as seatAvailability.do does)
    for (let i = 0; i < 3 * 720; i++) {
      await l2b.check('free');
      await l2b.recordSeatRequest('free');
      clock.advance(120_000);
    }
    await redis.ping();
    const fields = await redis.hlen(`${keyPrefix}free`);
    // 2,160 minutes were written; the hash is trimmed to the day whenever it holds more than 1,500 (24 h + 1 h)
    assert.ok(fields <= 24 * 60 + 60, `${fields} minutes kept`);
    const oldest = Math.min(...(await redis.hkeys(`${keyPrefix}free`)).map(Number));
    assert.ok(oldest > Math.floor(clock.now().getTime() / 60_000) - 3 * 24 * 60, 'the first day is gone');
  } finally {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await store.close();
  }
});
