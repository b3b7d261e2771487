// The durable job queue the refund workers use: pg-boss 10.4.2 on the store's own Kysely connection, on both
// stores (embedded PGlite and PostgreSQL). Decision record: docs/decisions/0009-job-queue.md.
//
// pg-boss provides the tables (schema `pgboss` by default), the job state machine (created → active →
// completed, or retry → … → failed), retries with backoff, SKIP LOCKED fetching and maintenance (expiry of
// jobs left active by a dead worker, archiving). This module adds:
// - transactional send: `send(name, data, { trx })` inserts the job on the caller's transaction;
// - its own worker loop (fetch → handlers → complete/fail) instead of pg-boss's `work()`: it fetches again at
//   once while jobs keep coming, completes per outcome, passes an AbortSignal, is woken by local sends, and
//   drains on stop;
// - insertSql(): the job insert send() runs, as SQL to embed in the caller's own statement (one statement
//   writes a refund and its job);
// - restart recovery in embedded mode (jobs a killed process left `active` are failed into a retry at start);
// - stats() for metrics.
import PgBoss from 'pg-boss';
import type { BaseLogger } from 'pino';
import { CompiledQuery, sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Store, StoreKind } from '../store/store.js';
import { recordingExecutor, storeExecutor, transactionExecutor, type TrackedExecutor } from './executor.js';

export type JobLogger = Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * - `standard`: every send is a job; `singletonKey` is refused (it would not deduplicate anything).
 * - `short`: at most one job per singletonKey waiting for its first run; a send whose key already waits is
 *   dropped (send returns null). Every send to such a queue must carry a singletonKey.
 * - `stately` (pg-boss's): as `short`, and at most one job per singletonKey running, in all processes: a job
 *   due while another of its key runs waits until that one has ended. Only for a queue of one key (a recurring
 *   job that must never run twice at once: the refund sweep): when the head of the queue has the key of a
 *   running job, pg-boss 10's fetch fails on the policy's unique index and returns nothing, so a queue of many
 *   keys would stall behind one long job. Workers of such a queue do not probe while one of its jobs runs, and
 *   take that fetch failure for "nothing to fetch".
 * pg-boss's `singleton` policy is left out (no bound on the jobs waiting). Serialise work on one refund with a
 * row lock on the refund instead.
 */
export type QueuePolicy = 'standard' | 'short' | 'stately';

/** Policies whose sends carry a singletonKey (one job per key waiting). */
const keyed = (policy: QueuePolicy) => policy === 'short' || policy === 'stately';

export interface QueueDeclaration {
  policy?: QueuePolicy;
  /** Retries after the first attempt (default: the queue-wide `retryLimit`). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** Exponential backoff with jitter from retryDelaySeconds (pg-boss: delay·2^n/2 · (1 + random)). */
  retryBackoff?: boolean;
  /** How long one attempt may run; see JobQueueOptions.expireInSeconds. */
  expireInSeconds?: number;
}

export interface JobQueueOptions {
  store: Pick<Store, 'db' | 'kind'>;
  /** Defaults to store.kind (and must equal it when given). */
  kind?: StoreKind;
  /** PostgreSQL schema for pg-boss's tables (default `pgboss`); tests pass one of their own. */
  schema?: string;
  logger: JobLogger;
  /** Every queue this process sends to or works on, created (or updated) at start(). */
  queues: Record<string, QueueDeclaration>;
  /**
   * How long one attempt may run before it counts as failed (default 60 s). The worker aborts the handler's
   * signal and fails the attempt then; on PostgreSQL, maintenance also fails attempts whose worker died
   * (kill -9, lost machine) once this has passed, so another worker retries them. Keep every airline call's
   * own timeout well below it.
   */
  expireInSeconds?: number;
  /** Defaults for queues that do not set their own: 5 retries, 5 s delay, with backoff. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  /** How often pg-boss maintenance runs (expiry, archiving); default 30 s. Only one instance runs it per interval. */
  maintenanceIntervalSeconds?: number;
  /** Completed jobs move to the archive table after this (default 1 h); failed ones after archiveFailedAfterSeconds (default 7 days). */
  archiveCompletedAfterSeconds?: number;
  archiveFailedAfterSeconds?: number;
  /** Archived jobs are deleted after this many days (default 7). */
  deleteAfterDays?: number;
  /**
   * At start(), fail every job left `active` so it is retried at once (default: on for PGlite, off for
   * PostgreSQL). Only correct when no other process can be working on the same schema: in embedded mode the
   * data-folder lock guarantees that. On PostgreSQL, expiry (expireInSeconds) recovers them instead.
   */
  recoverActiveOnStart?: boolean;
  /** Graceful stop: how long to wait for running handlers before failing them into a retry (default 10 s). */
  stopTimeoutMs?: number;
}

export interface SendOptions {
  /** Insert the job on this transaction: it commits, or rolls back, with the caller's rows. */
  trx?: Transaction<Database>;
  /** Not before this many seconds from now. */
  startAfterSeconds?: number;
  /** Deduplication key; only on queues declared with policy `short` or `stately` (and required there). */
  singletonKey?: string;
  retryLimit?: number;
  retryDelaySeconds?: number;
  retryBackoff?: boolean;
  expireInSeconds?: number;
  /** Higher runs first (default 0). */
  priority?: number;
}

export interface WorkOptions {
  /** Jobs fetched at once; their handlers run concurrently (default 1). */
  batchSize?: number;
  /**
   * How long an idle worker waits before polling again (default 2 s). Local sends wake it earlier. On the
   * embedded store an idle worker does not poll: it sleeps until its queue's next job is due (see WorkerLoop).
   */
  pollingIntervalSeconds?: number;
  /**
   * Batches in flight at once while the queue has a backlog (default 1, at most MAX_LANES). The worker polls with one
   * fetch at a time; when a fetch comes back full, the other lanes fetch and run further batches beside it until
   * one of theirs comes back short. An idle queue costs what a single worker costs; a backlog keeps the store
   * busy while a batch's handler waits (on the airline, on its own statements).
   */
  lanes?: number;
}

/** The most batches a worker (WorkOptions.lanes) or the refund sweep keeps in flight. */
export const MAX_LANES = 16;

export interface JobInfo {
  id: string;
  queue: string;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** Retries allowed after the first attempt. */
  retryLimit: number;
  singletonKey: string | null;
  createdOn: Date;
  /** How long this attempt may run before it fails into a retry (the queue's expireInSeconds). */
  expireInSeconds: number;
  /** Aborted when the attempt runs out of time (expireInSeconds) or the queue stops without waiting. */
  signal: AbortSignal;
}

/** Resolve to complete the job; throw (or reject) to fail this attempt: it is retried while attempts remain. */
export type JobHandler<T> = (data: T, job: JobInfo) => Promise<void>;

/**
 * One call for a whole fetched batch (so its database work can be one statement for all). Resolves to one
 * entry per job, in order: `undefined` completes that job, anything else fails its attempt (as the error).
 * Throwing fails every job of the batch. The jobs share one signal, aborted at the shortest time limit.
 */
export type BatchHandler<T> = (jobs: Array<{ data: T; job: JobInfo }>) => Promise<unknown[]>;

export const JOB_STATES = ['created', 'retry', 'active', 'completed', 'cancelled', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];
export type StateCounts = Record<JobState, number>;

export interface QueueStats {
  /** Per queue (every declared queue appears, with zeros when empty). Archived jobs are not counted. */
  queues: Record<string, StateCounts>;
  total: StateCounts;
}

export interface JobQueue {
  readonly schema: string;
  readonly kind: StoreKind;
  /** Started and not stopping: jobs can be sent (and fetched where workers are registered). /readyz reads it. */
  readonly running: boolean;
  start(): Promise<void>;
  /**
   * Stops fetching. graceful (default): waits up to `timeoutMs` (default stopTimeoutMs) for running handlers;
   * not graceful: does not wait. Handlers still running then get their signal aborted and their jobs failed
   * into a retry. Does not close the store. A stopped queue cannot be started again: create a new one.
   */
  stop(opts?: { graceful?: boolean; timeoutMs?: number }): Promise<void>;
  /** The job id, or null when a `short` queue already holds a waiting job with the same singletonKey. */
  send<T extends object>(name: string, data: T, opts?: SendOptions): Promise<string | null>;
  /** Registers a worker; it starts polling at start() (or at once when already started). */
  work<T extends object>(name: string, opts: WorkOptions, handler: JobHandler<T>): Promise<void>;
  /** work() with one handler call per fetched batch (see BatchHandler). */
  workBatch<T extends object>(name: string, opts: WorkOptions, handler: BatchHandler<T>): Promise<void>;
  stats(): Promise<QueueStats>;
  /**
   * The INSERT that send() runs (same columns, same values), as SQL to embed in the caller's own statement,
   * typically a CTE: `with refund as (insert …), job as (${queue.insertSql(…)}) select …`. The job commits
   * with the caller's rows, and one statement replaces two round trips. `onlyIf` (SQL, may name the
   * statement's other CTEs) must hold for the job to be written. Returns the job id (`returning id`); a
   * `short` queue writes nothing when its singletonKey already waits. Call wake(name) after the commit.
   */
  insertSql(name: string, data: object, opts?: InsertSqlOptions): RawBuilder<{ id: string }>;
  /**
   * insertSql for many jobs at once: `rows` is SQL yielding the columns `data` (jsonb) and `singleton_key`
   * (text; null unless the queue's policy is `short`). For bulk loads (the bench's backlog).
   */
  insertManySql(name: string, rows: RawBuilder<unknown>, opts?: Omit<InsertSqlOptions, 'singletonKey'>): RawBuilder<{ id: string }>;
  /** Tells this process's idle workers of `name` that jobs were committed (after insertSql). */
  wake(name: string): void;
  /** The attempt limits of the declared queue `name` (its own, else the queue-wide ones): for work retried outside jobs with the same rules. */
  limitsOf(name: string): RetryLimits;
}

export interface RetryLimits {
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  /** The longest wait between two attempts of a step retried in its own row (retryWaitSql); default a day. */
  retryMaxDelaySeconds?: number;
}

/**
 * The wait before the next attempt of a step retried in its own row (the lifecycles' sweeps, decisions 0035, 0045),
 * as an interval: the retry delay, doubled for each of `failures` (the failures before this one, an SQL expression)
 * with back-off; at least 1 s, at most retryMaxDelaySeconds (a day unless given).
 */
export function retryWaitSql(limits: Pick<RetryLimits, 'retryDelaySeconds' | 'retryBackoff' | 'retryMaxDelaySeconds'>, failures: RawBuilder<unknown>): RawBuilder<unknown> {
  const delay = limits.retryBackoff ? sql`${limits.retryDelaySeconds}::float8 * power(2, least(${failures}, 16))` : sql`${limits.retryDelaySeconds}::float8`;
  return sql`greatest(1, least(${delay}, ${limits.retryMaxDelaySeconds ?? 86_400}::float8)) * interval '1 second'`;
}

export interface InsertSqlOptions {
  startAfterSeconds?: number;
  singletonKey?: string;
  onlyIf?: RawBuilder<unknown>;
}

export class UnknownQueueError extends Error {
  constructor(name: string) {
    super(`job queue "${name}" is not declared: add it to createJobQueue({ queues })`);
    this.name = 'UnknownQueueError';
  }
}

const DEFAULTS = {
  schema: 'pgboss',
  expireInSeconds: 60,
  retryLimit: 5,
  retryDelaySeconds: 5,
  retryBackoff: true,
  maintenanceIntervalSeconds: 30,
  archiveCompletedAfterSeconds: 3600,
  archiveFailedAfterSeconds: 7 * 24 * 3600,
  deleteAfterDays: 7,
  stopTimeoutMs: 10_000,
  batchSize: 1,
  pollingIntervalSeconds: 2,
};
const MIN_POLLING_SECONDS = 0.05;
const WAKE_COALESCE_MS = 10;
/** Our one addition to pg-boss's schema (see ensureFetchIndex). */
export const FETCH_INDEX = 'postbook_job_fetch';
const MAX_EXPIRE_SECONDS = 24 * 3600 - 1;
/** SQLSTATE deadlock_detected, and how often start() tries to declare its queues through one. */
const DEADLOCK = '40P01';
const DECLARE_ATTEMPTS = 8; // pg-boss: "expiration cannot exceed 24 hours"

function check(ok: boolean, message: string): asserts ok {
  if (!ok) throw new TypeError(message);
}
const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
function checkRetry(where: string, o: { retryLimit?: number; retryDelaySeconds?: number; expireInSeconds?: number }) {
  check(o.retryLimit === undefined || isCount(o.retryLimit), `${where}: retryLimit must be an integer ≥ 0`);
  check(o.retryDelaySeconds === undefined || isCount(o.retryDelaySeconds), `${where}: retryDelaySeconds must be an integer ≥ 0`);
  check(
    o.expireInSeconds === undefined || (Number.isInteger(o.expireInSeconds) && o.expireInSeconds >= 1 && o.expireInSeconds <= MAX_EXPIRE_SECONDS),
    `${where}: expireInSeconds must be an integer from 1 to ${MAX_EXPIRE_SECONDS}`,
  );
}

const errorMessage = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function createJobQueue(opts: JobQueueOptions): JobQueue {
  return new PgBossJobQueue(opts);
}

interface Declared {
  policy: QueuePolicy;
  retryLimit: number;
  retryDelaySeconds: number;
  retryBackoff: boolean;
  expireInSeconds: number;
}

type LifeCycle = 'new' | 'starting' | 'started' | 'stopping' | 'stopped';

/** The started job queues of each embedded store (one process holds its data folder): see wakeLocal. */
const embeddedQueues = new WeakMap<Store['db'], Set<PgBossJobQueue>>();

class PgBossJobQueue implements JobQueue {
  readonly schema: string;
  readonly kind: StoreKind;
  private readonly exec: TrackedExecutor;
  private readonly db: Store['db'];
  private readonly boss: PgBoss;
  private readonly log: JobLogger;
  private readonly declared = new Map<string, Declared>();
  private readonly workers: WorkerLoop[] = [];
  private readonly recoverActive: boolean;
  private readonly stopTimeoutMs: number;
  /** pg-boss's constructor defaults, which its insert falls back to (see insertSql). */
  private readonly sendDefaults: { expireInSeconds: number; retryLimit: number; retryDelaySeconds: number; retryBackoff: boolean };
  private state: LifeCycle = 'new';
  private readonly maintenanceMs: number;

  get running(): boolean {
    return this.state === 'started';
  }

  constructor(opts: JobQueueOptions) {
    const { store } = opts;
    check(!opts.kind || opts.kind === store.kind, `createJobQueue: kind "${opts.kind}" but the store is ${store.kind}`);
    this.kind = store.kind;
    this.schema = opts.schema ?? DEFAULTS.schema;
    // The schema name is written into SQL (by pg-boss and by stats()): a plain identifier only.
    check(/^[A-Za-z_][A-Za-z0-9_]{0,49}$/.test(this.schema), 'createJobQueue: schema must be a plain identifier of at most 50 characters');
    checkRetry('createJobQueue', opts);
    this.log = opts.logger;
    this.recoverActive = opts.recoverActiveOnStart ?? store.kind === 'pglite';
    this.stopTimeoutMs = opts.stopTimeoutMs ?? DEFAULTS.stopTimeoutMs;
    for (const [name, q] of Object.entries(opts.queues)) {
      check(/^[A-Za-z0-9_.-]{1,100}$/.test(name), `job queue name "${name}": letters, digits, dot, dash, underscore (at most 100)`);
      checkRetry(`job queue ${name}`, q);
      check(q.policy === undefined || q.policy === 'standard' || q.policy === 'short' || q.policy === 'stately', `job queue ${name}: policy must be standard, short or stately`);
      this.declared.set(name, {
        policy: q.policy ?? 'standard',
        retryLimit: q.retryLimit ?? opts.retryLimit ?? DEFAULTS.retryLimit,
        retryDelaySeconds: q.retryDelaySeconds ?? opts.retryDelaySeconds ?? DEFAULTS.retryDelaySeconds,
        retryBackoff: q.retryBackoff ?? opts.retryBackoff ?? DEFAULTS.retryBackoff,
        expireInSeconds: q.expireInSeconds ?? opts.expireInSeconds ?? DEFAULTS.expireInSeconds,
      });
    }
    this.sendDefaults = {
      expireInSeconds: opts.expireInSeconds ?? DEFAULTS.expireInSeconds,
      retryLimit: opts.retryLimit ?? DEFAULTS.retryLimit,
      retryDelaySeconds: opts.retryDelaySeconds ?? DEFAULTS.retryDelaySeconds,
      retryBackoff: opts.retryBackoff ?? DEFAULTS.retryBackoff,
    };
    this.exec = storeExecutor(store.db);
    this.db = store.db;
    this.boss = new PgBoss({
      db: this.exec,
      schema: this.schema,
      migrate: true,
      // Cron schedules (and the clock-skew monitor that comes with them) are not used: timers are jobs with
      // startAfterSeconds. Left on, they would add a queue and two pollers.
      schedule: false,
      // No monitor-states events either: stats() answers on demand.
      supervise: true,
      maintenanceIntervalSeconds: opts.maintenanceIntervalSeconds ?? DEFAULTS.maintenanceIntervalSeconds,
      archiveCompletedAfterSeconds: opts.archiveCompletedAfterSeconds ?? DEFAULTS.archiveCompletedAfterSeconds,
      archiveFailedAfterSeconds: opts.archiveFailedAfterSeconds ?? DEFAULTS.archiveFailedAfterSeconds,
      deleteAfterDays: opts.deleteAfterDays ?? DEFAULTS.deleteAfterDays,
      expireInSeconds: this.sendDefaults.expireInSeconds,
      retryLimit: this.sendDefaults.retryLimit,
      retryDelay: this.sendDefaults.retryDelaySeconds,
      retryBackoff: this.sendDefaults.retryBackoff,
    });
    // An EventEmitter 'error' without a listener would throw; maintenance errors are logged and retried next time.
    this.boss.on('error', (err: unknown) => this.log.error({ err, jobSchema: this.schema }, 'job queue maintenance error'));
    // Maintenance moves jobs this process did not send (an expired attempt into its retry): on the embedded
    // store the idle workers, which sleep until their queue's next due job, read it again.
    this.maintenanceMs = (opts.maintenanceIntervalSeconds ?? DEFAULTS.maintenanceIntervalSeconds) * 1000;
    if (this.kind === 'pglite') this.boss.on('maintenance', () => this.wakeLocal(null, 'later'));
  }

  async start(): Promise<void> {
    check(this.state === 'new', `job queue: start() called when ${this.state}`);
    this.state = 'starting';
    try {
      await this.oneProcessAtATime(async () => {
        await this.boss.start(); // creates or migrates pg-boss's schema (one advisory-locked script)
        await this.declareQueues();
      });
      if (this.recoverActive) await this.recover();
    } catch (err) {
      this.state = 'stopped';
      await this.boss.stop({ graceful: false, close: false }).catch(() => undefined);
      throw err;
    }
    this.state = 'started';
    if (this.kind === 'pglite') {
      const queues = embeddedQueues.get(this.db) ?? new Set<PgBossJobQueue>();
      embeddedQueues.set(this.db, queues.add(this));
    }
    for (const w of this.workers) w.start();
    this.log.info({ jobSchema: this.schema, queues: [...this.declared.keys()], workers: this.workers.length }, 'job queue started');
  }

  /**
   * On PostgreSQL, runs `work` while holding a session advisory lock of this queue schema, so processes
   * starting together (the production recipe) install pg-boss and declare the queues one after the other.
   * Without it they raced: pg-boss's own install script, run by two processes at once on a fresh database,
   * failed with a unique violation on the schema name (its race check expects "already exists"), and the
   * queue declarations deadlocked. The lock is held on one connection of the pool, which `work` does not use;
   * it goes with the session if the process dies. PGlite has one connection and one process: no lock.
   */
  private async oneProcessAtATime(work: () => Promise<void>): Promise<void> {
    if (this.kind !== 'postgres') return work();
    const key = `postbook.job-queue-start.${this.schema}`;
    await this.db.connection().execute(async (conn) => {
      await conn.executeQuery(CompiledQuery.raw('select pg_advisory_lock(hashtext($1)::bigint)', [key]));
      try {
        await work();
      } finally {
        await conn.executeQuery(CompiledQuery.raw('select pg_advisory_unlock(hashtext($1)::bigint)', [key]));
      }
    });
  }

  /**
   * The fetch index and every declared queue (created, then updated to the declaration). Processes of this
   * build do this one at a time (oneProcessAtATime); a process that does not take that lock (an older build
   * during a rolling upgrade) can still deadlock with it: one creating a queue's partition while the other
   * indexes the partitioned table. Every step is idempotent, so the deadlock's victim starts the steps again
   * after a short pause.
   */
  private async declareQueues(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.ensureFetchIndex();
        for (const [name, q] of this.declared) {
          const options: PgBoss.Queue = {
            name,
            policy: q.policy,
            retryLimit: q.retryLimit,
            retryDelay: q.retryDelaySeconds,
            retryBackoff: q.retryBackoff,
            expireInSeconds: q.expireInSeconds,
          };
          await this.boss.createQueue(name, options); // no-op when it exists…
          await this.boss.updateQueue(name, options); // …so the declaration is applied as well
        }
        return;
      } catch (err) {
        if ((err as { code?: unknown }).code !== DEADLOCK || attempt >= DECLARE_ATTEMPTS) throw err;
        this.log.warn({ jobSchema: this.schema, attempt }, 'job queue: deadlock with another process creating the queues; trying again');
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 250 * attempt));
      }
    }
  }

  /**
   * pg-boss 10's fetch orders waiting jobs by (priority desc, created_on, id), but its only fetch index is on
   * (name, start_after): every fetch sorts every waiting job of the queue (21 ms per fetch with 20,000
   * waiting on PGlite, on the main thread). This index matches the order, so a fetch reads a few index
   * entries (1.5 ms). Created on the partitioned parent, it reaches every queue's partition, present and
   * future. queue.test.ts checks that pg-boss's fetch still uses it.
   */
  private async ensureFetchIndex(): Promise<void> {
    const exists = async () =>
      (await this.exec.executeSql(`select to_regclass('${this.schema}.${FETCH_INDEX}') is not null as present`)).rows[0]?.present === true;
    // Checked first: CREATE INDEX IF NOT EXISTS would still lock the job table for a moment on every start.
    if (await exists()) return;
    try {
      await this.exec.executeSql(
        `create index if not exists ${FETCH_INDEX} on ${this.schema}.job (name, priority desc, created_on, id) where state < 'active'`,
      );
    } catch (err) {
      if (!(await exists())) throw err; // another process created it at the same moment
    }
  }

  /** Embedded mode: the previous process died (or stopped hard) with these jobs running; retry them now. */
  private async recover(): Promise<void> {
    const { rows } = await this.exec.executeSql(`select name, id::text as id from ${this.schema}.job where state = 'active'`);
    for (const row of rows) {
      const name = String(row.name);
      await this.boss.fail(name, String(row.id), { message: 'interrupted: the process stopped while this job was running' });
    }
    if (rows.length > 0) this.log.warn({ jobs: rows.length, jobSchema: this.schema }, 'job queue: jobs left running by the previous process were put back for retry');
  }

  async stop({ graceful = true, timeoutMs = this.stopTimeoutMs }: { graceful?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.state === 'new') {
      this.state = 'stopped';
      return;
    }
    if (this.state !== 'started') return;
    this.state = 'stopping';
    for (const w of this.workers) w.stop();
    if (graceful && this.workers.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(this.workers.map((w) => w.done)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    // Whatever still runs is abandoned: its signal is aborted and its job failed now, so it is retried
    // (by the next process, or at once by another worker on PostgreSQL) instead of waiting for expiry.
    for (const w of this.workers) {
      const ids = w.abandonAll();
      if (ids.length > 0) this.log.warn({ queue: w.name, jobs: ids.length }, 'job queue: stopping with jobs still running; they will be retried');
      for (const id of ids) {
        await this.boss
          .fail(w.name, id, { message: 'interrupted: the job queue stopped while this job was running' })
          .catch((err: unknown) => this.log.error({ err, queue: w.name, jobId: id }, 'job queue: could not release a running job'));
      }
    }
    await Promise.all(this.workers.map((w) => w.done)); // prompt now: only database steps remain
    await this.boss.stop({ graceful: false, close: false });
    await this.exec.drain(); // a maintenance run still on its way to the database
    embeddedQueues.get(this.db)?.delete(this);
    this.state = 'stopped';
    this.log.info({ jobSchema: this.schema }, 'job queue stopped');
  }

  async send<T extends object>(name: string, data: T, opts: SendOptions = {}): Promise<string | null> {
    const q = this.declared.get(name);
    if (!q) throw new UnknownQueueError(name);
    check(this.state !== 'new' && this.state !== 'starting', 'job queue: send() before start() (the queues may not exist yet)');
    check(data !== null && typeof data === 'object', 'job data must be an object');
    checkRetry(`send to ${name}`, opts);
    const { trx, startAfterSeconds, singletonKey, priority } = opts;
    check(startAfterSeconds === undefined || (Number.isFinite(startAfterSeconds) && startAfterSeconds >= 0), 'startAfterSeconds must be ≥ 0');
    check(priority === undefined || Number.isInteger(priority), 'priority must be an integer');
    if (keyed(q.policy)) check(typeof singletonKey === 'string' && singletonKey.length > 0, `job queue ${name} (policy ${q.policy}): send needs a singletonKey`);
    else check(singletonKey === undefined, `job queue ${name}: singletonKey needs a queue declared with policy 'short' or 'stately'`);
    check(trx === undefined || trx.isTransaction, 'send: trx must be a transaction (inside db.transaction().execute)');

    const id = await this.boss.send(name, data, {
      ...(trx ? { db: transactionExecutor(trx) } : {}),
      ...(startAfterSeconds ? { startAfter: startAfterSeconds } : {}),
      ...(singletonKey !== undefined ? { singletonKey } : {}),
      ...(opts.retryLimit !== undefined ? { retryLimit: opts.retryLimit } : {}),
      ...(opts.retryDelaySeconds !== undefined ? { retryDelay: opts.retryDelaySeconds } : {}),
      ...(opts.retryBackoff !== undefined ? { retryBackoff: opts.retryBackoff } : {}),
      ...(opts.expireInSeconds !== undefined ? { expireInSeconds: opts.expireInSeconds } : {}),
      ...(priority !== undefined ? { priority } : {}),
    });
    // pg-boss joins the insert to its queue table: a missing queue row would drop the job without an error.
    if (id === null && !keyed(q.policy)) throw new Error(`job not stored: queue "${name}" is missing from ${this.schema}.queue`);
    // Wake local idle workers. On PGlite their fetch waits behind the caller's transaction (one connection),
    // so it sees the job once committed; on PostgreSQL a transactional send leaves it to the next poll. A job
    // due later wakes them on PGlite only, to read the queue's next due time again (they sleep until it).
    const kind = startAfterSeconds ? 'later' : 'due';
    if (id !== null && (this.kind === 'pglite' || (!trx && kind === 'due'))) this.wakeLocal(name, kind);
    return id;
  }

  insertSql(name: string, data: object, opts: InsertSqlOptions = {}): RawBuilder<{ id: string }> {
    check(data !== null && typeof data === 'object', 'job data must be an object');
    const { singletonKey, ...rest } = opts;
    this.checkInsert(name, singletonKey !== undefined, singletonKey === undefined || (typeof singletonKey === 'string' && singletonKey.length > 0));
    return this.insertRows(name, sql`select ${JSON.stringify(data)}::jsonb as data, ${singletonKey ?? null}::text as singleton_key`, rest);
  }

  insertManySql(name: string, rows: RawBuilder<unknown>, opts: Omit<InsertSqlOptions, 'singletonKey'> = {}): RawBuilder<{ id: string }> {
    const policy = this.declared.get(name)?.policy;
    this.checkInsert(name, policy !== undefined && keyed(policy), true);
    return this.insertRows(name, rows, opts);
  }

  private checkInsert(name: string, hasKey: boolean, keyOk: boolean): void {
    const q = this.declared.get(name);
    if (!q) throw new UnknownQueueError(name);
    check(this.state !== 'new' && this.state !== 'starting', 'job queue: insertSql() before start() (the queues may not exist yet)');
    if (keyed(q.policy)) check(hasKey && keyOk, `job queue ${name} (policy ${q.policy}): insertSql needs a singletonKey`);
    else check(!hasKey, `job queue ${name}: singletonKey needs a queue declared with policy 'short' or 'stately'`);
  }

  private insertRows(name: string, rows: RawBuilder<unknown>, { startAfterSeconds, onlyIf }: Omit<InsertSqlOptions, 'singletonKey'>): RawBuilder<{ id: string }> {
    check(startAfterSeconds === undefined || (Number.isFinite(startAfterSeconds) && startAfterSeconds >= 0), 'startAfterSeconds must be ≥ 0');
    const d = this.sendDefaults;
    // pg-boss 10.4.2's insertJob (plans.js) with what send() passes for our options: no per-job priority,
    // retry, expiry, retention or dead letter, so the queue row's settings apply, then the constructor's.
    // queue.test.ts compares a row written here with one written by send(), column by column.
    return sql<{ id: string }>`
      insert into ${sql.table(`${this.schema}.job`)} (id, name, data, priority, start_after, singleton_key, singleton_on, dead_letter,
        expire_in, keep_until, retry_limit, retry_delay, retry_backoff, policy)
      select gen_random_uuid(), q.name, r.data, 0, j.start_after, r.singleton_key, null, q.dead_letter,
        coalesce(q.expire_seconds * interval '1s', ${d.expireInSeconds}::numeric * interval '1s'),
        j.start_after + cast(coalesce((q.retention_minutes * 60)::text, '14 days') as interval),
        coalesce(q.retry_limit, ${d.retryLimit}::int),
        case when coalesce(q.retry_backoff, ${d.retryBackoff}::bool) then greatest(coalesce(q.retry_delay, ${d.retryDelaySeconds}::int), 1)
             else coalesce(q.retry_delay, ${d.retryDelaySeconds}::int) end,
        coalesce(q.retry_backoff, ${d.retryBackoff}::bool),
        q.policy
      from ${sql.table(`${this.schema}.queue`)} q,
        (select now() + ${startAfterSeconds ?? 0}::numeric * interval '1s' as start_after) j,
        (${rows}) r
      where q.name = ${name}${onlyIf ? sql` and (${onlyIf})` : sql``}
      on conflict do nothing
      returning id`;
  }

  wake(name: string): void {
    this.wakeLocal(name, 'due');
  }

  /**
   * Wakes the idle workers of queue `name` (null: of every queue) in this process. On PGlite, those of every
   * job queue on the same store and schema: the workers sleep until the due times they read, so a job that
   * another queue object of this process sent (the bench's refund workers beside the service's) must wake them too.
   */
  private wakeLocal(name: string | null, kind: 'due' | 'later'): void {
    const queues = this.kind === 'pglite' ? (embeddedQueues.get(this.db) ?? [this]) : [this];
    for (const q of queues) {
      if (q.schema !== this.schema) continue;
      for (const w of q.workers) if (name === null || w.name === name) w.wake(kind);
    }
  }

  limitsOf(name: string): RetryLimits {
    const q = this.declared.get(name);
    if (!q) throw new UnknownQueueError(name);
    return { retryLimit: q.retryLimit, retryDelaySeconds: q.retryDelaySeconds, retryBackoff: q.retryBackoff };
  }

  async work<T extends object>(name: string, opts: WorkOptions, handler: JobHandler<T>): Promise<void> {
    return this.addWorker(name, opts, { one: handler as JobHandler<unknown> });
  }

  async workBatch<T extends object>(name: string, opts: WorkOptions, handler: BatchHandler<T>): Promise<void> {
    return this.addWorker(name, opts, { batch: handler as BatchHandler<unknown> });
  }

  private async addWorker(name: string, opts: WorkOptions, handler: Handlers): Promise<void> {
    if (!this.declared.has(name)) throw new UnknownQueueError(name);
    check(this.state === 'new' || this.state === 'starting' || this.state === 'started', `job queue: work() called when ${this.state}`);
    const batchSize = opts.batchSize ?? DEFAULTS.batchSize;
    const polling = opts.pollingIntervalSeconds ?? DEFAULTS.pollingIntervalSeconds;
    check(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 1000, 'work: batchSize must be an integer from 1 to 1000');
    check(Number.isFinite(polling) && polling >= MIN_POLLING_SECONDS, `work: pollingIntervalSeconds must be ≥ ${MIN_POLLING_SECONDS}`);
    const lanes = opts.lanes ?? 1;
    check(Number.isInteger(lanes) && lanes >= 1 && lanes <= MAX_LANES, `work: lanes must be an integer from 1 to ${MAX_LANES}`);
    // On the embedded store this process makes every change to the queue's jobs (one process; maintenance
    // wakes the workers): an idle worker sleeps until the next due job, and at most a maintenance interval.
    const untilDueMaxMs = this.kind === 'pglite' ? this.maintenanceMs : null;
    const stately = this.declared.get(name)!.policy === 'stately';
    const worker = new WorkerLoop(this.boss, this.exec, this.log, name, batchSize, polling * 1000, untilDueMaxMs, handler, this.schema, lanes, stately);
    this.workers.push(worker);
    if (this.state === 'started') worker.start();
  }

  async stats(): Promise<QueueStats> {
    const zero = (): StateCounts => ({ created: 0, retry: 0, active: 0, completed: 0, cancelled: 0, failed: 0 });
    const stats: QueueStats = { queues: {}, total: zero() };
    for (const name of this.declared.keys()) stats.queues[name] = zero();
    const { rows } = await this.exec.executeSql(
      `select name, state::text as state, count(*)::int as count from ${this.schema}.job group by name, state`,
    );
    for (const row of rows) {
      const state = String(row.state) as JobState;
      if (!JOB_STATES.includes(state)) continue;
      const n = Number(row.count);
      const q = (stats.queues[String(row.name)] ??= zero());
      q[state] += n;
      stats.total[state] += n;
    }
    return stats;
  }
}

interface Running {
  id: string;
  controller: AbortController;
  abandoned: boolean;
  /** Settles the attempt at once as abandoned (the handler may go on; its outcome is ignored). */
  release(reason: Error): void;
}

type Outcome = { run: Running; job: PgBoss.JobWithMetadata<unknown>; error: unknown; ok: boolean };
type Handlers = { one: JobHandler<unknown>; batch?: undefined } | { batch: BatchHandler<unknown>; one?: undefined };

/** What ended a worker's sleep: its time, a local send of a job due now (or stop()), or of one due later. */
type Wake = 'timeout' | 'due' | 'later';

/** How long an idle worker sleeps before it fetches or asks again, and whether the end of that sleep means a due job. */
interface IdleWait {
  ms: number;
  dueThen: boolean;
}

/** PostgreSQL's unique_violation: what pg-boss's fetch of a stately queue meets while a job of the key runs. */
const UNIQUE_VIOLATION = '23505';

/** Added to a due time the worker sleeps until: pg-boss fetches jobs whose start_after is strictly past. */
const DUE_MARGIN_MS = 2;

/** One polling loop on one queue. */
class WorkerLoop {
  private stopping = false;
  /** Set by abandonAll(): running attempts were given up; jobs fetched from now on are handed back. */
  private hardStopped = false;
  /** A wake() since the loop last looked: 'due' (a job due now, or stop) outranks 'later'. */
  private woken: Wake | null = null;
  private wakeSleeper: (() => void) | null = null;
  private readonly running = new Map<string, Running>();
  private fetchErrors = 0;
  /** The extra lanes waiting for a full fetch of the first one (see WorkOptions.lanes). */
  private idleLanes: Array<() => void> = [];
  done: Promise<void> = Promise.resolve();

  /**
   * `intervalMs`: how often an idle worker probes (PostgreSQL: other processes send jobs too), and the base of
   * the back-off after a failed fetch. `untilDueMaxMs` (the embedded store, where this process sends every job
   * and pg-boss's maintenance wakes the workers): an idle worker instead reads when its queue's next job is
   * due and sleeps until then, at most this long; a local send wakes it as before.
   */
  constructor(
    private readonly boss: PgBoss,
    private readonly exec: TrackedExecutor,
    private readonly log: JobLogger,
    readonly name: string,
    private readonly batchSize: number,
    private readonly intervalMs: number,
    private readonly untilDueMaxMs: number | null,
    private readonly handler: Handlers,
    schema: string,
    private readonly lanes: number,
    /** A `stately` queue: no fetch while a job of it runs (pg-boss's fetch would fail on the policy's index). */
    private readonly stately = false,
  ) {
    const running = stately ? ` and not exists (select 1 from ${schema}.job where name = $1 and state = 'active')` : '';
    this.dueSql =
      untilDueMaxMs === null
        ? `select exists (select 1 from ${schema}.job where name = $1 and state < 'active' and start_after < now())${running} as due`
        : `select (extract(epoch from min(start_after) - now()) * 1000)::float8 as wait_ms${stately ? `, exists (select 1 from ${schema}.job where name = $1 and state = 'active') as running` : ''} from ${schema}.job where name = $1 and state < 'active'`;
  }

  /**
   * Is a job of this queue due, or how long until one is? One index probe, against pg-boss's fetch (a locking
   * update with a window). PostgreSQL: due, or poll again after the interval. The embedded store: the
   * waiting jobs' earliest start_after (pg-boss's index on (name, start_after)), nothing waiting: the longest sleep.
   */
  private readonly dueSql: string;
  private async idleWait(): Promise<IdleWait> {
    const due = { ms: 0, dueThen: true };
    try {
      const row = (await this.exec.executeSql(this.dueSql, [this.name])).rows[0];
      if (this.untilDueMaxMs === null) return row?.due === false ? { ms: this.intervalMs, dueThen: false } : due;
      const waitMs = row?.wait_ms;
      if (waitMs === null || waitMs === undefined) return { ms: this.untilDueMaxMs, dueThen: false };
      // a job of this stately queue runs (here: an attempt given up at its time limit that has not ended yet)
      if (row?.running === true) return { ms: this.intervalMs, dueThen: false };
      const ms = Math.ceil(Number(waitMs)) + DUE_MARGIN_MS;
      if (!(ms > DUE_MARGIN_MS)) return due;
      return ms <= this.untilDueMaxMs ? { ms, dueThen: true } : { ms: this.untilDueMaxMs, dueThen: false };
    } catch {
      return due; // the fetch reports the store's errors
    }
  }

  start(): void {
    const crashed = (err: unknown) => this.log.error({ err, queue: this.name }, 'job worker crashed');
    const lanes = [this.loop().catch(crashed)];
    for (let i = 1; i < this.lanes; i++) lanes.push(this.extraLane().catch(crashed));
    this.done = Promise.all(lanes).then(() => undefined);
  }

  /** A job due now was sent here (or the worker stops): fetch. `later`: a job due later, or moved: ask again when. */
  wake(kind: 'due' | 'later' = 'due'): void {
    if (this.woken !== 'due') this.woken = kind;
    this.wakeSleeper?.();
  }

  /** Sets the waiting extra lanes going (a full batch was fetched: more may be waiting), or lets them end. */
  private callLanes(): void {
    const waiting = this.idleLanes;
    this.idleLanes = [];
    for (const go of waiting) go();
  }

  stop(): void {
    this.stopping = true;
    this.wake();
    this.callLanes();
  }

  /**
   * Gives up every running attempt: aborts its signal, settles it at once (its outcome will be ignored) and
   * returns the job ids, which the caller fails into a retry. The loop then ends promptly.
   */
  abandonAll(): string[] {
    this.stopping = true;
    this.hardStopped = true;
    this.wake();
    this.callLanes();
    const ids: string[] = [];
    for (const run of this.running.values()) {
      if (run.abandoned) continue;
      const reason = new Error('the job queue stopped while this job was running');
      run.abandoned = true;
      run.controller.abort(reason);
      run.release(reason);
      ids.push(run.id);
    }
    return ids;
  }

  /** Sleeps `ms` or until woken; answers what ended it. */
  private async sleep(ms: number): Promise<Wake> {
    if (this.woken !== null || this.stopping) return this.takeWake();
    await new Promise<void>((resolve) => {
      let timer = setTimeout(resolve, ms);
      this.wakeSleeper = () => {
        clearTimeout(timer);
        this.wakeSleeper = null;
        // A burst of sends wakes the worker once: a few milliseconds later, one fetch takes a whole batch.
        if (this.stopping) resolve();
        else timer = setTimeout(resolve, WAKE_COALESCE_MS);
      };
    });
    this.wakeSleeper = null;
    return this.takeWake();
  }

  private takeWake(): Wake {
    const woken = this.stopping ? 'due' : (this.woken ?? 'timeout');
    this.woken = null;
    return woken;
  }

  private async loop(): Promise<void> {
    // After a sleep that ran out (no local send woke it), a cheap probe decides whether to fetch: an idle queue
    // polled twice a second cost pg-boss's fetch each time (1.7 ms of the embedded store's one thread). On the
    // embedded store the probe also tells how long to sleep: an idle service there probed its seven queues
    // 722 times a minute at 0.5–5 s (BENCHMARKS.md, 2026-11-29 night).
    let probe = false;
    while (!this.stopping) {
      this.woken = null;
      if (probe) {
        const wait = await this.idleWait();
        if (wait.ms > 0) {
          const woke = await this.sleep(wait.ms);
          probe = woke === 'timeout' ? !wait.dueThen : woke === 'later';
          continue;
        }
      }
      const fetched = await this.fetchAndRun();
      if (fetched === 'stopped') break;
      if (fetched === 'failed') {
        await this.sleep(Math.min(this.intervalMs * 2 ** Math.min(this.fetchErrors, 6), 30_000));
        continue;
      }
      // A full batch means more may be waiting: fetch again at once. Otherwise probe: on PostgreSQL after the
      // polling interval (a local send of a job due now ends it in a fetch), on the embedded store at once.
      if (fetched >= this.batchSize) probe = false;
      else if (this.untilDueMaxMs !== null) probe = true;
      else probe = (await this.sleep(this.intervalMs)) !== 'due';
    }
  }

  /**
   * A lane beside the first (WorkOptions.lanes): it waits until the first lane fetches a full batch, then
   * fetches and runs batches until one comes back short (or a fetch fails: the first lane reports and backs off).
   */
  private async extraLane(): Promise<void> {
    while (!this.stopping) {
      await new Promise<void>((resolve) => this.idleLanes.push(resolve));
      while (!this.stopping) {
        const fetched = await this.fetchAndRun();
        if (fetched === 'stopped' || fetched === 'failed' || fetched < this.batchSize) break;
      }
    }
  }

  /** One fetch and, when it found jobs, their run and completion: the number fetched, or why there is none. */
  private async fetchAndRun(): Promise<number | 'failed' | 'stopped'> {
    const rec = recordingExecutor(this.exec);
    // pg-boss's fetch swallows SQL errors (it expects only unique violations); the recording executor sees them.
    const jobs = await this.boss.fetch<unknown>(this.name, { batchSize: this.batchSize, includeMetadata: true, db: rec });
    // A stately queue's job due while another of its key runs: the policy's unique index refused it, by design.
    if (this.stately && (rec.error as { code?: unknown } | undefined)?.code === UNIQUE_VIOLATION) return 0;
    if (rec.error !== undefined) {
      this.fetchErrors++;
      if (this.fetchErrors === 1 || this.fetchErrors % 60 === 0) {
        this.log.error({ err: rec.error, queue: this.name, failures: this.fetchErrors }, 'job worker: fetch failed');
      }
      return 'failed';
    }
    this.fetchErrors = 0;
    if (this.hardStopped) {
      // Fetched while the queue stopped without waiting: hand them back for a retry rather than start them.
      for (const job of jobs) await this.failJob(job.id, 'the job queue stopped before this job could start');
      return 'stopped';
    }
    // A full batch: the extra lanes fetch the next ones while this one runs.
    if (jobs.length === this.batchSize && !this.stopping) this.callLanes();
    if (jobs.length > 0) await this.runBatch(jobs);
    return jobs.length;
  }

  private async failJob(id: string, message: string): Promise<void> {
    await this.boss
      .fail(this.name, id, { message })
      .catch((err: unknown) => this.log.error({ err, queue: this.name, jobId: id }, 'job worker: could not mark a job failed (it will expire)'));
  }

  private async runBatch(jobs: PgBoss.JobWithMetadata<unknown>[]): Promise<void> {
    const outcomes = this.handler.batch ? await this.runAll(jobs, this.handler.batch) : await Promise.all(jobs.map((job) => this.runOne(job)));
    // One statement completes the batch. A job that finished early stays `active` until its siblings end:
    // should the process die meanwhile, it runs again (handlers must be idempotent in any case).
    const done = outcomes.filter((o) => o.ok && !o.run.abandoned).map((o) => o.job.id);
    if (done.length > 0) {
      await this.boss
        .complete(this.name, done)
        .catch((err: unknown) => this.log.error({ err, queue: this.name, jobs: done.length }, 'job worker: could not mark jobs completed (they will run again)'));
    }
    for (const o of outcomes) {
      if (o.ok || o.run.abandoned) continue;
      const fields = { queue: this.name, jobId: o.job.id, attempt: o.job.retryCount + 1, retryLimit: o.job.retryLimit, err: o.error };
      if (o.job.retryCount >= o.job.retryLimit) this.log.error(fields, 'job failed: no retries left');
      else this.log.warn(fields, 'job attempt failed: will retry');
      await this.failJob(o.job.id, errorMessage(o.error));
    }
  }

  /** The batch handler's attempt: like runOne, for all the jobs at once (one signal, one time limit). */
  private async runAll(jobs: PgBoss.JobWithMetadata<unknown>[], handler: BatchHandler<unknown>): Promise<Outcome[]> {
    let release!: (reason: Error) => void;
    const released = new Promise<never>((_, reject) => (release = reject));
    const controller = new AbortController();
    const runs = jobs.map((job) => {
      const run: Running = { id: job.id, controller, abandoned: false, release };
      this.running.set(job.id, run);
      return run;
    });
    const limitMs = Math.min(...jobs.map((job) => Math.max(1, Number(job.expireInSeconds) || 60) * 1000));
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new Error(`job ran longer than its ${limitMs / 1000} s limit (expireInSeconds)`);
        controller.abort(err);
        reject(err);
      }, limitMs);
    });
    const batch = jobs.map((job) => ({ data: job.data, job: this.infoOf(job, controller.signal) }));
    try {
      const results = await Promise.race([Promise.resolve().then(() => handler(batch)), timedOut, released]);
      // One result per job, or the batch failed: a missing entry must not complete a job silently.
      if (!Array.isArray(results) || results.length !== jobs.length) {
        const error = new Error(`batch handler of "${this.name}" answered ${Array.isArray(results) ? results.length : typeof results} results for ${jobs.length} jobs`);
        return jobs.map((job, i) => ({ run: runs[i]!, job, ok: false, error }));
      }
      return jobs.map((job, i) => {
        const error = results[i];
        return { run: runs[i]!, job, ok: error === undefined, error };
      });
    } catch (error) {
      return jobs.map((job, i) => ({ run: runs[i]!, job, ok: false, error }));
    } finally {
      clearTimeout(timer);
      for (const job of jobs) this.running.delete(job.id);
    }
  }

  /** What a handler learns of its job. */
  private infoOf(job: PgBoss.JobWithMetadata<unknown>, signal: AbortSignal): JobInfo {
    return {
      id: job.id,
      queue: this.name,
      attempt: job.retryCount + 1,
      retryLimit: job.retryLimit,
      singletonKey: job.singletonKey,
      createdOn: job.createdOn,
      // pg-boss hands it over as a numeric string ('60.000000')
      expireInSeconds: Math.max(1, Number(job.expireInSeconds) || 60),
      signal,
    };
  }

  private async runOne(job: PgBoss.JobWithMetadata<unknown>): Promise<Outcome> {
    let release!: (reason: Error) => void;
    const released = new Promise<never>((_, reject) => (release = reject));
    const run: Running = { id: job.id, controller: new AbortController(), abandoned: false, release };
    this.running.set(job.id, run);
    // pg-boss hands expireInSeconds over as a numeric string ('60.000000').
    const limitMs = Math.max(1, Number(job.expireInSeconds) || 60) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new Error(`job ran longer than its ${limitMs / 1000} s limit (expireInSeconds)`);
        run.controller.abort(err);
        reject(err);
      }, limitMs);
    });
    const info = this.infoOf(job, run.controller.signal);
    try {
      await Promise.race([Promise.resolve().then(() => this.handler.one!(job.data, info)), timedOut, released]);
      return { run, job, ok: true, error: undefined };
    } catch (error) {
      return { run, job, ok: false, error };
    } finally {
      clearTimeout(timer);
      this.running.delete(job.id);
    }
  }
}
