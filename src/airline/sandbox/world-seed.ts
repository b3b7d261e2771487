// A sandbox world's store side in one transaction: its clients, its booked orders and its clients' webhooks — the
// console's "reload the world" and `postbook world load` (the server at start writes them one by one instead, and
// skips a booking the store cannot take: src/service.ts).
import type { Transaction } from 'kysely';
import { seedClients } from '../../clients/clients.js';
import { seedBookedOrders } from '../../orders/seed.js';
import type { Database } from '../../store/schema.js';
import { seedWebhooks, type WebhookRegistry } from '../../webhooks/register.js';
import type { World } from './world.js';

/**
 * Writes `world`'s clients, booked orders (SeedConflict for one the store cannot take) and, with `webhooks`, its
 * clients' webhooks (WebhookRegistrationError for a URL refused) inside `trx`; answers the clients enabled again and
 * the orders made.
 */
export async function seedWorld(trx: Transaction<Database>, world: World, now: Date, webhooks: Omit<WebhookRegistry, 'db'> | null): Promise<{ reEnabled: string[]; ordersCreated: number }> {
  const { reEnabled } = await seedClients(trx, world.clients.map((c) => ({ id: c.id, name: c.name, secret: c.secret, settings: c.settings ?? {} })), now);
  const ordersCreated = await seedBookedOrders(trx, [...world.bookings.values()].map((b) => b.record), now);
  const withWebhook = world.clients.filter((c) => c.webhook);
  if (webhooks && withWebhook.length > 0) await seedWebhooks(Object.assign({}, webhooks, { db: trx }), withWebhook);
  return { reEnabled, ordersCreated };
}
