// Authenticates callers by client id and secret. scrypt is deliberately slow, so a verified (id, secret
// digest) pair is cached for a short time; the cache compares digests in constant time. Concurrent misses
// of one pair (every request of a busy client when its entry expires) share one verification. A connection that
// sends the pair of its last verified request again is not digested again (`onConnection`: decision 0006, amended
// 2026-12-03).
//
// scrypt runs on libuv's thread pool, which the answers' gzip and the log's writes share: a burst of new pairs
// (random secrets, unknown ids) held every thread, and a review saw a real client wait 32 s to log in and a gzip
// answer 10 s (decision 0006, amended). So new pairs are verified at most CONCURRENT_VERIFICATIONS at a time and at
// most WAITING_VERIFICATIONS wait (beyond: AuthBusy, answered 429 at once); a pair this process has verified as
// right before (a real client whose entry expired) is accepted on its row's read while the row keeps the hash it
// matched, and verified in a lane of its own when that changed, never queued behind new pairs. Nothing is counted
// by address: behind a NAT or a load balancer (TRUST_PROXY off) every client shares one, and with TRUST_PROXY on the
// caller writes it (a review saw an address limit lock every client out).
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import { BoundedMap } from '../bounded-map.js';
import type { Clock } from '../clock.js';
import type { ClientSettings, Database } from '../store/schema.js';
import { findClient } from './clients.js';
import { digest, DUMMY_HASH, sameDigest, verifySecret as checkSecret } from './secrets.js';

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

/** Verifications of new pairs running at once: two of libuv's four threads (gzip and the log keep the others). */
const CONCURRENT_VERIFICATIONS = 2;
/** New pairs waiting for a thread (~4 s of scrypt at ~60 ms each); one more is refused (AuthBusy) instead of queued. */
export const WAITING_VERIFICATIONS = 128;
/** How long a pair verified as right is known: its next verification (after the cache's TTL) takes the known lane. */
const KNOWN_GOOD_MS = 24 * 3600_000;

/** A verification not started: the service is busy verifying new credentials; retry later. */
export class AuthBusy extends Error {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'AuthBusy';
  }
}

/**
 * Whether two texts are equal, in a time that depends on their length only (a length is no secret: a client secret's
 * is fixed by its format, newSecret).
 */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export class ClientAuthenticator {
  private readonly verified = new BoundedMap<string, CacheEntry>(10_000);
  /**
   * Per keep-alive connection, the pair its last request was accepted on from `verified` and that entry: a request
   * sending the same id and secret again is accepted while the entry is still the cache's and unexpired, without the
   * SHA-256 of its secret (a few per cent of a kept answer's thread). Only current secrets (grace entries are checked
   * against the service clock each time). The secret is kept as the connection's request carried it and compared
   * character by character without stopping at the first difference (sameText): behind a reverse proxy one upstream
   * connection carries many callers' requests.
   */
  private readonly onConnection = new WeakMap<object, { clientId: string; secret: string; entry: CacheEntry }>();
  /** Secrets verified in their grace period after a rotation, kept no longer than the grace (nor the TTL). */
  private readonly verifiedPrevious = new BoundedMap<string, GraceEntry>(10_000);
  private readonly refused = new BoundedMap<string, number>(10_000);
  /**
   * Digests of pairs verified as right, by client id, until when (KNOWN_GOOD_MS), with the stored hash they matched:
   * while the client's row still holds that hash, the pair is accepted on the row's read alone (the same secret
   * against the same salted hash verifies the same); otherwise it is verified in the known lane.
   */
  private readonly knownGood = new BoundedMap<string, { secretDigest: Buffer; until: number; hash: string }>(10_000);
  private readonly verifying = pLimit(CONCURRENT_VERIFICATIONS);
  /** The known lane: one thread, no cap (its pairs are real clients', and one verification per pair at a time). */
  private readonly verifyingKnown = pLimit(1);
  private readonly inFlight = new Map<string, Promise<AuthenticatedClient | null>>();
  /** Bumped by invalidate(): a verification that began before it does not fill the cache. */
  private generation = 0;
  /** scrypt verifications started (a test reads it: concurrent misses of one pair share one). */
  verificationsStarted = 0;
  /** Requests accepted as their connection's last pair (a test reads it). */
  acceptedAsLast = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly ttlMs = 30_000,
    /** The scrypt check (a test counts its runs). */
    private readonly verifySecret: typeof checkSecret = checkSecret,
  ) {}

  /**
   * The client, or null when the id is unknown, disabled, or the secret is wrong. Throws AuthBusy when a new pair's
   * verification cannot wait. `connection`: the request's socket (see `onConnection`).
   */
  async authenticate(clientId: string, secret: string, connection?: object): Promise<AuthenticatedClient | null> {
    const now = Date.now();
    const found = this.fromCache(clientId, secret, now, connection);
    if (!Buffer.isBuffer(found)) return found;
    const secretDigest = found;

    // The same wrong pair again within the TTL is refused without another scrypt run.
    const refusalKey = `${clientId}\u0000${secretDigest.toString('base64')}`;
    const refusedUntil = this.refused.get(refusalKey);
    if (refusedUntil !== undefined && refusedUntil > now) return null;

    const joined = this.inFlight.get(refusalKey);
    if (joined) return joined;
    const known = this.knownGood.get(clientId);
    const knownHash = known && known.until > now && sameDigest(known.secretDigest, secretDigest) ? known.hash : null;
    if (knownHash === null && this.verifying.pendingCount >= WAITING_VERIFICATIONS) throw new AuthBusy('authentication is busy: too many new credentials at once; retry in 1 s', 1);
    // A known pair reads its row at once (no lane: real clients' pairs only) and queues for scrypt only when its hash
    // changed; a new pair waits for its turn before it reads anything.
    const pending = knownHash !== null ? this.verify(clientId, secret, secretDigest, refusalKey, knownHash) : this.verifying(() => this.verify(clientId, secret, secretDigest, refusalKey, null));
    this.inFlight.set(refusalKey, pending);
    const forget = () => {
      if (this.inFlight.get(refusalKey) === pending) this.inFlight.delete(refusalKey);
    };
    pending.then(forget, forget);
    return pending;
  }

  /**
   * The client when this pair is in the verified cache (nothing read, nothing queued), else null: ask authenticate().
   * `connection`: the request's socket (see `onConnection`).
   */
  cached(clientId: string, secret: string, connection?: object): AuthenticatedClient | null {
    const found = this.fromCache(clientId, secret, Date.now(), connection);
    return Buffer.isBuffer(found) ? null : found;
  }

  /** The client as the connection's last pair or from the verified cache; else the secret's digest, to go on with. */
  private fromCache(clientId: string, secret: string, now: number, connection: object | undefined): AuthenticatedClient | Buffer {
    const again = connection && this.sameAsLast(connection, clientId, secret, now);
    if (again) return again;
    const secretDigest = digest(secret);
    return this.cachedClient(clientId, secretDigest, now, connection, secret) ?? secretDigest;
  }

  /** The client when the connection's last accepted pair was this one and its cache entry still stands, else null. */
  private sameAsLast(connection: object, clientId: string, secret: string, now: number): AuthenticatedClient | null {
    const last = this.onConnection.get(connection);
    if (last === undefined || last.clientId !== clientId || !sameText(last.secret, secret) || last.entry.expiresAt <= now) return null;
    // invalidate() and a new verification replace or drop the entry: the pair is then checked as any other
    if (this.verified.get(clientId) !== last.entry) return null;
    this.acceptedAsLast++;
    return last.entry.client;
  }

  private cachedClient(clientId: string, secretDigest: Buffer, now: number, connection?: object, secret?: string): AuthenticatedClient | null {
    const hit = this.verified.get(clientId);
    if (hit && hit.expiresAt > now && sameDigest(hit.secretDigest, secretDigest)) {
      if (connection !== undefined && secret !== undefined) this.onConnection.set(connection, { clientId, secret, entry: hit });
      return hit.client;
    }
    const previous = this.verifiedPrevious.get(clientId);
    if (previous && previous.expiresAt > now && previous.graceEndsAt > this.clock.now().getTime() && sameDigest(previous.secretDigest, secretDigest)) return previous.client;
    return null;
  }

  /**
   * `knownHash`: the stored hash this pair matched before (a known pair), or null. While the row holds it still, the
   * pair is right without scrypt (a review: every active client's re-check every TTL queued in the one-thread known
   * lane, ~35 ms each — past ~850 active clients a process's queue grew without bound, and a burst of expiries after
   * a restart stalled the last clients for seconds every 30 s).
   */
  private async verify(clientId: string, secret: string, secretDigest: Buffer, refusalKey: string, knownHash: string | null): Promise<AuthenticatedClient | null> {
    const generation = this.generation;
    this.verificationsStarted++;
    const now = Date.now();
    const row = await findClient(this.db, clientId);
    const inGrace = row?.previous_secret_hash != null && row.previous_secret_expires_at != null && row.previous_secret_expires_at.getTime() > this.clock.now().getTime();
    let current: boolean;
    let previousValid: boolean;
    if (knownHash !== null && row && (row.secret_hash === knownHash || (inGrace && row.previous_secret_hash === knownHash))) {
      current = row.secret_hash === knownHash;
      previousValid = !current;
    } else {
      const check = async () => {
        const matchesCurrent = await this.verifySecret(secret, row?.secret_hash ?? DUMMY_HASH);
        // A wrong secret costs two runs whatever the id: the one in grace, or the dummy (a review: an id in a
        // rotation's grace took twice an unknown id's time to refuse, and told itself apart; decision 0006)
        const matchesPrevious = !matchesCurrent && (await this.verifySecret(secret, inGrace ? row.previous_secret_hash! : DUMMY_HASH)) && inGrace;
        return [matchesCurrent, matchesPrevious] as const;
      };
      [current, previousValid] = knownHash !== null ? await this.verifyingKnown(check) : await check();
    }
    const stillValid = generation === this.generation;
    if (!row || row.status !== 'active' || !(current || previousValid)) {
      if (stillValid) this.refused.set(refusalKey, now + this.ttlMs);
      return null;
    }
    const client: AuthenticatedClient = { clientId: row.client_id, name: row.name, settings: row.settings };
    if (current && stillValid) this.verified.set(clientId, { secretDigest, client, expiresAt: now + this.ttlMs });
    if (stillValid) this.knownGood.set(clientId, { secretDigest, until: now + KNOWN_GOOD_MS, hash: current ? row.secret_hash : row.previous_secret_hash! });
    // A secret in its grace period is kept no longer than its grace (by the service clock), so the grace ends on
    // time; it was re-checked at every request, two scrypt runs each (a review: a client still on its old secret
    // held the thread pool as a burst of wrong secrets does).
    if (!current && stillValid && row.previous_secret_expires_at) {
      this.verifiedPrevious.set(clientId, { secretDigest, client, expiresAt: now + this.ttlMs, graceEndsAt: row.previous_secret_expires_at.getTime() });
    }
    return client;
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
