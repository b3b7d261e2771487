// Authenticates callers by client id and secret. scrypt is deliberately slow, so a verified (id, secret
// digest) pair is cached for a short time; the cache compares digests in constant time. Concurrent misses
// of one pair (every request of a busy client when its entry expires) share one verification.
import type { Kysely } from 'kysely';
import { BoundedMap } from '../bounded-map.js';
import type { Clock } from '../clock.js';
import type { ClientSettings, Database } from '../store/schema.js';
import { findClient } from './clients.js';
import { digest, DUMMY_HASH, sameDigest, verifySecret } from './secrets.js';

export interface AuthenticatedClient {
  clientId: string;
  name: string;
  settings: ClientSettings;
}

interface CacheEntry {
  secretDigest: Buffer;
  client: AuthenticatedClient;
  expiresAt: number;
}

export class ClientAuthenticator {
  private readonly verified = new BoundedMap<string, CacheEntry>(10_000);
  private readonly refused = new BoundedMap<string, number>(10_000);
  private readonly inFlight = new Map<string, Promise<AuthenticatedClient | null>>();
  /** Bumped by invalidate(): a verification that began before it does not fill the cache. */
  private generation = 0;
  /** scrypt verifications started (a test reads it: concurrent misses of one pair share one). */
  verificationsStarted = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly ttlMs = 30_000,
  ) {}

  /** The client, or null when the id is unknown, disabled, or the secret is wrong. */
  async authenticate(clientId: string, secret: string): Promise<AuthenticatedClient | null> {
    const now = Date.now();
    const secretDigest = digest(secret);
    const hit = this.verified.get(clientId);
    if (hit && hit.expiresAt > now && sameDigest(hit.secretDigest, secretDigest)) return hit.client;

    // The same wrong pair again within the TTL is refused without another scrypt run.
    const refusalKey = `${clientId}\u0000${secretDigest.toString('base64')}`;
    const refusedUntil = this.refused.get(refusalKey);
    if (refusedUntil !== undefined && refusedUntil > now) return null;

    const joined = this.inFlight.get(refusalKey);
    if (joined) return joined;
    const pending = this.verify(clientId, secret, secretDigest, refusalKey);
    this.inFlight.set(refusalKey, pending);
    const forget = () => {
      if (this.inFlight.get(refusalKey) === pending) this.inFlight.delete(refusalKey);
    };
    pending.then(forget, forget);
    return pending;
  }

  private async verify(clientId: string, secret: string, secretDigest: Buffer, refusalKey: string): Promise<AuthenticatedClient | null> {
    const generation = this.generation;
    this.verificationsStarted++;
    const now = Date.now();
    const row = await findClient(this.db, clientId);
    const current = await verifySecret(secret, row?.secret_hash ?? DUMMY_HASH);
    const previousValid =
      !current &&
      row?.previous_secret_hash != null &&
      row.previous_secret_expires_at != null &&
      row.previous_secret_expires_at.getTime() > this.clock.now().getTime() &&
      (await verifySecret(secret, row.previous_secret_hash));
    const stillValid = generation === this.generation;
    if (!row || row.status !== 'active' || !(current || previousValid)) {
      if (stillValid) this.refused.set(refusalKey, now + this.ttlMs);
      return null;
    }
    const client: AuthenticatedClient = { clientId: row.client_id, name: row.name, settings: row.settings };
    // A secret in its grace period is re-checked every time so the grace ends on time.
    if (current && stillValid) this.verified.set(clientId, { secretDigest, client, expiresAt: now + this.ttlMs });
    return client;
  }

  /** Forget cached results (after a rotation, a disable or a settings change in this process). */
  invalidate(clientId?: string): void {
    this.generation++;
    this.inFlight.clear();
    if (clientId === undefined) {
      this.verified.clear();
      this.refused.clear();
      return;
    }
    this.verified.delete(clientId);
    for (const key of this.refused.keys()) if (key.startsWith(`${clientId}\u0000`)) this.refused.delete(key);
  }
}
