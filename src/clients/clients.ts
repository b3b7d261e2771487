// Client records: creation, rotation, and seeding the sandbox world's clients into the store.
import type { Kysely, Transaction } from 'kysely';
import type { ClientRow, ClientSettings, Database } from '../store/schema.js';
import { hashSecret, newSecret, verifySecret } from './secrets.js';
import { inTransaction } from '../store/transaction.js';

export interface SeedClient {
  id: string;
  name: string;
  secret: string;
  settings?: ClientSettings;
}

export function findClient(db: Kysely<Database>, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

/**
 * Upsert world clients; a secret is re-hashed only when it changed, so restarts keep the same hash. A world client
 * is active: one disabled (in the console) is enabled again, and answered in `reEnabled` for its audit row.
 */
export async function seedClients(db: Kysely<Database>, clients: SeedClient[], now: Date): Promise<{ reEnabled: string[] }> {
  const reEnabled: string[] = [];
  for (const c of clients) {
    const existing = await findClient(db, c.id);
    const settings = JSON.stringify(c.settings ?? {});
    if (!existing) {
      await db
        .insertInto('clients')
        .values({ client_id: c.id, name: c.name, secret_hash: await hashSecret(c.secret), settings, updated_at: now })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .execute();
      continue;
    }
    const same = await verifySecret(c.secret, existing.secret_hash);
    const secretHash = same ? existing.secret_hash : await hashSecret(c.secret);
    if (existing.status !== 'active') reEnabled.push(c.id);
    await db
      .updateTable('clients')
      // A secret the file changes ends a rotation's grace period too: the file's secret is then the only one (found
      // by a review: an earlier rotation's secret still in grace kept working after the reload that replaced it).
      .set({ name: c.name, secret_hash: secretHash, settings, status: 'active', updated_at: now, ...(same ? {} : { previous_secret_hash: null, previous_secret_expires_at: null }) })
      .where('client_id', '=', c.id)
      .execute();
  }
  return { reEnabled };
}

/** The longest grace period a rotation gives the old secret: 30 days (the console and the CLI refuse more). */
export const MAX_GRACE_HOURS = 24 * 30;

/** Creates a client and returns its secret: the only time the secret is ever shown. */
export async function createClient(db: Kysely<Database>, id: string, name: string, now: Date): Promise<string> {
  const secret = newSecret();
  await db.insertInto('clients').values({ client_id: id, name, secret_hash: await hashSecret(secret), settings: '{}', updated_at: now }).execute();
  return secret;
}

/**
 * A rotation with a grace period while an earlier one's runs: it would replace the secret still in grace (the one
 * callers may not have rolled off yet) by the secret of a moment ago, ending it at once.
 */
export class RotationInGrace extends Error {
  constructor(readonly until: Date) {
    super(
      `a secret rotation's grace period runs until ${until.toISOString()}: the secret before it still works until then, and rotating again with a grace period would end it at once. ` +
        'Wait for the grace period to end, or rotate with a grace of 0 hours to end every older secret now',
    );
    this.name = 'RotationInGrace';
  }
}

/**
 * New secret; the old one keeps working for `graceMs` so callers can roll over without downtime. While an earlier
 * rotation's grace runs, only a rotation with no grace is made (every older secret ends now: a leaked one); one
 * with a grace throws RotationInGrace (found by a review: a second click, or a lost answer retried, cut the
 * original secret off at once, though its grace had been promised).
 */
export async function rotateSecret(db: Kysely<Database> | Transaction<Database>, id: string, now: Date, graceMs: number): Promise<string | null> {
  // The client's row read and locked in the rotation's own transaction: two rotations at once (the CLI's and the
  // console's) read it one after the other, so neither writes a secret the other just retired as the previous one
  // (a review: a rotation with a grace overlapping one with none brought a leaked secret back for the grace).
  return inTransaction(db, async (trx) => {
    const existing = await trx.selectFrom('clients').selectAll().where('client_id', '=', id).forUpdate().executeTakeFirst();
    if (!existing) return null;
    const running = existing.previous_secret_expires_at ? new Date(existing.previous_secret_expires_at) : null;
    if (graceMs > 0 && running !== null && running.getTime() > now.getTime()) throw new RotationInGrace(running);
    const secret = newSecret();
    await trx
      .updateTable('clients')
      .set({
        secret_hash: await hashSecret(secret),
        previous_secret_hash: existing.secret_hash,
        previous_secret_expires_at: new Date(now.getTime() + graceMs),
        updated_at: now,
      })
      .where('client_id', '=', id)
      .execute();
    return secret;
  });
}

export async function setClientStatus(db: Kysely<Database>, id: string, status: 'active' | 'disabled', now: Date): Promise<boolean> {
  const res = await db.updateTable('clients').set({ status, updated_at: now }).where('client_id', '=', id).executeTakeFirst();
  return res.numUpdatedRows > 0n;
}
