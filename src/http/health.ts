// Liveness and readiness for orchestrators and load balancers (README "Operating it"):
// GET /healthz answers while the process serves HTTP at all; GET /readyz answers 200 only when this
// process can do its work — the store answers, its schema is the one this build expects, the job queue
// runs — and 503 with the failing checks otherwise, so a load balancer stops sending it traffic.
import { sql } from 'kysely';
import type { AppDeps } from '../deps.js';
import { migrationState } from '../store/migrate.js';
import { ProbeTimeout, STORE_PROBE_TIMEOUT_MS, withTimeout } from './probe-timeout.js';

export interface ReadinessCheck {
  ok: boolean;
  /** What is wrong, for an operator; absent when ok. */
  reason?: string;
}

export interface Readiness {
  ready: boolean;
  checks: { store: ReadinessCheck; migrations: ReadinessCheck; jobQueue: ReadinessCheck };
}

/** The least time between two log lines of a failing readiness probe (load balancers poll every few seconds). */
export const READINESS_LOG_MS = 60_000;

export async function readiness(deps: Pick<AppDeps, 'db' | 'jobQueue'>, log?: (err: unknown) => void): Promise<Readiness> {
  // /readyz needs no credentials: a driver's own text (a host name, an address, a database role) stays in the log
  // (a review saw `getaddrinfo ENOTFOUND db-primary.corp.internal` answered to anyone).
  const failed = (err: unknown): ReadinessCheck => {
    if (err instanceof ProbeTimeout) return { ok: false, reason: err.message };
    log?.(err);
    const code = (err as { code?: unknown } | null)?.code;
    return { ok: false, reason: `the store refused the probe${typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? ` (${code})` : ''}; the service log has the detail` };
  };
  const store = await withTimeout(sql`select 1`.execute(deps.db), STORE_PROBE_TIMEOUT_MS, 'the store')
    .then((): ReadinessCheck => ({ ok: true }))
    .catch(failed);
  const migrations = store.ok
    ? await withTimeout(migrationState(deps.db), STORE_PROBE_TIMEOUT_MS, 'the store')
        .then(({ pending, unknown }): ReadinessCheck => {
          if (pending.length > 0) return { ok: false, reason: `migrations not applied: ${pending.join(', ')} (run: postbook migrate)` };
          if (unknown.length > 0) return { ok: false, reason: `the store was migrated by a newer build: ${unknown.join(', ')}` };
          return { ok: true };
        })
        .catch(failed)
    : { ok: false, reason: 'the store does not answer' };
  const jobQueue: ReadinessCheck = deps.jobQueue.running ? { ok: true } : { ok: false, reason: 'the job queue is not running (starting or stopping)' };
  return { ready: store.ok && migrations.ok && jobQueue.ok, checks: { store, migrations, jobQueue } };
}
