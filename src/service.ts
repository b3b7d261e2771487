// Assembles a running service: `assembleService` is the one wiring (seeding, airline connectors, refund
// workers, rate pools, the app) that both the server (`createService`, from configuration) and the test
// harness (src/test-support/app.ts, with a test world and store) call, so the tests run the production wiring.
import type { Socket } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from './store/schema.js';
import { AirlineDirectory, type AirlineConnector } from './airline/connector.js';
import { SandboxConnector, type SandboxBooks } from './airline/sandbox/connector.js';
import { loadWorldFile, type World } from './airline/sandbox/world.js';
import { recordWorldStart, WorldFollower } from './airline/sandbox/world-share.js';
import { buildApp } from './app.js';
import { seedClients } from './clients/clients.js';
import { systemClock, TestClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openStore, type Store } from './store/store.js';
import { seedBookedOrders } from './orders/seed.js';
import { createWorkers, type Workers } from './workers.js';
import type { OrderExpiry } from './booking/expiry.js';
import pino from 'pino';
import { loggerOptions } from './log.js';
import type { Redis } from 'ioredis';
import { closeRedis, connectRedis } from './ratelimit/redis.js';
import { createRatePools, DEFAULT_POOL_LIMITS, type RatePools } from './ratelimit/pools.js';
import { createLookToBook } from './ratelimit/look-to-book.js';
import type { LookToBook } from './booking/look-to-book.js';
import { createWebhooks } from './webhooks/wiring.js';
import { seedWebhooks, WebhookRegistrationError, worldWebhooksProblem } from './webhooks/register.js';
import { keyringOf } from './webhooks/secret.js';
import type { WebhookDeliverer } from './webhooks/deliverer.js';
import { SharedSandboxClock } from './sandbox-clock.js';
import { worldRates } from './refunds/pricing.js';

export interface Service {
  app: FastifyInstance;
  store: Store;
  world: World;
  clock: Clock;
  workers: Workers;
  /** Unpaid orders past their payment deadline → -3, airline hold released (docs/decisions/0023); runs with the other workers. */
  orderExpiry: OrderExpiry;
  /** Delivers the webhook outbox (null: webhooks off); started with the refund workers. */
  webhooks: WebhookDeliverer | null;
  close(): Promise<void>;
}

/** Replaces the airline connectors of a process: given the world and the sandbox airline's books. */
export type ConnectorFactory = (world: World, books: SandboxBooks) => AirlineConnector[];

/** The airline connectors of a process: today the sandbox airline, keeping its books in the store. */
export function createAirlines(world: World, store: Store, clock: Clock, connectors?: ConnectorFactory): AirlineDirectory {
  const books: SandboxBooks = { db: store.db, clock, shared: store.kind === 'postgres', ...(store.hotReader ? { reader: store.hotReader } : {}) };
  return new AirlineDirectory(connectors ? connectors(world, books) : [new SandboxConnector(world, books)]);
}

/**
 * The process's sandbox clock tied to the stored one (sandbox mode: a TestClock): brought to the stored time
 * now, and on a shared PostgreSQL store following moves made by other processes. Null outside sandbox mode.
 */
export async function shareSandboxClock(clock: Clock, store: Store): Promise<SharedSandboxClock | null> {
  if (!(clock instanceof TestClock)) return null;
  const shared = new SharedSandboxClock(clock, store.db);
  await shared.load();
  if (store.kind === 'postgres') shared.follow();
  return shared;
}

/** What the wiring is given: opened and loaded by the caller, who also closes the store. */
export interface ServiceParts {
  config: Config;
  clock: Clock;
  world: World;
  store: Store;
  logger: FastifyBaseLogger;
  /** REDIS_URL's connection: rate pools and look-to-book counts shared by all API processes. */
  redis?: Redis | null;
  connectors?: ConnectorFactory;
  /** Refund workers: how often they poll, whether this process runs them, their queue schema. */
  workers: { pollSeconds: number; run: boolean; schema?: string };
  /** Rate pools and look-to-book; default: counted in memory, or in Redis when `redis` is given. */
  pools?: RatePools;
  lookToBook?: LookToBook;
  /** Webhook deliveries: whether this process runs them (default: where the refund workers run), the outbox poll. */
  webhooks?: { run?: boolean; pollMs?: number };
}

/**
 * Webhooks of the world this configuration cannot write (webhooks off, a URL refused): a WebhookRegistrationError,
 * before the store is opened or anything written (a review: the clients and orders were seeded, then the start
 * failed with a stack trace).
 */
function checkWorldWebhooks(config: Config, world: World): void {
  const problem = worldWebhooksProblem(world.clients, { enabled: keyringOf(config) !== null, sandbox: config.sandbox });
  if (problem) throw new WebhookRegistrationError(problem);
}

/** The assembled service; its `close` stops the app and the workers (the store and Redis are the caller's). */
export async function assembleService(parts: ServiceParts): Promise<Service> {
  const { config, clock, world, store, logger: log } = parts;
  checkWorldWebhooks(config, world);
  const sandboxClock = config.sandbox ? await shareSandboxClock(clock, store) : null;
  // Another process's record of the sandbox world (its start, a reload) is followed once this one has written and
  // recorded its own (PostgreSQL: several processes on one store).
  const worldFollower = config.sandbox && store.kind === 'postgres' ? new WorldFollower(world, store.db, log) : null;
  await seedClients(
    store.db,
    world.clients.map((c) => ({ id: c.id, name: c.name, secret: c.secret, settings: c.settings ?? {} })),
    clock.now(),
  );
  // A booking the store cannot take as an order (its tickets another order's) is skipped and named in the log: the
  // world file and the store disagree, and the service still starts (a reload refuses such a file whole).
  await seedBookedOrders(store.db, [...world.bookings.values()].map((b) => b.record), clock.now(), (conflict) => log.warn({ reason: conflict.message }, 'world booking not made an order'));
  const webhooks = createWebhooks({ config, db: store.db, clock, log, ...(parts.webhooks?.pollMs !== undefined ? { pollMs: parts.webhooks.pollMs } : {}) });
  await seedWebhooks(webhooks.registry, world.clients.filter((c) => c.webhook));
  // Every process on the store serves this world, at the time its relative times were resolved (world-share.ts).
  if (worldFollower) await worldFollower.start(undefined, { seen: await recordWorldStart(store.db, world) });
  if (!webhooks.registry.keyring) await warnOfUnsentWebhooks(store.db, log);
  const airlines = createAirlines(world, store, clock, parts.connectors);
  const workers = createWorkers({
    store,
    airlines,
    clock,
    logger: log,
    pollSeconds: parts.workers.pollSeconds,
    limits: config.jobs,
    idempotencyTtlHours: config.idempotencyTtlHours,
    webhookRetentionDays: config.webhookRetentionDays,
    rates: worldRates(world),
    ...(parts.workers.schema ? { schema: parts.workers.schema } : {}),
  });
  await workers.start(parts.workers.run);
  const orderExpiry = workers.orderExpiry;
  const deliverer = webhooks.deliverer;
  if (deliverer && (parts.webhooks?.run ?? parts.workers.run)) deliverer.start();
  try {
    const redis = parts.redis ?? null;
    const pools = parts.pools ?? createRatePools({ redis, log, defaults: { ...DEFAULT_POOL_LIMITS, pnrPerMinute: config.pnrPerMinute } });
    const lookToBook = parts.lookToBook ?? createLookToBook({ db: store.db, clock, redis, log });
    const app = await buildApp({ config, store, airlines, clock, world, logger: log, refundScheduler: workers.lifecycle.scheduler, voidScheduler: workers.voids.scheduler, webhooks: webhooks.registry, jobQueue: workers.queue, sandboxClock, pools, lookToBook });
    const connections = trackConnections(app);
    return {
      app,
      store,
      world,
      clock,
      workers,
      orderExpiry,
      webhooks: deliverer,
      async close() {
        await drainRequests(app, config.shutdownGraceMs, log, connections);
        sandboxClock?.stop();
        worldFollower?.stop();
        // side by side: a delivery's time-out and the workers' STOP_GRACE_MS, not one after the other
        await Promise.all([deliverer?.stop(), workers.stop()]);
      },
    };
  } catch (err) {
    sandboxClock?.stop();
    worldFollower?.stop();
    await deliverer?.stop();
    await workers.stop();
    throw err;
  }
}

/**
 * Stops taking requests and waits for those in flight. Fastify's close waits for every connection it does not count
 * as idle, and one that has sent nothing or half its headers never ends (a review: such a connection held the
 * shutdown until the force timer, whose exit skipped the workers' stop and the store's close). At `graceMs` the
 * connections without a request in a handler are closed; those with one are waited for (a diff review: closing them
 * too cut off an order.do waiting for its airline, whose handler then met a closed store), bounded by the force timer.
 */
async function drainRequests(app: FastifyInstance, graceMs: number, log: FastifyBaseLogger, connections: Connections): Promise<void> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const over = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  const timedOut = await Promise.race([closed.then(() => false), over]);
  clearTimeout(timer);
  if (timedOut) {
    let cut = 0;
    let waited = 0;
    for (const socket of connections.open) {
      // a connection's latest request reached a handler and its answer is not all sent: waited for; none, or
      // answered, and nothing of it is in a handler
      const res = connections.answering.get(socket);
      if (res !== undefined && !res.writableFinished) {
        waited++;
      } else {
        socket.destroy();
        cut++;
      }
    }
    log.warn({ graceMs, cut, waited }, 'connections still open after SHUTDOWN_GRACE_MS: those without a request in a handler closed');
  }
  await closed;
}

/** The server's open connections, and each one's latest request that reached a handler, with its answer. */
interface Connections {
  readonly open: ReadonlySet<Socket>;
  readonly answering: WeakMap<Socket, ServerResponse>;
}

/**
 * The open connections from the server's 'connection' event (one listener per connection), and from its 'request'
 * event (emitted once a request's headers are read, as it goes to a handler) the answer each one is giving: a
 * WeakMap entry set per request, no listener on the request or its answer (whether that answer is all sent is read
 * at the drain, `writableFinished`).
 */
function trackConnections(app: FastifyInstance): Connections {
  const open = new Set<Socket>();
  const answering = new WeakMap<Socket, ServerResponse>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    answering.set(req.socket, res);
  });
  return { open, answering };
}

export async function createService(config: Config, logger?: FastifyBaseLogger, onFatal?: (err: Error) => void): Promise<Service> {
  const clock: Clock = config.sandbox ? new TestClock() : systemClock;
  // The world is read first: a malformed file, or webhooks this configuration cannot write, stop the start before
  // anything is opened.
  let world = loadWorldFile(config.worldPath, clock.now());
  checkWorldWebhooks(config, world);
  const log = logger ?? pino(loggerOptions(config.logLevel));
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? null : config.dataDir,
    sharedBuffersMb: config.pgliteSharedBuffersMb,
    autovacuum: { intervalSeconds: config.pgliteAutovacuumSeconds, log },
    // without onFatal the store's own default: a lost lock throws (it was swallowed here: a review)
    ...(onFatal ? { onLockCompromised: onFatal } : {}),
  });
  let redis: Redis | null = null;
  try {
    world = await worldAtStoredTime(config, clock, store, world);
    redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : null;
    const service = await assembleService({ config, clock, world, store, logger: log, redis, workers: { pollSeconds: config.refundPollSeconds, run: config.runWorkers } });
    return {
      ...service,
      async close() {
        try {
          await service.close();
        } finally {
          // the store is closed whatever went wrong before (a review: a failed Redis QUIT left its lock and pool open)
          if (redis) await closeRedis(redis);
          await store.close();
        }
      },
    };
  } catch (err) {
    redis?.disconnect();
    await store.close();
    throw err;
  }
}

/**
 * Webhooks off (no WEBHOOK_SECRET_KEY) while clients keep the URLs they registered with a key: their refunds' and
 * voids' events still go into the outbox, where nothing sends them, and pile up. Said at start, so an operator who
 * took the key away by mistake sees it (a review: nothing told).
 */
async function warnOfUnsentWebhooks(db: Kysely<Database>, log: FastifyBaseLogger): Promise<void> {
  const row = await db
    .selectFrom('clients')
    .select((eb) => [eb.fn.countAll<string>().as('clients'), eb.selectFrom('webhook_events').select((e) => e.fn.countAll<string>().as('n')).where('state', '=', 'pending').as('pending')])
    .where('webhook_url', 'is not', null)
    .executeTakeFirst();
  const clients = Number(row?.clients ?? 0);
  if (clients === 0) return;
  log.warn(
    { clients, pendingEvents: Number(row?.pending ?? 0) },
    'webhooks are off (no WEBHOOK_SECRET_KEY), but clients have webhook URLs: their events wait in the outbox unsent; set the key, or remove the URLs (postbook clients webhook <id> --remove)',
  );
}

/**
 * The world's relative times (`+3d 10:30`) are resolved against the sandbox time: when the stored sandbox
 * clock is ahead (moved before this process started), the world is read again at that time.
 */
export async function worldAtStoredTime(config: Config, clock: Clock, store: Store, world: World): Promise<World> {
  if (!config.sandbox || !(clock instanceof TestClock)) return world;
  await new SharedSandboxClock(clock, store.db).load();
  return clock.offset() >= 1000 ? loadWorldFile(config.worldPath, clock.now()) : world;
}
