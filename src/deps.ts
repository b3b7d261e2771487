// What a route sees: the dependencies app.ts builds once and the route table hands to the commands.
// Declared here, below src/http/ and src/app.ts, so that routes depend on the shape, not on the assembly.
import type { AirlineDirectory } from './airline/connector.js';
import type { World } from './airline/sandbox/world.js';
import type { ClientAuthenticator } from './clients/auth.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Idempotency } from './http/idempotency.js';
import type { Metrics } from './http/metrics.js';
import type { AnswerSerializers } from './http/lane.js';
import type { Store } from './store/store.js';
import type { RefundDeps } from './refunds/deps.js';
import type { VoidDeps } from './voids/deps.js';
import type { RatePools } from './ratelimit/pools.js';
import type { LookToBook } from './booking/look-to-book.js';
import type { SeatMapCache } from './booking/seat-cache.js';
import type { ChainSessions } from './booking/sessions.js';
import type { WebhookRegistry } from './webhooks/register.js';
import type { JobQueue } from './jobs/queue.js';
import type { SharedSandboxClock } from './sandbox-clock.js';

export interface AppDeps {
  config: Config;
  store: Store;
  db: Store['db'];
  airlines: AirlineDirectory;
  clock: Clock;
  world: World | null;
  authenticator: ClientAuthenticator;
  idempotency: Idempotency;
  metrics: Metrics;
  refunds: RefundDeps;
  /** The void path (docs/voids.md). */
  voids: VoidDeps;
  /** Rate pools of spec 8 (in memory, or in Redis with REDIS_URL). */
  pools: RatePools;
  /** Look-to-book (223): seat requests per paid order. */
  lookToBook: LookToBook;
  /** Seat maps as bytes, kept per seat inventory version (decision 0014). */
  seatMaps: SeatMapCache;
  /** The booking chain's sessions, kept in memory once created or read (the store holds them all). */
  sessions: ChainSessions;
  /** Webhook URL registration (updateWebhookURL.do; docs/webhooks.md). */
  webhooks: WebhookRegistry;
  /** The job queue's state, for /readyz (the queue itself is reached through refunds.scheduler). */
  jobQueue: Pick<JobQueue, 'running' | 'stats'>;
  /** The sandbox clock shared by every process through the store (sandbox mode only; else null). */
  sandboxClock: SharedSandboxClock | null;
  /** Routes' own 200 serializers, kept once each has answered, for the answer lane (src/http/lane.ts). */
  answerSerializers: AnswerSerializers;
}
