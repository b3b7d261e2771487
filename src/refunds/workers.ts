// Wires the refund lifecycle to the job queue: the queue declarations and the start/stop of both.
import type { FastifyBaseLogger } from 'fastify';
import type { AirlineDirectory } from '../airline/connector.js';
import { AIRLINE_TIMEOUT_MS, STOP_GRACE_MS } from '../airline/deadline.js';
import type { Clock } from '../clock.js';
import { createJobQueue, type JobQueue, type JobQueueOptions, type QueueDeclaration } from '../jobs/queue.js';
import type { Store } from '../store/store.js';
import { JOB_POLL, JOB_POLL_SWEEP, JOB_SUBMIT, RefundLifecycle } from './lifecycle.js';
import type { Rates } from './engine/index.js';

/**
 * The refund queues: one waiting sweep of the due airline calls; a retried or duplicated send is dropped.
 * JOB_SUBMIT and JOB_POLL hold the per-refund jobs of builds before decisions 0035 and 0034 (worked, no longer
 * sent); their limits are those of a refund's submissions and looks (RefundLifecycle's stepFailed).
 */
// The sweep's queue is stately: one sweep waiting and one running at a time, in every process together (two
// sweeps at once would send the same due submissions twice).
export const REFUND_QUEUES = { [JOB_SUBMIT]: { policy: 'short' }, [JOB_POLL]: { policy: 'short' }, [JOB_POLL_SWEEP]: { policy: 'stately' } } as const;
/** Airline calls time out after 15 s, well inside one attempt. */
export const REFUND_JOB_EXPIRE_SECONDS = 60;

/** REFUND_RETRY_LIMIT's default, and the longest wait between two tries of a refund's airline call. */
export const DEFAULT_REFUND_RETRY_LIMIT = 24;
export const REFUND_RETRY_MAX_DELAY_SECONDS = 900;

export interface RefundWorkers {
  queue: JobQueue;
  lifecycle: RefundLifecycle;
  /** Starts the queue (creates its tables and queues); with `work` also the refund workers. */
  start(work: boolean): Promise<void>;
  stop(): Promise<void>;
}

export function createRefundWorkers(args: {
  store: Store;
  airlines: AirlineDirectory;
  clock: Clock;
  logger: FastifyBaseLogger;
  pollSeconds: number;
  /** pg-boss schema; tests on PostgreSQL use one of their own. */
  schema?: string;
  /** Further queues on the same job queue (the void path's, src/workers.ts). */
  queues?: Record<string, QueueDeclaration>;
  /**
   * The queue-wide attempt limits and time limit (JOB_* configuration); expireInSeconds defaults to
   * REFUND_JOB_EXPIRE_SECONDS. refundRetryLimit (REFUND_RETRY_LIMIT): the retries of a refund's airline calls;
   * refundSweepLanes (REFUND_SWEEP_LANES): the sweep's batches in flight, the store's shape's when absent (SWEEP_SHAPES).
   */
  limits?: Pick<JobQueueOptions, 'retryLimit' | 'retryDelaySeconds' | 'retryBackoff' | 'expireInSeconds'> & { refundRetryLimit?: number; refundSweepLanes?: number };
  /** The world's conversion rates (the net against the service fee at the airline's answer). */
  rates?: Rates;
}): RefundWorkers {
  const { refundRetryLimit = DEFAULT_REFUND_RETRY_LIMIT, refundSweepLanes, ...queueLimits } = args.limits ?? {};
  const queue = createJobQueue({
    store: args.store,
    logger: args.logger,
    ...(args.schema ? { schema: args.schema } : {}),
    queues: { ...REFUND_QUEUES, ...args.queues },
    expireInSeconds: REFUND_JOB_EXPIRE_SECONDS,
    ...queueLimits,
  });
  // A refund's airline calls ride out hours of airline trouble, not the queue's minutes: the waits (the queue's delay
  // and back-off) capped at 15 minutes, REFUND_RETRY_LIMIT of them (a review: five retries gave up ~2.5 minutes into an
  // outage, leaving the refunds for an operator one by one)
  const callRetry = (queueName: string) => {
    const limits = queue.limitsOf(queueName);
    // a JOB_RETRY_DELAY_SECONDS above the cap is the wait itself (it was cut to 15 minutes silently: a review)
    return Object.assign(limits, { retryLimit: refundRetryLimit, retryMaxDelaySeconds: Math.max(REFUND_RETRY_MAX_DELAY_SECONDS, limits.retryDelaySeconds) });
  };
  const lifecycle = new RefundLifecycle({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue,
    pollSeconds: args.pollSeconds,
    pollRetry: callRetry(JOB_POLL),
    submitRetry: callRetry(JOB_SUBMIT),
    airlineTimeoutMs: AIRLINE_TIMEOUT_MS,
    log: args.logger,
    ...(args.rates ? { rates: args.rates } : {}),
    storeKind: args.store.kind,
    ...(refundSweepLanes !== undefined ? { sweepLanes: refundSweepLanes } : {}),
  });
  return {
    queue,
    lifecycle,
    async start(work) {
      await queue.start();
      if (work) await lifecycle.startWorkers();
    },
    stop: () => {
      lifecycle.stopWorkers();
      // A running sweep's airline calls end within their time-out, and their outcomes are written after: waited
      // for, so a deploy does not routinely resend them (10 s cut 15 s calls off: a review).
      return queue.stop({ graceful: true, timeoutMs: STOP_GRACE_MS });
    },
  };
}
