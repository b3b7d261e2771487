// Rate pools (spec 8, public-notes "Rate limits"): per client, rolling 60 s. seatAvailability.do and
// getLuggage.do share the ancillary pool; verify.do and getOffers.do share the verify pool.
// INTERFACE ONLY for now: the limiter behind it is being built (issue 4). Routes of a pool are registered
// inside one Fastify plugin scope, and the scope calls `pool.attach(scope)` first.
import type { FastifyInstance } from 'fastify';

export type PoolName = 'ancillary' | 'verify';

export interface RatePool {
  readonly name: PoolName;
  /** Adds the limiter to this scope (register only the pool's routes in it). */
  attach(scope: FastifyInstance): void;
}

export interface RatePools {
  ancillary: RatePool;
  verify: RatePool;
  close(): Promise<void>;
}

/** Placeholder until the limiter lands: attaches nothing. */
export function unlimitedPools(): RatePools {
  const pool = (name: PoolName): RatePool => ({ name, attach: () => undefined });
  return { ancillary: pool('ancillary'), verify: pool('verify'), close: async () => undefined };
}
