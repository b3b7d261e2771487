// The durable workers of one process: the refund lifecycle, the void lifecycle, the expiry of unpaid orders
// and the cleanup of expired idempotency keys on one job queue (decisions 0011, 0023, 0028; docs/voids.md).
// The server runs them unless WORKERS=false; `postbook worker` runs only them. The queue's attempt limits and
// time limit come from the configuration (JOB_*), the same for every queue that does not set its own.
import { AIRLINE_TIMEOUT_MS } from './airline/deadline.js';
import { createRefundWorkers, type RefundWorkers } from './refunds/workers.js';
import { JOB_VOID_SUBMIT, VOID_QUEUES, VoidLifecycle } from './voids/lifecycle.js';
import { ORDER_EXPIRY_QUEUES, OrderExpiry } from './booking/expiry.js';
import { IDEMPOTENCY_EXPIRY_QUEUES, IdempotencyExpiry } from './jobs/idempotency-expiry.js';
import type { JobLimits } from './config.js';
import type { RetentionSweep } from './jobs/retention-sweep.js';
import { WEBHOOK_RETENTION_QUEUES, webhookRetention } from './webhooks/retention.js';
import { SESSION_RETENTION_QUEUES, sessionRetention } from './booking/session-retention.js';

export interface Workers extends RefundWorkers {
  voids: VoidLifecycle;
  /** Unpaid orders past their payment deadline → -3, the airline hold released. */
  orderExpiry: OrderExpiry;
  /** Deletes idempotency keys past IDEMPOTENCY_TTL_HOURS (decision 0028). */
  idempotencyExpiry: IdempotencyExpiry;
  /** Deletes settled webhook events past WEBHOOK_RETENTION_DAYS (decision 0022). */
  webhookRetention: RetentionSweep;
  /** Deletes chain sessions a day past their expiry (src/booking/session-retention.ts). */
  sessionRetention: RetentionSweep;
}

export type WorkersArgs = Omit<Parameters<typeof createRefundWorkers>[0], 'limits'> & {
  /** JOB_RETRY_LIMIT, JOB_RETRY_DELAY_SECONDS, JOB_RETRY_BACKOFF, JOB_EXPIRE_SECONDS (config.jobs). */
  limits: JobLimits;
  /** IDEMPOTENCY_TTL_HOURS (config.idempotencyTtlHours). */
  idempotencyTtlHours: number;
  /** WEBHOOK_RETENTION_DAYS (config.webhookRetentionDays). */
  webhookRetentionDays: number;
};

/** The longest pause between two sweeps of expired idempotency keys (a key lives hours: minutes late is fine). */
const IDEMPOTENCY_SWEEP_SECONDS = 300;
/** The longest pause between two sweeps of webhook events past their retention (kept days: an hour late is fine). */
const WEBHOOK_RETENTION_SWEEP_SECONDS = 3600;

export function createWorkers(args: WorkersArgs): Workers {
  const refunds = createRefundWorkers({ ...args, limits: args.limits, queues: { ...args.queues, ...VOID_QUEUES, ...ORDER_EXPIRY_QUEUES, ...IDEMPOTENCY_EXPIRY_QUEUES, ...WEBHOOK_RETENTION_QUEUES, ...SESSION_RETENTION_QUEUES } });
  const voids = new VoidLifecycle({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue: refunds.queue,
    wakeSweep: () => refunds.lifecycle.scheduler.submitted(),
    pollSeconds: args.pollSeconds,
    submitRetry: refunds.queue.limitsOf(JOB_VOID_SUBMIT),
    airlineTimeoutMs: AIRLINE_TIMEOUT_MS,
    log: args.logger,
    ...(args.rates ? { rates: args.rates } : {}),
  });
  // The voids' due airline calls ride on the refunds' sweep job (decision 0045).
  refunds.lifecycle.addDueSweep((budgetMs, goOn) => voids.sweep(budgetMs, goOn));
  // Sweeps as often as refunds are polled, at least every 30 s (the sandbox: every 2 s, following its clock).
  const orderExpiry = new OrderExpiry({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue: refunds.queue,
    sweepSeconds: Math.min(args.pollSeconds, 30),
    log: args.logger,
  });
  // Every 5 minutes (the sandbox: every minute, following its clock); replay already ignores an expired key.
  const idempotencyExpiry = new IdempotencyExpiry({
    db: args.store.db,
    clock: args.clock,
    queue: refunds.queue,
    ttlMs: args.idempotencyTtlHours * 3_600_000,
    sweepSeconds: Math.min(args.pollSeconds * 30, IDEMPOTENCY_SWEEP_SECONDS),
    log: args.logger,
  });
  // Hourly (the sandbox: every 2 min, following its clock): an event is kept days.
  const retention = webhookRetention({
    db: args.store.db,
    clock: args.clock,
    queue: refunds.queue,
    days: args.webhookRetentionDays,
    sweepSeconds: Math.min(args.pollSeconds * 60, WEBHOOK_RETENTION_SWEEP_SECONDS),
    log: args.logger,
  });
  // Hourly as the webhook events' (the sandbox: every 2 min): a session is kept a day past its expiry.
  const sessions = sessionRetention({
    db: args.store.db,
    clock: args.clock,
    queue: refunds.queue,
    sweepSeconds: Math.min(args.pollSeconds * 60, WEBHOOK_RETENTION_SWEEP_SECONDS),
    log: args.logger,
  });
  return {
    ...refunds,
    voids,
    orderExpiry,
    idempotencyExpiry,
    webhookRetention: retention,
    sessionRetention: sessions,
    stop() {
      // the recurring jobs' backstops first: nothing sent to a queue that is stopping
      orderExpiry.stopWorkers();
      idempotencyExpiry.stopWorkers();
      retention.stopWorkers();
      sessions.stopWorkers();
      return refunds.stop();
    },
    async start(work) {
      // Registered before the queue starts: they poll from its start on.
      if (work) await voids.startWorkers();
      await refunds.start(work);
      // The sweep sends its first job: after the queue has started.
      if (work) await orderExpiry.startWorkers();
      if (work) await idempotencyExpiry.startWorkers();
      if (work) await retention.startWorkers();
      if (work) await sessions.startWorkers();
    },
  };
}
