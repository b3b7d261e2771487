// The durable workers of one process: the refund lifecycle and the void lifecycle on one job queue (decision
// 0011; docs/voids.md). The server runs them unless WORKERS=false; `postbook worker` runs only them.
import { AIRLINE_TIMEOUT_MS } from './airline/deadline.js';
import { createRefundWorkers, type RefundWorkers } from './refunds/workers.js';
import { VOID_QUEUES, VoidLifecycle } from './voids/lifecycle.js';

export interface Workers extends RefundWorkers {
  voids: VoidLifecycle;
}

export function createWorkers(args: Parameters<typeof createRefundWorkers>[0]): Workers {
  const refunds = createRefundWorkers({ ...args, queues: { ...args.queues, ...VOID_QUEUES } });
  const voids = new VoidLifecycle({
    db: args.store.db,
    airlines: args.airlines,
    clock: args.clock,
    queue: refunds.queue,
    pollSeconds: args.pollSeconds,
    airlineTimeoutMs: AIRLINE_TIMEOUT_MS,
    log: args.logger,
  });
  return {
    ...refunds,
    voids,
    async start(work) {
      // Registered before the queue starts: they poll from its start on.
      if (work) await voids.startWorkers();
      await refunds.start(work);
    },
  };
}
