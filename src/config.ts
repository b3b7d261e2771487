// Configuration from environment variables, validated once at boot with messages that name the variable.
import { isIP } from 'node:net';
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Redis of the rate pools and look-to-book counters, shared by every API process; null: in memory. */
  redisUrl: string | null;
  worldPath: string;
  headerPrefix: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  sandbox: boolean;
  adminToken: string | null;
  bodyLimitBytes: number;
  shutdownGraceMs: number;
  /** How long a refund quote's refundOfferId can be submitted. */
  offerTtlMinutes: number;
  /** Seconds between two looks at a refund the airline is processing. */
  refundPollSeconds: number;
  /** Run the refund workers in this process (always with the embedded store). */
  runWorkers: boolean;
  /** Embedded store: PostgreSQL's shared_buffers in MB (decision 0017). */
  pgliteSharedBuffersMb: number;
  /** Embedded store: seconds between two looks for tables due for vacuum or analyze; 0: never (decision 0032). */
  pgliteAutovacuumSeconds: number;
  /** Encrypts the webhook signing secrets in the store (decision 0022); null: the sandbox key in sandbox mode, else webhooks off. */
  webhookSecretKey: string | null;
  /** Requests per minute per client of extractPnr.do and pnr/claim.do together, unless the client's settings say otherwise. */
  pnrPerMinute: number;
  /** The operator console (docs/console.md): session cookie's Secure flag (auto: when the request came over https). */
  consoleCookieSecure: 'auto' | 'always' | 'never';
  /**
   * Which peers' X-Forwarded-For and X-Forwarded-Proto are believed (Fastify's `trustProxy`): false (none), true (any),
   * or a list of addresses and CIDR ranges (the reverse proxy's). The console's login throttle counts by the
   * client's address and its cookie is Secure over https: behind a proxy both need the forwarded values.
   */
  trustProxy: boolean | string;
  /** Hours a console session lasts after login. */
  consoleSessionHours: number;
  /** Minutes a refund may wait at status 0 before the queue flags it "not submitted" (decision 0029). */
  consoleSubmitTargetMinutes: number;
  /** Sandbox only: the password of the demo operators demo-viewer, demo-agent and demo-admin; null: none are created. */
  consoleDemoPassword: string | null;
  /** How long an Idempotency-Key replays its first answer, in hours of service time (decision 0028). */
  idempotencyTtlHours: number;
  /** Days a settled webhook event (delivered or failed) and its attempts are kept, counted from its status change (decision 0022). */
  webhookRetentionDays: number;
  /** Origins whose browser pages may call the API (CORS, decision 0048); ['*'] any (sandbox only); empty: none. */
  corsOrigins: string[];
  /** Bearer token GET /metrics asks for; null: /metrics is open (keep its port private). */
  metricsToken: string | null;
  /** Whether this process's /metrics shows the store-wide figures (refunds, jobs, webhooks), and how long a read of them is shown (seconds; 0: every scrape reads). */
  metricsStore: { enabled: boolean; maxAgeSeconds: number };
  /** Attempt limits and time limit of every durable job queue (refunds, voids, order expiry, cleanup; src/jobs/queue.ts). */
  jobs: JobLimits;
}

/** The job queue's defaults for every queue that does not set its own (decision 0028). */
export interface JobLimits {
  /** Retries after the first attempt. */
  retryLimit: number;
  /** Delay before the first retry, in seconds. */
  retryDelaySeconds: number;
  /** Exponential backoff (with jitter) from retryDelaySeconds. */
  retryBackoff: boolean;
  /** How long one attempt may run before it counts as failed (and, on PostgreSQL, another worker retries it). */
  expireInSeconds: number;
  /**
   * Retries of a refund's airline call (its submission, a status look) after a failure, the waits doubling from
   * retryDelaySeconds (with retryBackoff) up to REFUND_RETRY_MAX_DELAY_SECONDS: the default rides out ~4.4 hours of airline trouble.
   */
  refundRetryLimit: number;
  /**
   * Batches the refund sweep keeps in flight (REFUND_SWEEP_LANES, decisions 0063 and 0065). Unset: the sweep's shape for
   * the store it runs on (SWEEP_SHAPES, src/refunds/lifecycle.ts: four of 25 refunds on PostgreSQL, one of 100 on the
   * embedded store). One sweep carries the whole deployment's refund calls, so at an airline's latency this bounds its
   * submissions a second.
   */
  refundSweepLanes?: number;
}

/** The smallest JOB_EXPIRE_SECONDS: one attempt holds an airline call of up to 15 s (src/airline/deadline.ts) with room to spare. */
export const MIN_JOB_EXPIRE_SECONDS = 30;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const CONFIG_DOC: Array<{ name: string; default: string; meaning: string }> = [
  { name: 'PORT', default: '8080', meaning: 'TCP port the API listens on' },
  { name: 'HOST', default: '127.0.0.1', meaning: 'interface to bind (0.0.0.0 to expose)' },
  { name: 'DATA_DIR', default: './data', meaning: 'folder of the embedded PGlite database (ignored with DATABASE_URL)' },
  { name: 'DATABASE_URL', default: '(unset: embedded PGlite)', meaning: 'postgres://… of a PostgreSQL 14+ server' },
  { name: 'REDIS_URL', default: '(unset: rate pools in memory)', meaning: 'redis://… (or rediss://) holding the rate pools and look-to-book counters, so they hold across API processes' },
  { name: 'WORLD', default: './worlds/demo.yaml', meaning: 'sandbox airline world file (JSON or YAML)' },
  { name: 'HEADER_PREFIX', default: 'service', meaning: 'brand word of the auth headers: x-<prefix>-client-id / -secret' },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'fatal, error, warn, info, debug, trace or silent' },
  { name: 'SANDBOX', default: 'true', meaning: 'sandbox mode: movable test clock and /sandbox admin endpoints' },
  { name: 'ADMIN_TOKEN', default: '(world sandbox.adminToken)', meaning: 'bearer token for /sandbox admin endpoints' },
  { name: 'CORS_ORIGINS', default: '(unset: no CORS)', meaning: 'origins (https://agent.example.com, comma-separated; * in sandbox mode only) whose browser pages may call the API: preflight answered, request id and Retry-After exposed; never the console (decision 0048)' },
  { name: 'METRICS_TOKEN', default: '(unset: /metrics open)', meaning: '16+ characters: GET /metrics asks for Authorization: Bearer <token> (Prometheus: authorization.credentials)' },
  { name: 'METRICS_STORE_FIGURES', default: 'true', meaning: "this process's /metrics shows the store-wide figures (refunds, jobs, undelivered webhooks): false on all processes but one, or aggregate them with max()" },
  { name: 'METRICS_STORE_SECONDS', default: '5', meaning: 'seconds (0 to 300) a read of the store-wide figures is shown before a scrape reads them again (0: every scrape)' },
  { name: 'BODY_LIMIT_BYTES', default: '1048576', meaning: 'largest accepted request body (larger → HTTP 413)' },
  { name: 'SHUTDOWN_GRACE_MS', default: '10000', meaning: 'how long shutdown waits for in-flight requests' },
  { name: 'WORKERS', default: 'true', meaning: 'run the refund workers in the API process (with DATABASE_URL, false leaves them to `postbook worker` processes)' },
  { name: 'OFFER_TTL_MINUTES', default: '30', meaning: 'how long a refundOfferId from refundQuotation.do can be submitted' },
  { name: 'PGLITE_SHARED_BUFFERS_MB', default: '16', meaning: 'embedded store: PostgreSQL shared_buffers in MB (more holds more of a large database in memory; decision 0017)' },
  { name: 'PGLITE_AUTOVACUUM_SECONDS', default: '10', meaning: "embedded store: seconds between two looks for tables PostgreSQL's autovacuum would vacuum or analyze (0: never; decision 0032)" },
  { name: 'WEBHOOK_SECRET_KEY', default: '(sandbox: a published key; otherwise webhooks off)', meaning: '32+ random characters: the key the webhook signing secrets are stored encrypted with (docs/webhooks.md)' },
  { name: 'PNR_RATE_PER_MINUTE', default: '120', meaning: "requests per minute per client of extractPnr.do and pnr/claim.do together (a client's settings.rateLimits.pnrPerMinute wins)" },
  { name: 'CONSOLE_COOKIE_SECURE', default: 'auto', meaning: "operator console session cookie's Secure flag: auto (when the request came over https), always or never (docs/console.md)" },
  { name: 'TRUST_PROXY', default: 'false', meaning: "false, true, or the reverse proxy's addresses and CIDR ranges, comma-separated: whose X-Forwarded-For and X-Forwarded-Proto are believed (the console's login throttle per address and its Secure cookie behind a proxy)" },
  { name: 'CONSOLE_SESSION_HOURS', default: '8', meaning: 'hours an operator console session lasts after login' },
  { name: 'CONSOLE_SUBMIT_TARGET_MINUTES', default: '15', meaning: 'minutes a refund may wait before its submission to the airline before the console flags it (decision 0029)' },
  { name: 'CONSOLE_DEMO_PASSWORD', default: '(unset: no demo operators)', meaning: 'sandbox only, 12+ characters: creates the console operators demo-viewer, demo-agent and demo-admin with this password' },
  { name: 'REFUND_POLL_SECONDS', default: '2 (sandbox) / 300', meaning: 'seconds between two looks at a refund the airline is processing' },
  { name: 'IDEMPOTENCY_TTL_HOURS', default: '24', meaning: 'hours (1 to 720) an Idempotency-Key replays its first answer; after that the key is new again and a cleanup job deletes it' },
  { name: 'WEBHOOK_RETENTION_DAYS', default: '30', meaning: 'days (2 to 3650) a delivered or failed webhook event and its attempts are kept after the status change it tells of; a cleanup job deletes them after that' },
  { name: 'JOB_RETRY_LIMIT', default: '5', meaning: 'retries (0 to 100) of a failed job after its first attempt (a refund\'s airline calls: REFUND_RETRY_LIMIT; a void submission keeps its own 10, docs/voids.md)' },
  { name: 'REFUND_RETRY_LIMIT', default: '24', meaning: 'retries (0 to 100) of a refund\'s failed submission or status look, waits doubling from JOB_RETRY_DELAY_SECONDS (with JOB_RETRY_BACKOFF) up to 15 minutes: 24 rides out ~4.4 h of airline trouble with the JOB_RETRY_* defaults (without back-off: 24 waits of the delay)' },
  { name: 'REFUND_SWEEP_LANES', default: '4 (PostgreSQL) / 1 (embedded)', meaning: "batches (1 to 16) the refund sweep keeps in flight, of 25 refunds on PostgreSQL and of 100 on the embedded store: one sweep makes every refund's airline calls for the whole deployment, so at an airline answering in 0.4 s the default sends ~250 submissions a second on either store; raise it for a slow airline (decisions 0063, 0065)" },
  { name: 'JOB_RETRY_DELAY_SECONDS', default: '5', meaning: 'seconds (0 to 3600) before the first retry of a failed job' },
  { name: 'JOB_RETRY_BACKOFF', default: 'true', meaning: 'double the retry delay at each retry (a job\'s retries with jitter; a refund\'s submission and status look exactly)' },
  { name: 'JOB_EXPIRE_SECONDS', default: '60', meaning: `seconds (${MIN_JOB_EXPIRE_SECONDS} to 86399) one job attempt may run before it fails into a retry; also how soon a job of a killed worker is retried on PostgreSQL` },
];

function intVar(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
    return fallback;
  }
  const n = Number(raw);
  if (n < min || n > max) problems.push(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function boolVar(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  problems.push(`${name} must be true or false, got ${JSON.stringify(env[name])}`);
  return fallback;
}

/** TRUST_PROXY: true or false, or addresses and CIDR ranges (IPv4 or IPv6), comma-separated. */
function trustProxyVar(raw: string | undefined, problems: string[]): boolean | string {
  const text = raw?.trim() ?? '';
  if (text === '' || ['0', 'false', 'no', 'off'].includes(text.toLowerCase())) return false;
  if (['1', 'true', 'yes', 'on'].includes(text.toLowerCase())) return true;
  const entries = text.split(',').map((e) => e.trim());
  const bad = entries.filter((e) => {
    const [address, bits, more] = e.split('/');
    const family = isIP(address ?? '');
    if (family === 0 || more !== undefined) return true;
    return bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
  });
  if (bad.length > 0) problems.push(`TRUST_PROXY must be true, false or addresses and CIDR ranges separated by commas, got ${JSON.stringify(raw)}`);
  return entries.join(',');
}

function boolean_(env: NodeJS.ProcessEnv, problems: string[]): boolean {
  const run = boolVar(env, 'WORKERS', true, problems);
  // Embedded PGlite is one process: the API process must carry the workers.
  return run || !env.DATABASE_URL?.trim();
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const port = intVar(env, 'PORT', 8080, 0, 65535, problems);
  const bodyLimitBytes = intVar(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024, problems);
  const shutdownGraceMs = intVar(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000, problems);
  const offerTtlMinutes = intVar(env, 'OFFER_TTL_MINUTES', 30, 1, 7 * 24 * 60, problems);

  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  }

  const redisUrl = env.REDIS_URL?.trim() || null;
  if (redisUrl !== null) {
    let ok = false;
    try {
      const u = new URL(redisUrl);
      ok = (u.protocol === 'redis:' || u.protocol === 'rediss:') && u.hostname !== '';
    } catch {
      ok = false;
    }
    if (!ok) problems.push('REDIS_URL must look like redis://host:port (or rediss:// for TLS)');
  }

  const headerPrefix = (env.HEADER_PREFIX?.trim() || 'service').toLowerCase();
  if (!/^[a-z0-9][a-z0-9-]{0,30}$/.test(headerPrefix)) {
    problems.push(`HEADER_PREFIX must be a word of letters, digits or dashes (it becomes x-<prefix>-client-id), got ${JSON.stringify(env.HEADER_PREFIX)}`);
  }

  const logLevelRaw = (env.LOG_LEVEL?.trim() || 'info').toLowerCase();
  const logLevel = (LOG_LEVELS as readonly string[]).includes(logLevelRaw) ? (logLevelRaw as Config['logLevel']) : 'info';
  if (logLevel !== logLevelRaw) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`);

  const webhookSecretKey = env.WEBHOOK_SECRET_KEY?.trim() || null;
  if (webhookSecretKey !== null && webhookSecretKey.length < 32) problems.push('WEBHOOK_SECRET_KEY must be at least 32 characters');

  const adminToken = env.ADMIN_TOKEN?.trim() || null;
  if (adminToken !== null && adminToken.length < 16) problems.push('ADMIN_TOKEN must be at least 16 characters');

  const corsOrigins = (env.CORS_ORIGINS ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  const sandbox = boolVar(env, 'SANDBOX', true, problems);
  for (const origin of corsOrigins) {
    if (origin === '*') {
      if (!sandbox) problems.push('CORS_ORIGINS may be * in sandbox mode only: list the origins');
      continue;
    }
    let ok = false;
    try {
      const u = new URL(origin);
      ok = (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === origin;
    } catch {
      ok = false;
    }
    if (!ok) problems.push(`CORS_ORIGINS must be origins like https://agent.example.com (scheme, host and port only, no path or trailing slash), got ${JSON.stringify(origin)}`);
  }

  const metricsToken = env.METRICS_TOKEN?.trim() || null;
  if (metricsToken !== null && metricsToken.length < 16) problems.push('METRICS_TOKEN must be at least 16 characters');

  const cookieSecure = (env.CONSOLE_COOKIE_SECURE?.trim() || 'auto').toLowerCase();
  if (!['auto', 'always', 'never'].includes(cookieSecure)) problems.push(`CONSOLE_COOKIE_SECURE must be auto, always or never, got ${JSON.stringify(env.CONSOLE_COOKIE_SECURE)}`);
  const trustProxy = trustProxyVar(env.TRUST_PROXY, problems);
  const consoleDemoPassword = env.CONSOLE_DEMO_PASSWORD || null;
  if (consoleDemoPassword !== null && consoleDemoPassword.length < 12) problems.push('CONSOLE_DEMO_PASSWORD must be at least 12 characters');

  const config: Config = {
    port,
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: path.resolve(cwd, env.DATA_DIR?.trim() || 'data'),
    databaseUrl,
    redisUrl,
    worldPath: path.resolve(cwd, env.WORLD?.trim() || 'worlds/demo.yaml'),
    headerPrefix,
    logLevel,
    sandbox,
    adminToken,
    bodyLimitBytes,
    shutdownGraceMs,
    offerTtlMinutes,
    refundPollSeconds: 0,
    runWorkers: boolean_(env, problems),
    pgliteSharedBuffersMb: intVar(env, 'PGLITE_SHARED_BUFFERS_MB', 16, 1, 4096, problems),
    pgliteAutovacuumSeconds: intVar(env, 'PGLITE_AUTOVACUUM_SECONDS', 10, 0, 86_400, problems),
    webhookSecretKey,
    pnrPerMinute: intVar(env, 'PNR_RATE_PER_MINUTE', 120, 1, 1_000_000, problems),
    consoleCookieSecure: cookieSecure as Config['consoleCookieSecure'],
    trustProxy,
    consoleSessionHours: intVar(env, 'CONSOLE_SESSION_HOURS', 8, 1, 24 * 30, problems),
    consoleSubmitTargetMinutes: intVar(env, 'CONSOLE_SUBMIT_TARGET_MINUTES', 15, 1, 7 * 24 * 60, problems),
    consoleDemoPassword,
    idempotencyTtlHours: intVar(env, 'IDEMPOTENCY_TTL_HOURS', 24, 1, 720, problems),
    webhookRetentionDays: intVar(env, 'WEBHOOK_RETENTION_DAYS', 30, 2, 3650, problems),
    corsOrigins,
    metricsToken,
    metricsStore: { enabled: boolVar(env, 'METRICS_STORE_FIGURES', true, problems), maxAgeSeconds: intVar(env, 'METRICS_STORE_SECONDS', 5, 0, 300, problems) },
    jobs: {
      retryLimit: intVar(env, 'JOB_RETRY_LIMIT', 5, 0, 100, problems),
      retryDelaySeconds: intVar(env, 'JOB_RETRY_DELAY_SECONDS', 5, 0, 3600, problems),
      retryBackoff: boolVar(env, 'JOB_RETRY_BACKOFF', true, problems),
      // pg-boss refuses 24 h or more
      expireInSeconds: intVar(env, 'JOB_EXPIRE_SECONDS', 60, MIN_JOB_EXPIRE_SECONDS, 86_399, problems),
      refundRetryLimit: intVar(env, 'REFUND_RETRY_LIMIT', 24, 0, 100, problems),
      // unset: the lifecycle's shape for the store it runs on (a test app's store is not the configuration's)
      ...(env.REFUND_SWEEP_LANES?.trim() ? { refundSweepLanes: intVar(env, 'REFUND_SWEEP_LANES', 1, 1, 16, problems) } : {}),
    },
  };
  config.refundPollSeconds = intVar(env, 'REFUND_POLL_SECONDS', config.sandbox ? 2 : 300, 1, 86_400, problems);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
