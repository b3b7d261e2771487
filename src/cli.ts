// Operator command line: migrations, client credentials, world checks, and `worker`, a process that runs
// only the refund workers on a shared PostgreSQL. Refuses to open an embedded data folder that a running
// server holds (PGlite allows one process only).
import pino from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openStore, type Store } from './store/store.js';
import { createClient, rotateSecret, setClientStatus } from './clients/clients.js';
import { loadWorldFile, WorldError } from './airline/sandbox/world.js';
import { DataDirLockedError } from './store/lock.js';
import { systemClock, TestClock, type Clock } from './clock.js';
import { createAirlines } from './service.js';
import { createWorkers } from './workers.js';
import { loggerOptions } from './log.js';
import { createWebhooks } from './webhooks/wiring.js';
import { setWebhook, WebhookRegistrationError } from './webhooks/register.js';
import { keyringOf } from './webhooks/secret.js';
import { webhookUrlProblem } from './webhooks/url.js';

const USAGE = `usage: postbook <command>      (from a checkout: npm run cli -- <command>)
  help, --help                         this text
  migrate                              apply pending database migrations
  clients add <id> <name>              create a client; prints its secret once
  clients rotate <id> [--grace-hours N] new secret; the old one works N hours more (default 24)
  clients disable <id> | enable <id>   refuse or allow a client's calls
  clients webhook <id> <url>           set the client's webhook URL; its first URL prints the signing
                                       secret once (docs/webhooks.md)
  clients webhook <id> --rotate-secret new webhook signing secret, printed once (the old one stops at once)
  clients webhook <id> --remove        no more deliveries to the client (its pending events fail)
  world check [file]                   validate a world file (default: $WORLD)
  worker                               run only the refund workers and webhook deliveries, no HTTP (needs DATABASE_URL);
                                       SIGTERM/SIGINT stop it gracefully
Configuration comes from the same environment variables as the server (README "Configuration").`;

const out = (line: string) => process.stdout.write(`${line}\n`);

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.databaseUrl ? null : config.dataDir,
    sharedBuffersMb: config.pgliteSharedBuffersMb,
    lockWaitMs: 0,
  });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * `postbook worker`: the refund workers of docs/architecture.md "Growing past one machine" in a process of their own, on
 * the job tables the API processes share (run the API with WORKERS=false, or not: workers of both kinds
 * share the jobs, each job done once). Same world and airline connectors as the server (src/service.ts).
 * Resolves with the exit code once stopped.
 */
async function runWorker(config: Config): Promise<number> {
  if (!config.databaseUrl) {
    process.stderr.write(
      'postbook worker needs DATABASE_URL (a shared PostgreSQL). With the embedded store (PGlite) the API process runs ' +
        'the refund workers itself and no second process can open its data folder: start the server alone.\n',
    );
    return 78;
  }
  const logger = pino(loggerOptions(config.logLevel));
  // A sandbox clock of its own, as every process has: POST /sandbox/clock on an API process does not move it.
  const clock: Clock = config.sandbox ? new TestClock() : systemClock;
  const world = loadWorldFile(config.worldPath, clock.now());
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: null });
  let workers;
  const { deliverer } = createWebhooks({ config, db: store.db, clock, log: logger });
  try {
    const airlines = createAirlines(world, store, clock);
    workers = createWorkers({ store, airlines, clock, logger, pollSeconds: config.refundPollSeconds });
    await workers.start(true); // refunds, voids and the expiry of unpaid orders (src/workers.ts)
    deliverer?.start();
  } catch (err) {
    await store.close();
    throw err;
  }
  logger.info({ store: store.kind, world: world.name, sandbox: config.sandbox, pollSeconds: config.refundPollSeconds }, 'postbook worker is ready');

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  logger.info({ signal }, 'worker shutting down: finishing the refund steps under way');
  const force = setTimeout(() => {
    logger.error('shutdown grace period over: exiting');
    process.exit(1);
  }, config.shutdownGraceMs + 15_000);
  force.unref();
  await deliverer?.stop();
  await workers.stop(); // graceful: running steps finish (up to 10 s), the rest are handed back for a retry
  await store.close();
  logger.info('worker stopped');
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  // Asked for: the usage on stdout, exit 0 (before the configuration, so help works with a broken one).
  if (cmd === 'help' || cmd === '--help' || cmd === '-h') {
    out(USAGE);
    return 0;
  }
  const config = loadConfig();
  const now = systemClock.now();
  if (cmd === 'worker' && sub === undefined) return runWorker(config);
  if (cmd === 'migrate') {
    await withStore(config, async () => undefined); // openStore migrates
    out('migrations: up to date');
    return 0;
  }
  if (cmd === 'world' && sub === 'check') {
    const world = loadWorldFile(rest[0] ?? config.worldPath, now);
    out(`world ${world.name}: ok (${world.airlines.size} airlines, ${world.flights.size} flights, ${world.bookings.size} bookings, ${world.clients.length} clients)`);
    return 0;
  }
  if (cmd === 'clients' && sub === 'add' && rest.length >= 2) {
    const [id, ...name] = rest as [string, ...string[]];
    if (!/^[A-Za-z0-9._-]{3,64}$/.test(id)) {
      process.stderr.write('client id: 3 to 64 letters, digits, dot, dash or underscore\n');
      return 2;
    }
    const secret = await withStore(config, (s) => createClient(s.db, id, name.join(' '), now));
    out(`client ${id} created. Secret (shown only now, store it safely):\n${secret}`);
    return 0;
  }
  if (cmd === 'clients' && sub === 'rotate' && rest[0]) {
    const graceIdx = rest.indexOf('--grace-hours');
    const hours = graceIdx >= 0 ? Number(rest[graceIdx + 1]) : 24;
    if (!Number.isFinite(hours) || hours < 0) {
      process.stderr.write('--grace-hours must be a number of hours\n');
      return 2;
    }
    const secret = await withStore(config, (s) => rotateSecret(s.db, rest[0]!, now, hours * 3600_000));
    if (!secret) {
      process.stderr.write(`no client ${rest[0]}\n`);
      return 1;
    }
    out(`client ${rest[0]}: new secret (the old one works for ${hours} h more; running servers notice within 30 s):\n${secret}`);
    return 0;
  }
  if (cmd === 'clients' && (sub === 'disable' || sub === 'enable') && rest[0]) {
    const ok = await withStore(config, (s) => setClientStatus(s.db, rest[0]!, sub === 'disable' ? 'disabled' : 'active', now));
    if (!ok) {
      process.stderr.write(`no client ${rest[0]}\n`);
      return 1;
    }
    out(`client ${rest[0]}: ${sub}d`);
    return 0;
  }
  if (cmd === 'clients' && sub === 'webhook' && rest.length === 2) {
    const [id, arg] = rest as [string, string];
    // Refusals that need no store first (opening the embedded store takes a while).
    if (!keyringOf(config)) throw new WebhookRegistrationError('webhooks are off: set WEBHOOK_SECRET_KEY (32 characters or more) outside sandbox mode');
    const problem = arg.startsWith('--') ? (['--remove', '--rotate-secret'].includes(arg) ? null : `unknown option ${arg}`) : webhookUrlProblem(arg, { sandbox: config.sandbox });
    if (problem) throw new WebhookRegistrationError(problem);
    const done = await withStore(config, (s) => {
      const { registry } = createWebhooks({ config, db: s.db, clock: systemClock, log: pino({ level: 'silent' }) });
      if (arg === '--remove') return setWebhook(registry, id, null);
      if (arg === '--rotate-secret') return setWebhook(registry, id, null, { rotate: true, keepUrl: true });
      return setWebhook(registry, id, arg);
    });
    if (!done) {
      process.stderr.write(`no client ${id}\n`);
      return 1;
    }
    if (arg === '--remove') out(`client ${id}: webhook URL removed`);
    else if (arg !== '--rotate-secret') out(`client ${id}: webhook URL set`);
    if (done.secret) out(`webhook signing secret (shown only now, store it safely):\n${done.secret}`);
    return 0;
  }
  process.stderr.write(`${USAGE}\n`);
  return 2;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((err: unknown) => {
    if (err instanceof WebhookRegistrationError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError || err instanceof WorldError || err instanceof DataDirLockedError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`postbook: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
