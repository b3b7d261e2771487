// Builds an app for a test: its own fresh database (PGlite cloned from a migrated template, or a fresh
// schema on PostgreSQL when DATABASE_URL is set), its own world and clock, and a log capture.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { sql, type Kysely } from 'kysely';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildWorld, type World } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { assembleService, type ConnectorFactory } from '../service.js';
import { TestClock } from '../clock.js';
import { loadConfig, type Config } from '../config.js';
import { loggerOptions } from '../log.js';
import { openStore, type Store } from '../store/store.js';
import type { Database } from '../store/schema.js';
import type { RatePools } from '../ratelimit/pools.js';
import type { LookToBook } from '../booking/look-to-book.js';
import type { Workers } from '../workers.js';
import type { OrderExpiry } from '../booking/expiry.js';
import type { WebhookDeliverer } from '../webhooks/deliverer.js';
import { migratedTemplateFile } from './template.js';
import { TEST_ADMIN_TOKEN, TEST_CLIENTS, testWorld } from './world.js';

/** Where this process writes its log capture (scripts/run-tests.ts reads them all afterwards). */
function captureStream(): pino.DestinationStream {
  const dir = process.env.POSTBOOK_LOG_CAPTURE_DIR;
  if (!dir) return { write: () => undefined };
  return pino.destination({ dest: path.join(dir, `${process.pid}.log`), sync: true, append: true });
}
let sharedStream: pino.DestinationStream | null = null;

export function testLogger(level = 'trace') {
  sharedStream ??= captureStream();
  return pino({ ...loggerOptions(level) }, sharedStream);
}

/**
 * The migrated template as PGlite reads a dump: its `type` and one `arrayBuffer()`, the bytes this process read
 * once. Node's own Blob copied the 42 MB in and read them back in 64 KB chunks, and the file was read again for
 * every test app: ~90 ms of the ~400 ms of CPU a test store took to open (148 in a suite). The same bytes serve
 * every store of the process: PGlite reads them (untar) and copies each file into its own file system (MEMFS
 * writes a file it does not own as a copy); a copy per store cost ~140 ms of CPU (2026-12-05).
 */
class TemplateBytes extends Blob {
  constructor(private readonly tar: Uint8Array<ArrayBuffer>) {
    super([], { type: 'application/x-tar' });
  }
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.tar.buffer);
  }
}
let template: Promise<Uint8Array<ArrayBuffer>> | null = null;

async function templateBlob(): Promise<Blob> {
  // a copy into an ArrayBuffer of its own, exactly the file's length (a Buffer from readFileSync may be a view of a
  // larger one)
  template ??= migratedTemplateFile().then((file) => new Uint8Array(fs.readFileSync(file)));
  return new TemplateBytes(await template);
}

/** A fresh, migrated store for one test. */
export async function openTestStore(): Promise<Store> {
  const url = process.env.DATABASE_URL ?? null;
  if (url) {
    let schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
    let store: Store | undefined;
    // Seen rarely on PostgreSQL while other test apps of this process drop their schemas: a catalog race
    // during the first migration ("schema … does not exist"). A fresh schema on a second try is enough.
    for (let attempt = 1; !store; attempt++) {
      try {
        store = await openStore({ databaseUrl: url, dataDir: null, schema, poolSize: 4 });
      } catch (err) {
        if (attempt >= 3 || !/does not exist/.test((err as Error).message)) throw err;
        schema = `t_${process.pid}_${randomBytes(4).toString('hex')}`;
      }
    }
    const close = store.close.bind(store);
    return {
      ...store,
      async close() {
        await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(store.db);
        await close();
      },
    };
  }
  return openStore({ databaseUrl: null, dataDir: null, loadDataDir: await templateBlob() });
}

export interface TestApp {
  workers: Workers;
  /** Order expiry (its jobs run with `workers`; tests may call sweep() and release() themselves). */
  orderExpiry: OrderExpiry;
  /** The webhook deliverer (not running unless `webhooks.run`: tests call deliverDue()); null outside sandbox mode without WEBHOOK_SECRET_KEY. */
  webhooks: WebhookDeliverer | null;
  app: FastifyInstance;
  store: Store;
  clock: TestClock;
  world: World;
  config: Config;
  close(): Promise<void>;
}

export interface TestAppOptions {
  world?: WorldFile;
  env?: NodeJS.ProcessEnv;
  store?: Store;
  /** Replaces the sandbox connector; `books` are the test's database and clock, for a SandboxConnector (subclass). */
  connectors?: ConnectorFactory;
  /** Run the refund workers (default: the queue only takes jobs; tests drive the lifecycle themselves). */
  workers?: boolean;
  /** Test apps count rate pools and look-to-book in memory unless a test brings its own. */
  pools?: RatePools;
  lookToBook?: LookToBook;
  /** PostgreSQL: the job queue's schema (default one of its own, dropped at close); a restart test passes one to both apps and drops it. */
  jobSchema?: string;
  /** Run the webhook deliverer's loop (default: no; tests call `webhooks.deliverDue()`). */
  webhooks?: { run?: boolean; pollMs?: number };
  /** The test's clock (default: a new one at the real time); the world is built at its time. */
  clock?: TestClock;
  /** The app's logger (default: the suite's log capture at trace, which run-tests.ts checks for planted values). */
  logger?: FastifyBaseLogger;
}

export async function makeTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const clock = opts.clock ?? new TestClock();
  // Every scrape reads the store-wide figures afresh (a test looks right after what it changed).
  const config = loadConfig({ SANDBOX: 'true', LOG_LEVEL: 'trace', METRICS_STORE_SECONDS: '0', ...opts.env });
  const world = buildWorld(opts.world ?? testWorld(), clock.now());
  const store = opts.store ?? (await openTestStore());
  // The production wiring (src/service.ts), with this test's world, store, clock and log capture.
  const service = await assembleService({
    config,
    clock,
    world,
    store,
    logger: opts.logger ?? testLogger(),
    ...(opts.connectors ? { connectors: opts.connectors } : {}),
    workers: {
      pollSeconds: 1,
      run: opts.workers ?? false,
      ...(store.kind === 'postgres' ? { schema: opts.jobSchema ?? `jq_${process.pid}_${randomBytes(4).toString('hex')}` } : {}),
    },
    ...(opts.pools ? { pools: opts.pools } : {}),
    ...(opts.lookToBook ? { lookToBook: opts.lookToBook } : {}),
    webhooks: { run: opts.webhooks?.run ?? false, ...(opts.webhooks?.pollMs !== undefined ? { pollMs: opts.webhooks.pollMs } : {}) },
  });
  const { app, workers } = service;
  return {
    app,
    store,
    clock,
    world,
    config,
    workers,
    orderExpiry: service.orderExpiry,
    webhooks: service.webhooks,
    async close() {
      await service.close();
      if (store.kind === 'postgres' && !opts.jobSchema) await sql`drop schema if exists ${sql.id(workers.queue.schema)} cascade`.execute(store.db);
      if (!opts.store) await store.close();
    },
  };
}

/** The order number the service gave the test world's booking `pnr` (the test worlds' PNRs are one order each). */
export async function orderNoOfPnr(db: Kysely<Database>, pnr: string): Promise<string> {
  return (await db.selectFrom('orders').select('order_no').where('airline_pnr', '=', pnr).executeTakeFirstOrThrow()).order_no;
}

export function authHeaders(client: { id: string; secret: string } = TEST_CLIENTS.alpha, prefix = 'service'): Record<string, string> {
  return { [`x-${prefix}-client-id`]: client.id, [`x-${prefix}-client-secret`]: client.secret };
}

export const adminHeaders = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

export interface CallResult {
  http: number;
  body: Record<string, unknown> & { status: number; msg: string | null };
  headers: Record<string, string | string[] | number | undefined>;
  raw: string;
}

export async function call(
  app: FastifyInstance,
  url: string,
  payload: unknown,
  opts: { headers?: Record<string, string>; client?: { id: string; secret: string } | null } = {},
): Promise<CallResult> {
  const auth = opts.client === null ? {} : authHeaders(opts.client ?? TEST_CLIENTS.alpha);
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...auth, ...opts.headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  return { http: res.statusCode, body: res.json(), headers: res.headers, raw: res.body };
}
