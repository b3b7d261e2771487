#!/usr/bin/env node
// Operator command line (`postbook <command>`, from a checkout `npm run cli -- <command>`): the server, the
// workers, migrations, client credentials, worlds, the sandbox clock, refunds and webhook events. Built on
// commander: `--help` on every command; a usage error exits 2, a bad configuration or world 78, "not found"
// 1. Refuses to open an embedded data folder that a running server holds (PGlite allows one process only).
// The store, the service, the workers, the world reader and the logger are imported by the commands that use
// them, when they run: `--help`, a usage error or a refusal that needs no store answers without loading them
// (~0.2 s instead of ~1.2 s from the build).
// first: V8's settings hold from the first allocation (decision 0037)
import './v8-flags.js';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';
import type { Store } from './store/store.js';
import { createClient, MAX_GRACE_HOURS, RotationInGrace, rotateSecret, setClientStatus } from './clients/clients.js';
import { DataDirLockedError } from './store/lock.js';
import { STOP_GRACE_MS } from './airline/deadline.js';
import { systemClock, TestClock, type Clock } from './clock.js';
import { refundHistory } from './refunds/history.js';
import { setWebhook, WebhookRegistrationError, worldWebhooksProblem } from './webhooks/register.js';
import { keyringOf } from './webhooks/secret.js';
import { webhookUrlProblem } from './webhooks/url.js';
import { SeedConflict } from './orders/seed.js';
import type { MoveClockRequest } from './sandbox-clock.js';
import { ApiError } from './errors.js';
import { isUniqueViolation } from './store/errors.js';
import type { OperatorRole, WebhookEventState } from './store/schema.js';
import { changeOperator, createOperator, listOperators, OperatorError, ROLES, UnknownOperator, type OperatorChange } from './console/operators.js';

const out = (line: string) => process.stdout.write(`${line}\n`);

/** A refusal the operator can fix: printed as "postbook: …", exit `code`. */
class CliError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/**
 * A password from standard input: the first line when piped (`printf '%s' "$PW" | postbook operators add …`),
 * else asked for on the terminal without echo. Never from a flag (it would sit in the shell history and the
 * process list) and never printed.
 */
async function readPassword(): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(chunk as Buffer);
    const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
    if (line === '') throw new CliError('no password on standard input', 2);
    return line;
  }
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      process.stderr.write(prompt);
      let typed = '';
      stdin.setRawMode(true);
      stdin.resume();
      const onData = (data: Buffer) => {
        for (const ch of data.toString('utf8')) {
          if (ch === '\r' || ch === '\n') {
            done();
            process.stderr.write('\n');
            return resolve(typed);
          }
          if (ch === '\u0003') {
            done();
            return reject(new CliError('cancelled', 130));
          }
          if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
          else typed += ch;
        }
      };
      const done = () => {
        stdin.off('data', onData);
        stdin.setRawMode(false);
        stdin.pause();
      };
      stdin.on('data', onData);
    });
  const first = await ask('password: ');
  const again = await ask('password again: ');
  if (first !== again) throw new CliError('the two passwords differ', 2);
  return first;
}

async function withStore<T>(config: Config, fn: (store: Store) => Promise<T>): Promise<T> {
  const { openStore } = await import('./store/store.js');
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
 * The service's time for a one-off command: in the sandbox the stored clock every process follows, else the system's.
 * What a command writes next to the servers' due times and deadlines is compared with theirs, and a moved sandbox
 * clock runs ahead of the system's.
 */
async function serviceNow(config: Config, store: Store): Promise<Date> {
  return config.sandbox ? (await import('./sandbox-clock.js')).storedSandboxNow(store.db) : systemClock.now();
}

/**
 * `postbook worker`: the refund workers of docs/architecture.md "Growing past one machine" in a process of their own, on
 * the job tables the API processes share (run the API with WORKERS=false, or not: workers of both kinds
 * share the jobs, each job done once). Same world and airline connectors as the server (src/service.ts).
 * Resolves with the exit code once stopped.
 */
async function runWorker(config: Config): Promise<number> {
  if (!config.databaseUrl) {
    throw new CliError(
      'worker needs DATABASE_URL (a shared PostgreSQL). With the embedded store (PGlite) the API process runs ' +
        'the workers itself and no second process can open its data folder: start the server alone.',
      78,
    );
  }
  const [{ createLogger }, { loadWorldFile }, { WorldFollower }, { openStore }, { createAirlines, shareSandboxClock, worldAtStoredTime }, { createWorkers }, { createWebhooks }] =
    await Promise.all([
      import('./log.js'),
      import('./airline/sandbox/world.js'),
      import('./airline/sandbox/world-share.js'),
      import('./store/store.js'),
      import('./service.js'),
      import('./workers.js'),
      import('./webhooks/wiring.js'),
    ]);
  const logger = createLogger(config.logLevel);
  // Taken from the first step (a signal during the start stops the worker once started, instead of killing it
  // mid-start); process.on, not once: a second signal during the stop is ignored as the API server does (with
  // once, Node's default action killed the worker in the middle of its steps: a review). The force bounds the
  // stop, and a start that does not complete.
  const stopAsked = new Promise<NodeJS.Signals>((resolve) => {
    let asked = false;
    const ask = (signal: NodeJS.Signals) => {
      if (asked) return;
      asked = true;
      resolve(signal);
      const force = setTimeout(() => {
        logger.error('shutdown grace period over: exiting');
        process.exit(1);
      }, config.shutdownGraceMs + STOP_GRACE_MS + 5_000);
      force.unref();
    };
    process.on('SIGTERM', () => ask('SIGTERM'));
    process.on('SIGINT', () => ask('SIGINT'));
  });
  logger.info({ store: 'postgres', world: config.worldPath }, 'worker starting');
  // The sandbox clock is the one stored in the database: POST /sandbox/clock on an API process moves it here too.
  const clock: Clock = config.sandbox ? new TestClock() : systemClock;
  let world = loadWorldFile(config.worldPath, clock.now());
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: null });
  let workers;
  let sandboxClock = null;
  let worldFollower: InstanceType<typeof WorldFollower> | null = null;
  const { deliverer } = createWebhooks({ config, db: store.db, clock, log: logger });
  try {
    world = await worldAtStoredTime(config, clock, store, world);
    sandboxClock = config.sandbox ? await shareSandboxClock(clock, store) : null;
    // The world the API processes serve (recorded at their start, or by the console's reload), and its reloads.
    worldFollower = config.sandbox ? new WorldFollower(world, store.db, logger) : null;
    await worldFollower?.start(undefined, { adopt: true });
    const airlines = createAirlines(world, store, clock);
    const { worldRates } = await import('./refunds/pricing.js');
    workers = createWorkers({ store, airlines, clock, logger, pollSeconds: config.refundPollSeconds, limits: config.jobs, idempotencyTtlHours: config.idempotencyTtlHours, webhookRetentionDays: config.webhookRetentionDays, rates: worldRates(world) });
    await workers.start(true); // refunds, voids and the expiry of unpaid orders (src/workers.ts)
    deliverer?.start();
  } catch (err) {
    worldFollower?.stop();
    await store.close();
    throw err;
  }
  logger.info({ store: store.kind, world: world.name, ...(config.sandbox ? { worldTimesAt: world.resolvedAt.toISOString() } : {}), sandbox: config.sandbox, pollSeconds: config.refundPollSeconds }, 'postbook worker is ready');

  const signal = await stopAsked;
  logger.info({ signal }, 'worker shutting down: finishing the refund steps under way');
  sandboxClock?.stop();
  worldFollower?.stop();
  // graceful, side by side: running steps finish (up to STOP_GRACE_MS), the rest are handed back for a retry
  await Promise.all([deliverer?.stop(), workers.stop()]);
  await store.close();
  logger.info('worker stopped');
  return 0;
}

/** 90m, 36h, 3d, 1d12h30m → minutes; null when not such a duration. */
function durationMinutes(text: string): number | null {
  const m = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$/.exec(text.trim());
  if (!m || text.trim() === '') return null;
  return Number(m[1] ?? 0) * 1440 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** `postbook sandbox clock [show | advance <duration> | set <instant>]`: the stored clock every process follows. */
async function sandboxClockCommand(config: Config, args: string[]): Promise<number> {
  if (!config.sandbox) throw new CliError('the sandbox clock exists only in sandbox mode (SANDBOX=true)', 2);
  const [action = 'show', value] = args;
  let move: MoveClockRequest | null = null;
  if (action === 'advance') {
    const minutes = value === undefined ? null : durationMinutes(value);
    if (minutes === null) throw new CliError('sandbox clock advance needs a duration such as 90m, 36h, 3d or 1d12h', 2);
    move = { advanceMinutes: minutes };
  } else if (action === 'set') {
    if (value === undefined || Number.isNaN(Date.parse(value))) throw new CliError('sandbox clock set needs an ISO 8601 instant, e.g. 2026-12-24T09:00:00Z', 2);
    move = { to: new Date(value).toISOString() };
  } else if (action !== 'show') {
    throw new CliError(`unknown sandbox clock action ${action} (show, advance, set)`, 2);
  }
  const { clockState, SharedSandboxClock } = await import('./sandbox-clock.js');
  const state = await withStore(config, async (s) => {
    const shared = new SharedSandboxClock(new TestClock(), s.db);
    await shared.load();
    return move ? shared.move(move) : clockState(shared.clock);
  });
  const hours = (state.offsetMs / 3_600_000).toFixed(1);
  out(`sandbox clock: ${state.now} (${hours} h ahead of the real time)${move ? '; every process follows within a second' : ''}`);
  return 0;
}

const money = (minor: number, currency: string) => `${(minor / 100).toFixed(2)} ${currency}`;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a whole number of 1 or more');
  return n;
}

function program(): Command {
  const config = () => loadConfig();
  // An action's exit code (its return value; a refusal throws CliError instead).
  const run =
    <A extends unknown[]>(fn: (...args: A) => Promise<number | void>) =>
    async (...args: A) => {
      process.exitCode = (await fn(...args)) ?? 0;
    };
  const cli = new Command('postbook')
    .description('postbook: the post-booking service and its operator commands (from a checkout: npm run cli -- <command>)')
    .usage('<command> [options]')
    .showHelpAfterError('(postbook --help lists the commands; postbook <command> --help tells more)')
    .configureHelp({ sortSubcommands: false })
    .exitOverride();
  cli.addHelpText('after', '\nConfiguration comes from the same environment variables as the server (README "Configuration").');

  cli
    .command('serve')
    .description('start the service (HTTP API and, unless WORKERS=false, the workers): the same as npm start')
    .action(async () => {
      await import('./server.js');
      await new Promise<never>(() => undefined); // the server owns the process from here (SIGTERM stops it)
    });
  cli
    .command('worker')
    .description('run only the refund workers and webhook deliveries, no HTTP (needs DATABASE_URL); SIGTERM/SIGINT stop it gracefully')
    .action(run(() => runWorker(config())));
  cli
    .command('migrate')
    .description('apply pending database migrations (the server also does at start)')
    .action(
      run(async () => {
        await withStore(config(), async () => undefined); // openStore migrates
        out('migrations: up to date');
      }),
    );

  const clients = cli.command('clients').description('API clients: credentials, status, webhook URL');
  clients
    .command('add')
    .description('create a client; prints its secret once')
    .argument('<id>', 'client id: 3 to 64 letters, digits, dot, dash or underscore')
    .argument('<name...>', 'display name')
    .action(
      run(async (id: string, name: string[]) => {
        if (!/^[A-Za-z0-9._-]{3,64}$/.test(id)) throw new CliError('client id: 3 to 64 letters, digits, dot, dash or underscore', 2);
        const secret = await withStore(config(), (s) =>
          createClient(s.db, id, name.join(' '), systemClock.now()).catch((err: unknown) => {
            // a review: the database's own words came out ("duplicate key value violates unique constraint")
            throw isUniqueViolation(err) ? new CliError(`client ${id} exists already (see: postbook clients rotate|disable|enable)`, 2) : err;
          }),
        );
        out(`client ${id} created. Secret (shown only now, store it safely):\n${secret}`);
      }),
    );
  clients
    .command('rotate')
    .description('issue a new secret; the old one keeps working for the grace period')
    .argument('<id>')
    .addOption(new Option('--grace-hours <hours>', `hours the old secret keeps working (0 to ${MAX_GRACE_HOURS})`).default(24).argParser((v) => {
      const n = Number(v);
      // the console's bound too (a review: 100000 kept the old secret for 11 years; more wrote an invalid date)
      if (!Number.isFinite(n) || n < 0 || n > MAX_GRACE_HOURS) throw new InvalidArgumentError(`a number of hours, 0 to ${MAX_GRACE_HOURS}`);
      return n;
    }))
    .action(
      run(async (id: string, opts: { graceHours: number }) => {
        const cfg = config();
        const secret = await withStore(cfg, async (s) => {
          // The servers compare the grace's end with the service's clock (the system's, behind a moved sandbox
          // clock, ended the old secret at once; a review).
          const now = await serviceNow(cfg, s);
          return rotateSecret(s.db, id, now, opts.graceHours * 3600_000);
        });
        if (!secret) throw new CliError(`no client ${id}`, 1);
        out(`client ${id}: new secret (the old one works for ${opts.graceHours} h more; running servers notice within 30 s):\n${secret}`);
      }),
    );
  for (const verb of ['disable', 'enable'] as const) {
    clients
      .command(verb)
      .description(verb === 'disable' ? "refuse the client's calls" : "allow the client's calls again")
      .argument('<id>')
      .action(
        run(async (id: string) => {
          const ok = await withStore(config(), (s) => setClientStatus(s.db, id, verb === 'disable' ? 'disabled' : 'active', systemClock.now()));
          if (!ok) throw new CliError(`no client ${id}`, 1);
          out(`client ${id}: ${verb}d`);
        }),
      );
  }
  clients
    .command('webhook')
    .description("set the client's webhook URL (its first URL prints the signing secret once; docs/webhooks.md)")
    .argument('<id>')
    .argument('[url]', 'http(s) URL receiving the signed events')
    .option('--rotate-secret', 'new signing secret, printed once (the old one stops at once)')
    .option('--remove', 'no more deliveries to the client (its pending events fail)')
    .action(
      run(async (id: string, url: string | undefined, opts: { rotateSecret?: boolean; remove?: boolean }) => {
        const c = config();
        const chosen = [url !== undefined, !!opts.rotateSecret, !!opts.remove].filter(Boolean).length;
        if (chosen !== 1) throw new CliError('give exactly one of <url>, --rotate-secret or --remove', 2);
        // Refusals that need no store first (opening the embedded store takes a while).
        if (!keyringOf(c)) throw new WebhookRegistrationError('webhooks are off: set WEBHOOK_SECRET_KEY (32 characters or more) outside sandbox mode');
        const problem = url === undefined ? null : webhookUrlProblem(url, { sandbox: c.sandbox });
        if (problem) throw new WebhookRegistrationError(problem);
        const [{ createWebhooks }, { default: pino }] = await Promise.all([import('./webhooks/wiring.js'), import('pino')]);
        const done = await withStore(c, (s) => {
          const { registry } = createWebhooks({ config: c, db: s.db, clock: systemClock, log: pino({ level: 'silent' }) });
          if (opts.remove) return setWebhook(registry, id, null);
          if (opts.rotateSecret) return setWebhook(registry, id, null, { rotate: true, keepUrl: true });
          return setWebhook(registry, id, url!);
        });
        if (!done) throw new CliError(`no client ${id}`, 1);
        if (opts.remove) out(`client ${id}: webhook URL removed`);
        else if (!opts.rotateSecret) out(`client ${id}: webhook URL set`);
        if (done.secret) out(`webhook signing secret (shown only now, store it safely):\n${done.secret}`);
      }),
    );

  const world = cli.command('world').description('sandbox world files');
  world
    .command('check')
    .description('validate a world file (default: $WORLD)')
    .argument('[file]')
    .action(
      run(async (file: string | undefined) => {
        const c = config();
        const { loadWorldFile } = await import('./airline/sandbox/world.js');
        const w = loadWorldFile(file ?? c.worldPath, systemClock.now());
        // what the server's start refuses under this configuration besides the file's own mistakes
        const problem = worldWebhooksProblem(w.clients, { enabled: keyringOf(c) !== null, sandbox: c.sandbox });
        if (problem) throw new CliError(`world ${file ?? c.worldPath}: the server would not start with it: ${problem}`, 2);
        out(`world ${w.name}: ok (${w.airlines.size} airlines, ${w.flights.size} flights, ${w.bookings.size} bookings, ${w.clients.length} clients)`);
      }),
    );
  world
    .command('load')
    .description("validate a world file and write its clients, booked orders and clients' webhooks into the store (what the server does at start), without starting it")
    .argument('<file>')
    .action(
      run(async (file: string) => {
        const c = config();
        const { loadWorldFile } = await import('./airline/sandbox/world.js');
        // Checked before the store is opened: a file that does not load changes nothing.
        let w = loadWorldFile(file, systemClock.now());
        const keyring = keyringOf(c);
        const problem = worldWebhooksProblem(w.clients, { enabled: keyring !== null, sandbox: c.sandbox });
        if (problem) throw new CliError(`world ${file} not loaded, nothing changed: ${problem}`, 2);
        await withStore(c, async (s) => {
          // The service's time, as the servers read the world at (a review: the system's, behind a moved sandbox
          // clock, moved every booked order back by the clock's lead while the servers served the flights later).
          const now = await serviceNow(c, s);
          w = loadWorldFile(file, now);
          const world = w;
          const { seedWorld } = await import('./console/world.js');
          // one transaction: a booking that cannot become an order, a webhook URL refused (or a crash) leaves nothing written
          await s.db
            .transaction()
            .execute((trx) => seedWorld(trx, world, now, keyring ? { keyring, sandbox: c.sandbox, now: () => now } : null))
            .catch((err: unknown) => {
              throw err instanceof SeedConflict || err instanceof WebhookRegistrationError ? new CliError(`world ${file} not loaded, nothing changed: ${err.message}`, err instanceof SeedConflict ? 1 : 2) : err;
            });
        });
        out(`world ${w.name}: loaded ${w.clients.length} clients and ${w.bookings.size} booked orders, ${w.clients.filter((x) => x.webhook).length} client webhook(s) (start the server with WORLD=${file} to serve its flights)`);
      }),
    );

  cli
    .command('sandbox')
    .description('the sandbox (SANDBOX=true)')
    .command('clock')
    .description('the sandbox time every process follows: show | advance <duration> (90m, 36h, 3d, 1d12h) | set <ISO instant>')
    .argument('[action]', 'show, advance or set', 'show')
    .argument('[value]', 'the duration or the instant')
    .action(run((action: string, value: string | undefined) => sandboxClockCommand(config(), value === undefined ? [action] : [action, value])));

  cli
    .command('refunds')
    .description('refunds')
    .command('show')
    .description('a refund and every status change with its time and cause')
    .argument('<refundCode>')
    .action(
      run(async (refundCode: string) => {
        const r = await withStore(config(), (s) => refundHistory(s.db, refundCode));
        if (!r) throw new CliError(`no refund ${refundCode}`, 1);
        out(`refund ${r.refundCode}: order ${r.orderNo}, client ${r.clientId}, reason ${r.reason}, ${r.path}, ${r.refundMethod}`);
        out(`  status ${r.status}; estimated ${money(r.estimatedRefundMinor, r.currency)}${r.actualRefundMinor === null ? '' : `, actual ${money(r.actualRefundMinor, r.currency)}`}${r.cancelReason ? `; cancelReason: ${r.cancelReason}` : ''}`);
        for (const ch of r.changes) out(`  ${ch.at.toISOString()}  ${ch.from ?? '-'} → ${ch.to}  ${ch.cause}`);
      }),
    );

  const hooks = cli.command('webhooks').description('the webhook outbox');
  hooks
    .command('list')
    .description('webhook events, newest first')
    .addOption(new Option('--state <state>', 'only events in this state').choices(['pending', 'delivered', 'failed']))
    .option('--client <id>', "only this client's events")
    .addOption(new Option('--limit <n>', 'at most this many').default(50).argParser(positiveInt))
    .action(
      run(async (opts: { state?: WebhookEventState; client?: string; limit: number }) => {
        const { listEvents } = await import('./webhooks/admin.js');
        const events = await withStore(config(), (s) => listEvents(s.db, { ...(opts.state ? { state: opts.state } : {}), ...(opts.client ? { clientId: opts.client } : {}), limit: opts.limit }));
        if (events.length === 0) out('no webhook events');
        for (const e of events) {
          out(`${e.id}  ${e.eventId}  ${e.occurredAt.toISOString()}  ${e.clientId}  ${e.type} ${e.subject} ${e.transition}  ${e.state} after ${e.attempts} attempt(s)${e.state === 'pending' ? `, next ${e.nextAttemptAt.toISOString()}` : ''}${e.lastError ? `  last error: ${e.lastError}` : ''}`);
        }
      }),
    );
  hooks
    .command('retry')
    .description('deliver events again now: the given ones (id or event id), or every failed one with --failed')
    .argument('[events...]')
    .option('--failed', 'every failed event')
    .option('--client <id>', 'with --failed: only this client')
    .action(
      run(async (events: string[], opts: { failed?: boolean; client?: string }) => {
        if (!!opts.failed === events.length > 0) throw new CliError('give event ids or --failed (not both)', 2);
        const { retryEvents } = await import('./webhooks/admin.js');
        const cfg = config();
        const n = await withStore(cfg, async (s) => retryEvents(s.db, opts.failed ? { allFailed: true, ...(opts.client ? { clientId: opts.client } : {}) } : { ids: events }, await serviceNow(cfg, s)));
        if (n === 0 && !opts.failed) throw new CliError('no such undelivered event', 1);
        out(`${n} event(s) due now; the deliverer sends them within seconds`);
      }),
    );

  const operators = cli.command('operators').description('operator console accounts (docs/console.md): separate from API clients');
  operators
    .command('add')
    .description('create an operator; the password is read from standard input (piped) or asked for without echo, never from a flag')
    .argument('<login>', 'login: 3 to 64 lower-case letters, digits, dot, dash, underscore or @')
    .addOption(new Option('--role <role>', 'viewer reads; agent also acts on refunds; admin also manages clients').choices([...ROLES]).makeOptionMandatory())
    .action(
      run(async (login: string, opts: { role: OperatorRole }) => {
        const password = await readPassword();
        const c = config();
        const op = await withStore(c, (s) => createOperator(s.db, { login, password, role: opts.role }, systemClock.now()));
        out(`operator ${op.login} created (${op.role})`);
      }),
    );
  operators
    .command('list')
    .description('every operator with role, state and last login')
    .action(
      run(async () => {
        const ops = await withStore(config(), (s) => listOperators(s.db));
        if (ops.length === 0) out('no operators (create one: postbook operators add LOGIN --role admin)');
        for (const o of ops) out(`${o.login}  ${o.role}${o.disabled ? '  disabled' : ''}  created ${o.createdAt.toISOString()}  last login ${o.lastLoginAt ? o.lastLoginAt.toISOString() : 'never'}`);
      }),
    );
  // Changes of an account, each with its audit row (operator.disable|enable|role|password, by "cli").
  const change = (login: string, what: OperatorChange, done: (op: { login: string; role: string; disabled: boolean }) => string) =>
    withStore(config(), async (s) => void out(done(await changeOperator(s.db, login, what, systemClock.now()))));
  operators
    .command('disable')
    .description("refuse the operator's logins and end its console sessions at once (the account and its audit rows stay)")
    .argument('<login>')
    .action(run((login: string) => change(login, { kind: 'disable' }, (op) => `operator ${op.login} disabled; its console sessions ended`)));
  operators
    .command('enable')
    .description('allow a disabled operator to log in again')
    .argument('<login>')
    .action(run((login: string) => change(login, { kind: 'enable' }, (op) => `operator ${op.login} enabled`)));
  operators
    .command('role')
    .description("change the operator's role (its open sessions act with the new role from their next request)")
    .argument('<login>')
    .addOption(new Option('--role <role>', 'viewer reads; agent also acts on refunds; admin also manages clients').choices([...ROLES]).makeOptionMandatory())
    .action(run((login: string, opts: { role: OperatorRole }) => change(login, { kind: 'role', role: opts.role }, (op) => `operator ${op.login} is now ${op.role}`)));
  operators
    .command('password')
    .description("set a new password (read as for add) and end the operator's console sessions")
    .argument('<login>')
    .action(
      run(async (login: string) => {
        // an unknown login is said before a password is asked for (a review: asked first, then refused)
        const known = await withStore(config(), (s) => s.db.selectFrom('operators').select('login').where('login', '=', login).executeTakeFirst());
        if (!known) throw new UnknownOperator(login);
        const password = await readPassword();
        await change(login, { kind: 'password', password }, (op) => `operator ${op.login}: new password set; its console sessions ended`);
      }),
    );

  return cli;
}

async function main(argv: string[]): Promise<number> {
  const cli = program();
  if (argv.length === 0) {
    cli.outputHelp({ error: true });
    return 2;
  }
  try {
    await cli.parseAsync(argv, { from: 'user' });
    return Number(process.exitCode ?? 0);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version are "errors" that exit 0; a usage error has printed its message and the hint.
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch(async (err: unknown) => {
    if (err instanceof CliError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(err.code);
    }
    if (err instanceof UnknownOperator) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof WebhookRegistrationError || err instanceof ApiError || err instanceof OperatorError || err instanceof RotationInGrace) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(2);
    }
    // A world error comes from the world reader, which its command has loaded by then (asked last: otherwise it
    // would be loaded here).
    if (err instanceof ConfigError || err instanceof DataDirLockedError || err instanceof (await import('./airline/sandbox/world.js')).WorldError) {
      process.stderr.write(`postbook: ${err.message}\n`);
      process.exit(78);
    }
    process.stderr.write(`postbook: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
