// Process entry: read config, start the service, listen, and shut down gracefully on SIGTERM/SIGINT.
// first: V8's settings hold from the first allocation (decision 0037)
import './v8-flags.js';
import { ConfigError, loadConfig } from './config.js';
import { createService } from './service.js';
import { createLogger } from './log.js';
import { WorldError } from './airline/sandbox/world.js';
import { WebhookRegistrationError } from './webhooks/register.js';
import { DataDirLockedError } from './store/lock.js';
import { STOP_GRACE_MS } from './airline/deadline.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);

  // The signals are taken from the first step: a SIGTERM while the service starts (migrations, the world's load,
  // the job queue's start) would otherwise kill it outright, mid-statement. One then arriving stops the service
  // as soon as its start is complete, before it listens; one after the listen drains it.
  let service: Awaited<ReturnType<typeof createService>> | undefined;
  let stopping: string | null = null;
  let listening = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = signal;
    // The requests' drain, then the workers' running steps (an airline call's time-out: STOP_GRACE_MS) and a
    // margin: the workers run in this process unless WORKERS=false (a review saw the 10 s force cut their 20 s off).
    // Also the bound of a start that does not complete.
    const force = setTimeout(() => {
      logger.error('shutdown grace period over: exiting');
      process.exit(1);
    }, config.shutdownGraceMs + STOP_GRACE_MS + 5_000);
    force.unref();
    if (!service || !listening) {
      logger.info({ signal }, 'shutting down: the start completes first');
      return;
    }
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    close(service);
  };
  const close = (running: NonNullable<typeof service>) => {
    running
      .close()
      .then(() => {
        logger.info('stopped');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // Which store (never its URL: it may hold a password) and world; a first embedded start creates its cluster.
  logger.info({ store: config.databaseUrl ? 'postgres' : 'pglite', world: config.worldPath }, 'starting');

  try {
    service = await createService(config, logger, (err) => {
      logger.fatal({ err }, 'lost the data folder lock: stopping to protect the data');
      process.exit(70);
    });
  } catch (err) {
    if (err instanceof WorldError || err instanceof DataDirLockedError || err instanceof WebhookRegistrationError) {
      logger.fatal(err.message);
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  if (stopping) {
    logger.info({ signal: stopping }, 'shutting down before listening');
    close(service);
    return;
  }
  const { app } = service;
  const url = await app.listen({ port: config.port, host: config.host });
  listening = true;
  logger.info(
    { url, store: service.store.kind, world: service.world.name, sandbox: config.sandbox, authHeader: `x-${config.headerPrefix}-client-id` },
    'postbook is ready',
  );
  // Outside a laptop's loopback, an open /metrics tells anyone who reaches the port the refund volumes per airline.
  if (!config.metricsToken && !['127.0.0.1', '::1', 'localhost'].includes(config.host)) {
    logger.warn({ host: config.host }, 'GET /metrics needs no credentials: set METRICS_TOKEN, or keep the port private');
  }
  // A signal during the listen: the drain starts now.
  if (stopping) {
    logger.info({ signal: stopping }, 'shutting down: draining in-flight requests');
    close(service);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`postbook: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
