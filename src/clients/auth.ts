// Authenticates callers by client id and secret. scrypt is deliberately slow, so a verified (id, secret
// digest) pair is cached for a short time; the cache compares digests in constant time. Concurrent misses
// of one pair (every request of a busy client when its entry expires) share one verification.
//
// scrypt runs on libuv's thread pool, which the answers' gzip and the log's writes share: a burst of new pairs
// (random secrets, unknown ids) held every thread, and a review saw a real client wait 32 s to log in and a gzip
// answer 10 s (decision 0006, amended). So at most CONCURRENT_VERIFICATIONS run at once, at most
// WAITING_VERIFICATIONS wait for them (beyond: AuthBusy, answered 429 at once), and an address whose
// verifications failed FAILED_PER_MINUTE times in its current minute gets no new one until the minute ends.
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
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

/** A secret verified in its grace period: also ends with the grace, by the service clock (it may be moved). */
interface GraceEntry extends CacheEntry {
  graceEndsAt: number;
}

/** scrypt verifications running at once: two of libuv's four threads, the others left to gzip and the log. */
const CONCURRENT_VERIFICATIONS = 2;
/** New verifications waiting for a thread; one more is refused (AuthBusy) instead of queued. */
const WAITING_VERIFICATIONS = 64;
/** Failed verifications an address may cause in one minute before its new pairs are refused until the next. */
export const FAILED_PER_MINUTE = 60;

/** A verification not started: the service is busy verifying, or the address failed too often; retry later. */
export class AuthBusy extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'AuthBusy';
  }
}

export class ClientAuthenticator {
  private readonly verified = new BoundedMap<string, CacheEntry>(10_000);
  /** Secrets verified in their grace period after a rotation, kept no longer than the grace (nor the TTL). */
  private readonly verifiedPrevious = new BoundedMap<string, GraceEntry>(10_000);
  private readonly refused = new BoundedMap<string, number>(10_000);
  /** Failed verifications by the caller's address in its current minute. */
  private readonly failures = new BoundedMap<string, { minute: number; count: number }>(10_000);
  private readonly verifying = pLimit(CONCURRENT_VERIFICATIONS);
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

  /**
   * The client, or null when the id is unknown, disabled, or the secret is wrong. `source` is the caller's address:
   * its failed verifications are counted. Throws AuthBusy when a needed verification cannot start now.
   */
  async authenticate(clientId: string, secret: string, source = ''): Promise<AuthenticatedClient | null> {
    const now = Date.now();
    const secretDigest = digest(secret);
    const hit = this.verified.get(clientId);
    if (hit && hit.expiresAt > now && sameDigest(hit.secretDigest, secretDigest)) return hit.client;
    const previous = this.verifiedPrevious.get(clientId);
    if (previous && previous.expiresAt > now && previous.graceEndsAt > this.clock.now().getTime() && sameDigest(previous.secretDigest, secretDigest)) return previous.client;

    // The same wrong pair again within the TTL is refused without another scrypt run.
    const refusalKey = `${clientId}\u0000${secretDigest.toString('base64')}`;
    const refusedUntil = this.refused.get(refusalKey);
    if (refusedUntil !== undefined && refusedUntil > now) return null;

    const joined = this.inFlight.get(refusalKey);
    if (joined) return joined;
    const minute = Math.floor(now / 60_000);
    const failed = this.failures.get(source);
    if (failed && failed.minute === minute && failed.count >= FAILED_PER_MINUTE) {
      throw new AuthBusy(`too many failed authentications from this address: retry in ${60 - Math.floor((now / 1000) % 60)} s`, 60 - Math.floor((now / 1000) % 60));
    }
    if (this.verifying.pendingCount >= WAITING_VERIFICATIONS) throw new AuthBusy('authentication is busy: too many new credentials at once; retry in 1 s', 1);
    const pending = this.verifying(() => this.verify(clientId, secret, secretDigest, refusalKey)).then((client) => {
      if (!client) this.countFailure(source, minute);
      return client;
    });
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
    if (current && stillValid) this.verified.set(clientId, { secretDigest, client, expiresAt: now + this.ttlMs });
    // A secret in its grace period is kept no longer than its grace (by the service clock), so the grace ends on
    // time; it was re-checked at every request, two scrypt runs each (a review: a client still on its old secret
    // held the thread pool as a burst of wrong secrets does).
    if (!current && stillValid && row.previous_secret_expires_at) {
      this.verifiedPrevious.set(clientId, { secretDigest, client, expiresAt: now + this.ttlMs, graceEndsAt: row.previous_secret_expires_at.getTime() });
    }
    return client;
  }

  private countFailure(source: string, minute: number): void {
    const failed = this.failures.get(source);
    if (failed && failed.minute === minute) failed.count++;
    else this.failures.set(source, { minute, count: 1 });
  }

  /** Forget cached results (after a rotation, a disable or a settings change in this process). */
  invalidate(clientId?: string): void {
    this.generation++;
    this.inFlight.clear();
    if (clientId === undefined) {
      this.verified.clear();
      this.verifiedPrevious.clear();
      this.refused.clear();
      return;
    }
    this.verified.delete(clientId);
    this.verifiedPrevious.delete(clientId);
    for (const key of this.refused.keys()) if (key.startsWith(`${clientId}\u0000`)) this.refused.delete(key);
  }
}
