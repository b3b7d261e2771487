// The sandbox panel's "reload the world" (admin, sandbox mode): reads the configured world file (WORLD) again at
// the service clock's time and does what the server does at start and `postbook world load` does: writes its
// clients (name, secret, settings), its booked orders and its clients' webhooks into the store. This process's
// sandbox airline then serves the file's airlines, flights and bookings (the world object is replaced in place,
// so the connector and the seat map viewer see it), and so do the other processes on the store within a second
// (the world is recorded with a new version: src/airline/sandbox/world-share.ts). A file that does not load changes nothing: it is read and
// checked whole (schema, references, webhook URLs) before anything is written, and the answer says why.
import type { Kysely, Transaction } from 'kysely';
import { loadWorldFile, WorldError, type World } from '../airline/sandbox/world.js';
import { recordWorldReload } from '../airline/sandbox/world-share.js';
import { seedBookedOrders, SeedConflict } from '../orders/seed.js';
import { seedClients } from '../clients/clients.js';
import type { Database } from '../store/schema.js';
import { seedWebhooks, WebhookRegistrationError, type WebhookRegistry } from '../webhooks/register.js';
import { webhookUrlProblem } from '../webhooks/url.js';
import { ActionRefused } from './actions.js';
import { audit } from './audit.js';
import type { Operator } from './operators.js';

export interface WorldReloadDeps {
  db: Kysely<Database>;
  /** The file the server started with (WORLD). */
  worldPath: string;
  now: () => Date;
  /** The world this process serves; replaced in place by a successful reload. */
  world: World;
  webhooks: WebhookRegistry | null;
  /** Drops a client from this process's credential cache (its secret, settings or status may change now). */
  invalidateClient?: (clientId: string) => void;
}

export interface WorldSummary {
  name: string;
  file: string;
  airlines: number;
  flights: number;
  bookings: number;
  clients: number;
}

export function worldSummary(w: World): WorldSummary {
  return { name: w.name, file: w.file, airlines: w.airlines.size, flights: w.flights.size, bookings: w.bookings.size, clients: w.clients.length };
}

export async function reloadWorld(deps: WorldReloadDeps, operator: Operator): Promise<WorldSummary & { ordersCreated: number; version: number }> {
  const now = deps.now();
  let fresh: World;
  try {
    fresh = loadWorldFile(deps.worldPath, now);
  } catch (err) {
    if (err instanceof WorldError) throw new ActionRefused(409, `the world was not reloaded, nothing changed: ${err.message}`);
    throw err;
  }
  const withWebhook = fresh.clients.filter((c) => c.webhook);
  if (withWebhook.length > 0 && !deps.webhooks?.keyring) throw new ActionRefused(409, 'the world was not reloaded, nothing changed: the world gives clients webhooks, but webhooks are off (WEBHOOK_SECRET_KEY)');
  for (const c of withWebhook) {
    const problem = webhookUrlProblem(c.webhook!.url, { sandbox: true });
    if (problem) throw new ActionRefused(409, `the world was not reloaded, nothing changed: world client ${c.id}: webhook: ${problem}`);
  }
  const before = worldSummary(deps.world);
  const after = worldSummary(fresh);
  // One transaction: the clients, the booked orders, the webhooks, the world's new version and the audit row
  // commit together or not at all (they were five, and a crash between them left the clients changed and the
  // world not). A booking that cannot become an order (SeedConflict) refuses the reload whole.
  let done: { reEnabled: string[]; ordersCreated: number; version: number };
  try {
    done = await deps.db.transaction().execute(async (trx) => {
      const { reEnabled, ordersCreated } = await seedWorld(trx, fresh, now, deps.webhooks);
      // Every other process on the store follows (src/airline/sandbox/world-share.ts).
      const version = await recordWorldReload(trx, fresh, now);
      // World clients disabled in the console are enabled again by the file: named here (the clients' own audit
      // rows say who disabled them).
      await audit(trx, operator, 'sandbox.world', 'sandbox:world', before, { ...after, ordersCreated, version, ...(reEnabled.length > 0 ? { reEnabledClients: reEnabled } : {}) });
      return { reEnabled, ordersCreated, version };
    });
  } catch (err) {
    if (err instanceof SeedConflict) throw new ActionRefused(409, `the world was not reloaded, nothing changed: ${err.message}`);
    if (err instanceof WebhookRegistrationError) throw new ActionRefused(409, `the world was not reloaded, nothing changed: ${err.message}`);
    throw err;
  }
  // After the commit: this process at once (its credentials within its cache's 30 s elsewhere, as for any client
  // change), its world in place.
  for (const c of fresh.clients) deps.invalidateClient?.(c.id);
  Object.assign(deps.world, fresh);
  return { ...after, ordersCreated: done.ordersCreated, version: done.version };
}

/**
 * A world's store side in one transaction, for this reload and `postbook world load` (the server at start writes it
 * piece by piece instead, skipping a booking the store cannot take: src/service.ts): `world`'s clients, its booked
 * orders (SeedConflict for one the store cannot take) and, with `webhooks`, its clients' webhooks
 * (WebhookRegistrationError for a URL refused), inside `trx`. Answers the clients enabled again and the orders made.
 */
export async function seedWorld(trx: Transaction<Database>, world: World, now: Date, webhooks: Omit<WebhookRegistry, 'db'> | null): Promise<{ reEnabled: string[]; ordersCreated: number }> {
  const { reEnabled } = await seedClients(trx, world.clients.map((c) => ({ id: c.id, name: c.name, secret: c.secret, settings: c.settings ?? {} })), now);
  const ordersCreated = await seedBookedOrders(trx, [...world.bookings.values()].map((b) => b.record), now);
  const withWebhook = world.clients.filter((c) => c.webhook);
  if (webhooks && withWebhook.length > 0) await seedWebhooks(Object.assign({}, webhooks, { db: trx }), withWebhook);
  return { reEnabled, ordersCreated };
}
