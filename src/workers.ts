// The durable workers of one process: the refund lifecycle, the void lifecycle and the expiry of unpaid
// orders on one job queue (decisions 0011, 0023; docs/voids.md). The server runs them unless WORKERS=false;
// `postbook worker` runs only them.
import { AIRLINE_TIMEOUT_MS } from './airline/deadline.js';
import { createRefundWorkers, type RefundWorkers } from './refunds/workers.js';
import { VOID_QUEUES, VoidLifecycle } from './voids/lifecycle.js';
import { ORDER_EXPIRY_QUEUES, OrderExpiry } from './booking/expiry.js';

export interface Workers extends RefundWorkers {
  voids: VoidLifecycle;
  /** Unpaid orders past their payment deadline → -3, the airline hold released. */
  orderExpiry: OrderExpiry;
}

export function createWorkers(args: Parameters<typeof createRefundWorkers>[0]): Workers {
  const refunds = createRefundWorkers({ ...args, queues: { ...args.queues, ...VOID_QUEUES, ...ORDER_EXPIRY_QUEUES } });
  const voids = new VoidLifecycle({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue: refunds.queue,
    pollSeconds: args.pollSeconds,
    airlineTimeoutMs: AIRLINE_TIMEOUT_MS,
    log: args.logger,
  });
  // Sweeps as often as refunds are polled, at least every 30 s (the sandbox: every 2 s, following its clock).
  const orderExpiry = new OrderExpiry({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue: refunds.queue,
    sweepSeconds: Math.min(args.pollSeconds, 30),
    log: args.logger,
  });
  return {
    ...refunds,
    voids,
    orderExpiry,
    async start(work) {
      // Registered before the queue starts: they poll from its start on.
      if (work) await voids.startWorkers();
      await refunds.start(work);
      // The sweep sends its first job: after the queue has started.
      if (work) await orderExpiry.startWorkers();
    },
  };
}
