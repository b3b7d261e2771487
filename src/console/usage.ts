// Live limits of the API clients for the clients page (admin): each rate pool's accepted requests in the current
// window against its limit, and the look-to-book counts of the last 24 h with the ratio the check computes.
// Read from the service's own pools and counter (in memory, or in Redis with REDIS_URL) without recording a
// request: opening the page consumes nothing. A store that fails to answer makes that client's figures null.
import type { Kysely } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
// Shapes of src/ratelimit's PoolUsage and LookToBookUsage, repeated so the console app's type check (which
// reads this file for ClientUsage) does not pull in the service's Fastify augmentations.
export interface PoolUsage {
  pool: 'ancillary' | 'verify' | 'pnr' | 'search';
  used: number;
  limit: number;
  windowSeconds: number;
}
export interface LookToBookUsage {
  seatRequests: number;
  paidOrders: number;
  ratio: number;
  setting: { maxRatio: number; minRequests: number } | null;
  exceeded: boolean;
}
type UsageReader<T> = { usage(clientId: string, settings?: Record<string, unknown>): Promise<T> };
import type { Database } from '../store/schema.js';

export interface UsageSources {
  pools: UsageReader<PoolUsage[]>;
  /** The look-to-book counter; without `usage` (a replaced counter) the ratio is not shown. */
  lookToBook: object;
}

export interface ClientUsage {
  clientId: string;
  pools: PoolUsage[] | null;
  lookToBook: LookToBookUsage | null;
}

export async function clientsUsage(db: Kysely<Database>, sources: UsageSources, log: Pick<FastifyBaseLogger, 'warn'>): Promise<ClientUsage[]> {
  const counter = 'usage' in sources.lookToBook && typeof sources.lookToBook.usage === 'function' ? (sources.lookToBook as UsageReader<LookToBookUsage>) : null;
  const rows = await db.selectFrom('clients').select(['client_id', 'settings']).orderBy('client_id').execute();
  const failed = (what: string) => (err: unknown) => {
    log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, `console: reading the ${what} failed`);
    return null;
  };
  return Promise.all(
    rows.map(async (r) => {
      const settings = r.settings as Record<string, unknown>;
      const [pools, lookToBook] = await Promise.all([
        sources.pools.usage(r.client_id, settings).catch(failed('rate pools')),
        counter ? counter.usage(r.client_id, settings).catch(failed('look-to-book counts')) : Promise.resolve(null),
      ]);
      return { clientId: r.client_id, pools, lookToBook };
    }),
  );
}
