// The webhooks of a process: the registry the routes, the CLI and the world seeding use, and the
// deliverer, which runs where the refund workers run (the server, `postbook worker`).
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../store/schema.js';
import { WebhookDeliverer, type DelivererDeps } from './deliverer.js';
import type { WebhookRegistry } from './register.js';
import { keyringOf } from './secret.js';

export interface Webhooks {
  registry: WebhookRegistry;
  /** null when webhooks are off (outside sandbox mode without WEBHOOK_SECRET_KEY). */
  deliverer: WebhookDeliverer | null;
}

export function createWebhooks(args: {
  config: { sandbox: boolean; webhookSecretKey: string | null; headerPrefix: string };
  db: Kysely<Database>;
  clock: Clock;
  log: DelivererDeps['log'];
  pollMs?: number;
}): Webhooks {
  const keyring = keyringOf(args.config);
  const registry: WebhookRegistry = { db: args.db, keyring, sandbox: args.config.sandbox, now: () => args.clock.now() };
  const deliverer = keyring
    ? new WebhookDeliverer({
        db: args.db,
        clock: args.clock,
        keyring,
        headerPrefix: args.config.headerPrefix,
        sandbox: args.config.sandbox,
        log: args.log,
        ...(args.pollMs !== undefined ? { pollMs: args.pollMs } : {}),
      })
    : null;
  return { registry, deliverer };
}
