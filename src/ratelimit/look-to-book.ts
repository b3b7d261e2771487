// Look-to-book (spec 7.2 status 223, docs/architecture.md "The booking chain"): per client, seat requests vs paid orders over a
// rolling day. A client with `lookToBook: { maxRatio, minRequests }` in its settings is refused with 223 once
// its requests reach minRequests and requests ÷ max(1, paid orders) pass maxRatio; without it, no check.
//
// Cheap on the seat map hot path: seat requests are minute buckets over 24 h in this process's memory (or in
// Redis with REDIS_URL, read at most every `redisReadMs` per client); paid orders come from the store
// (booking orders ticketed in the last day), read only when the ratio could be exceeded and then trusted for
// `cacheMs`, plus the ones this process records. Everything runs on the service clock, so moving the sandbox
// clock a day forward clears the counts, exactly as it ages the orders. Decision record 0013.
import { sql, type Kysely } from 'kysely';
import type { Redis } from 'ioredis';
import type { FastifyBaseLogger } from 'fastify';
import { BoundedMap } from '../bounded-map.js';
import { RedisBreaker, throttledWarn } from './redis.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { ClientSettings, Database } from '../store/schema.js';

/** The seat status of spec 7.2. */
export const LOOK_TO_BOOK_EXCEEDED = 223;

const DAY_MINUTES = 24 * 60;
const DAY_MS = DAY_MINUTES * 60_000;
/** Clients whose settings, counts and reads are kept in memory; past it the maps start again (read anew). */
const CLIENTS_KEPT = 10_000;

/** Same shape as src/booking/look-to-book.ts `LookToBook` (settings may be passed when the caller has them). */
export interface LookToBookCounter {
  /** Throws ApiError(223) (HTTP 200) when the client's seat requests per paid order passed its threshold. */
  check(clientId: string, settings?: ClientSettings): Promise<void>;
  recordSeatRequest(clientId: string): Promise<void>;
  recordPaidOrder(clientId: string): Promise<void>;
  /** The client's counts over the last 24 h and its setting, read without recording anything (the console). */
  usage(clientId: string, settings?: ClientSettings): Promise<LookToBookUsage>;
}

export interface LookToBookUsage {
  seatRequests: number;
  paidOrders: number;
  /** seat requests ÷ max(1, paid orders), as the check computes it. */
  ratio: number;
  setting: LookToBookSetting | null;
  /** Whether the next seat request would be refused with 223. */
  exceeded: boolean;
}

export interface LookToBookSetting {
  maxRatio: number;
  minRequests: number;
}

/** The client's setting, or null (no check) when absent or malformed. */
export function lookToBookSetting(settings: ClientSettings | undefined): LookToBookSetting | null {
  const s = settings?.lookToBook as Partial<LookToBookSetting> | undefined;
  if (!s || typeof s.maxRatio !== 'number' || !Number.isFinite(s.maxRatio) || typeof s.minRequests !== 'number' || !Number.isFinite(s.minRequests)) return null;
  return { maxRatio: s.maxRatio, minRequests: s.minRequests };
}

/** The pure rule: refused when requests ≥ minRequests and requests ÷ max(1, paid) > maxRatio. */
export function exceeds(setting: LookToBookSetting, requests: number, paid: number): boolean {
  return requests >= setting.minRequests && requests / Math.max(1, paid) > setting.maxRatio;
}

/** Counts per minute over the last 24 h, in a ring of 1440 slots; the total is kept as slots age out. */
export class RollingDay {
  private readonly counts = new Uint32Array(DAY_MINUTES);
  private readonly minutes = new Int32Array(DAY_MINUTES).fill(-1);
  private sum = 0;
  private swept = -1;

  add(minute: number, n = 1): void {
    this.age(minute);
    const slot = minute % DAY_MINUTES;
    if (this.minutes[slot] !== minute) {
      this.sum -= this.counts[slot]!;
      this.counts[slot] = 0;
      this.minutes[slot] = minute;
    }
    this.counts[slot]! += n;
    this.sum += n;
  }

  /** Count in the minutes (minute - 1439 … minute). */
  total(minute: number): number {
    this.age(minute);
    return this.sum;
  }

  private age(minute: number) {
    if (minute <= this.swept) return;
    const oldest = minute - DAY_MINUTES; // slots of this minute or earlier have left the day
    const from = Math.max(this.swept - DAY_MINUTES + 1, oldest - DAY_MINUTES + 1);
    for (let m = from; m <= oldest; m++) {
      const slot = ((m % DAY_MINUTES) + DAY_MINUTES) % DAY_MINUTES;
      if (this.minutes[slot]! >= 0 && this.minutes[slot]! <= oldest) {
        this.sum -= this.counts[slot]!;
        this.counts[slot] = 0;
        this.minutes[slot] = -1;
      }
    }
    this.swept = minute;
  }
}

// Sums a client's minute buckets that are still in the day and drops the rest (runs in Redis).
const SUM_DAY = `
local floor = tonumber(ARGV[1])
local all = redis.call('HGETALL', KEYS[1])
local sum = 0
local old = {}
for i = 1, #all, 2 do
  if tonumber(all[i]) > floor then sum = sum + tonumber(all[i + 1]) else old[#old + 1] = all[i] end
end
if #old > 0 then redis.call('HDEL', KEYS[1], unpack(old)) end
return sum
`;

// Adds one seat request to its minute and keeps the hash to the day: once it holds more minutes than a day has
// (an hour's worth more, so the trim runs about once an hour), the minutes at or before the floor go. Without
// it a client with no look-to-book setting — whose counts check() never reads, and SUM_DAY never trims — grew one
// field per minute of traffic for good, its expiry renewed by every seat map (found by a review).
const ADD_MINUTE = `
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if redis.call('HLEN', KEYS[1]) > ${DAY_MINUTES + 60} then
  local floor = tonumber(ARGV[2])
  local old = {}
  for _, m in ipairs(redis.call('HKEYS', KEYS[1])) do
    if tonumber(m) <= floor then old[#old + 1] = m end
  end
  if #old > 0 then redis.call('HDEL', KEYS[1], unpack(old)) end
end
return 1
`;

interface SumDayRedis extends Redis {
  postbookSumDay(key: string, floor: number): Promise<number>;
  postbookAddMinute(key: string, minute: number, floor: number, ttlMs: number): Promise<number>;
}

/** How long the last count read from Redis stands in for it while Redis fails (then: none, as the pools let requests through). */
const STALE_COUNT_MS = 60_000;

export interface LookToBookOptions {
  db: Kysely<Database>;
  clock: Clock;
  /** Seat requests counted in Redis (shared by every API process) when given; the caller owns it. */
  redis?: Redis | null;
  keyPrefix?: string;
  /** How long a client's settings and its paid-order count from the store are trusted. */
  cacheMs?: number;
  /** With Redis: how long one read of a client's day of seat requests is reused (plus local increments). */
  redisReadMs?: number;
  /** Settings of a client that check() was not given; default: the clients table. */
  settingsOf?: (clientId: string) => Promise<ClientSettings | undefined>;
  log?: Pick<FastifyBaseLogger, 'warn'>;
}

interface Cached<T> {
  value: T;
  at: number;
}

export function createLookToBook(opts: LookToBookOptions): LookToBookCounter {
  const { db, clock } = opts;
  const cacheMs = opts.cacheMs ?? 30_000;
  const redisReadMs = opts.redisReadMs ?? 2_000;
  const prefix = opts.keyPrefix ?? 'postbook:l2b:';
  const redis = (opts.redis ?? null) as SumDayRedis | null;
  if (redis && typeof redis.postbookSumDay !== 'function') redis.defineCommand('postbookSumDay', { numberOfKeys: 1, lua: SUM_DAY });
  if (redis && typeof redis.postbookAddMinute !== 'function') redis.defineCommand('postbookAddMinute', { numberOfKeys: 1, lua: ADD_MINUTE });
  const breaker = new RedisBreaker();
  const settingsOf =
    opts.settingsOf ??
    (async (clientId: string) => (await db.selectFrom('clients').select('settings').where('client_id', '=', clientId).executeTakeFirst())?.settings);

  // per client, each at most CLIENTS_KEPT (src/bounded-map.ts)
  const settings = new BoundedMap<string, Cached<ClientSettings | undefined>>(CLIENTS_KEPT);
  const paid = new BoundedMap<string, Cached<number>>(CLIENTS_KEPT);
  // memory mode: the counts themselves, not a cache — a plain map (a BoundedMap's refill would have dropped every
  // client's day at the 10,001st client; found by a review). Its keys are authenticated clients: the clients table bounds it.
  const local = new Map<string, RollingDay>(); // Redis mode: not used
  const remote = new BoundedMap<string, Cached<number> & { pending: number }>(CLIENTS_KEPT); // Redis mode: last read + own adds since

  const fresh = (c: Cached<unknown> | undefined, now: number, ttl: number) => c !== undefined && now - c.at >= 0 && now - c.at < ttl;
  const logFailure = throttledWarn(opts.log, 'look-to-book counter in Redis failed');
  const warn = (err: unknown) => {
    breaker.trip();
    logFailure(err);
  };

  async function settingsFor(clientId: string, now: number) {
    const hit = settings.get(clientId);
    if (fresh(hit, now, cacheMs)) return hit!.value;
    const value = await settingsOf(clientId);
    settings.set(clientId, { value, at: now });
    return value;
  }

  async function seatRequests(clientId: string, now: number): Promise<number> {
    const minute = Math.floor(now / 60_000);
    if (!redis) return local.get(clientId)?.total(minute) ?? 0;
    const hit = remote.get(clientId);
    if (hit && fresh(hit, now, redisReadMs)) return hit.value + hit.pending;
    // While Redis fails: the last count read for a minute, then none — a client refused when Redis went away is
    // not refused for the whole outage on a count that no longer ages (found by a review)
    const stale = () => (hit && fresh(hit, now, STALE_COUNT_MS) ? hit.value + hit.pending : 0);
    if (!breaker.closed) return stale();
    try {
      const value = Number(await redis.postbookSumDay(prefix + clientId, minute - DAY_MINUTES));
      remote.set(clientId, { value, at: now, pending: 0 });
      return value;
    } catch (err) {
      warn(err);
      return stale();
    }
  }

  async function paidOrders(clientId: string, now: number): Promise<number> {
    const hit = paid.get(clientId);
    if (fresh(hit, now, cacheMs)) return hit!.value;
    const row = await paidOrdersQuery(db, clientId, now).executeTakeFirst();
    const value = Number(row?.n ?? 0);
    paid.set(clientId, { value, at: now });
    return value;
  }

  return {
    async check(clientId, given) {
      const now = clock.now().getTime();
      const setting = lookToBookSetting(given ?? (await settingsFor(clientId, now)));
      if (!setting) return;
      const requests = await seatRequests(clientId, now);
      // requests ÷ max(1, paid) ≤ requests: below the ratio without paid orders, no need to count them
      if (!exceeds(setting, requests, 0)) return;
      const orders = await paidOrders(clientId, now);
      if (!exceeds(setting, requests, orders)) return;
      throw new ApiError(
        LOOK_TO_BOOK_EXCEEDED,
        `seat requests per paid order exceeded: ${requests} seat requests and ${orders} paid orders in the last 24 hours, ` +
          `the agreement allows ${setting.maxRatio} per paid order; book and pay, or try again later`,
      );
    },

    async recordSeatRequest(clientId) {
      const now = clock.now().getTime();
      const minute = Math.floor(now / 60_000);
      if (!redis) {
        let day = local.get(clientId);
        if (!day) local.set(clientId, (day = new RollingDay()));
        day.add(minute);
        return;
      }
      const hit = remote.get(clientId);
      if (hit) hit.pending++;
      if (!breaker.closed) return;
      // Not awaited: the seat map answer does not wait for Redis.
      redis.postbookAddMinute(prefix + clientId, minute, minute - DAY_MINUTES, DAY_MS + 60_000).catch(warn);
    },

    async usage(clientId, given) {
      const now = clock.now().getTime();
      const setting = lookToBookSetting(given ?? (await settingsFor(clientId, now)));
      const requests = await seatRequests(clientId, now);
      const orders = await paidOrders(clientId, now);
      return { seatRequests: requests, paidOrders: orders, ratio: requests / Math.max(1, orders), setting, exceeded: setting !== null && exceeds(setting, requests, orders) };
    },

    async recordPaidOrder(clientId) {
      // The store has the order too: the next read after `cacheMs` counts it from there.
      const hit = paid.get(clientId);
      if (hit) hit.value++;
    },
  };
}

/**
 * A client's orders paid within the day before `now`: read through orders_paid_by_client (migration 0039; a review
 * measured a scan of the client's every order, 37–41 ms at 3·10⁵ of them, each 30 s per client over its threshold).
 */
export function paidOrdersQuery(db: Kysely<Database>, clientId: string, now: number) {
  return db
    .selectFrom('orders')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('client_id', '=', clientId)
    // a literal, not a parameter: the partial index's predicate must match a generic plan too
    .where('source', '=', sql.lit('booking'))
    .where('status', '=', '2')
    .where('ticketed_at', '>', new Date(now - DAY_MS))
    .where('ticketed_at', '<=', new Date(now));
}
