// Assembles a running service from configuration: store, sandbox world, airline connectors, app.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { AirlineDirectory } from './airline/connector.js';
import { SandboxConnector } from './airline/sandbox/connector.js';
import { loadWorldFile, type World } from './airline/sandbox/world.js';
import { buildApp } from './app.js';
import { seedClients } from './clients/clients.js';
import { systemClock, TestClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { openStore, type Store } from './store/store.js';
import { seedBookedOrders } from './orders/seed.js';
import { createRefundWorkers, type RefundWorkers } from './refunds/workers.js';
import pino from 'pino';
import { loggerOptions } from './log.js';
import type { Redis } from 'ioredis';
import { connectRedis } from './ratelimit/redis.js';
import { createRatePools } from './ratelimit/pools.js';
import { createLookToBook } from './ratelimit/look-to-book.js';

export interface Service {
  app: FastifyInstance;
  store: Store;
  world: World;
  clock: Clock;
  workers: RefundWorkers;
  close(): Promise<void>;
}

/** The airline connectors of a process: today the sandbox airline, keeping its books in the store. */
export function createAirlines(world: World, store: Store, clock: Clock): AirlineDirectory {
  return new AirlineDirectory([new SandboxConnector(world, { db: store.db, clock, shared: store.kind === 'postgres' })]);
}

export async function createService(config: Config, logger?: FastifyBaseLogger, onFatal?: (err: Error) => void): Promise<Service> {
  const clock: Clock = config.sandbox ? new TestClock() : systemClock;
  // The world is read first: a malformed file stops the start before anything is opened.
  const world = loadWorldFile(config.worldPath, clock.now());
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? null : config.dataDir,
    sharedBuffersMb: config.pgliteSharedBuffersMb,
    onLockCompromised: (err) => onFatal?.(err),
  });
  let redis: Redis | null = null;
  try {
    await seedClients(
      store.db,
      world.clients.map((c) => ({ id: c.id, name: c.name, secret: c.secret, settings: c.settings ?? {} })),
      clock.now(),
    );
    await seedBookedOrders(store.db, [...world.bookings.values()].map((b) => b.record), clock.now());
    const airlines = createAirlines(world, store, clock);
    const log = logger ?? pino(loggerOptions(config.logLevel));
    const workers = createRefundWorkers({ store, airlines, clock, logger: log, pollSeconds: config.refundPollSeconds });
    await workers.start(config.runWorkers);
    // With REDIS_URL the rate pools and look-to-book counts hold across API processes.
    redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : null;
    const pools = createRatePools({ redis, log });
    const lookToBook = createLookToBook({ db: store.db, clock, redis, log });
    const app = await buildApp({ config, store, airlines, clock, world, logger: log, refundScheduler: workers.lifecycle.scheduler, pools, lookToBook });
    return {
      app,
      store,
      world,
      clock,
      workers,
      async close() {
        await app.close();
        await workers.stop();
        await redis?.quit();
        await store.close();
      },
    };
  } catch (err) {
    redis?.disconnect();
    await store.close();
    throw err;
  }
}
