// Failed console logins, counted per login and per client address in the store (migration 0017), so every API
// process on one database counts the same failures: after LIMITS failures of a key within WINDOW_MS the key is
// refused (HTTP 429) until its oldest counted failure leaves the window, whatever the password. Keys are kept
// as SHA-256 digests (a password typed into the login field is never stored). Rows older than the window are
// deleted as the keys are touched, and all of them now and then.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export const WINDOW_MS = 15 * 60_000;
const LIMITS: Record<string, number> = { login: 5, ip: 20 };
const SWEEP_EVERY = 200;

const digest = (key: string) => createHash('sha256').update(key).digest('hex');
const limitOf = (key: string) => LIMITS[key.split(':')[0]!] ?? 5;

export class FailedLogins {
  private failures = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until every key may try again; 0 when none is blocked. */
  async blockedFor(keys: string[]): Promise<number> {
    const t = this.now();
    let wait = 0;
    for (const key of keys) {
      const limit = limitOf(key);
      // The limit-th newest failure in the window: the key is free again when it leaves the window.
      const rows = await this.db
        .selectFrom('console_login_failures')
        .select('at')
        .where('key_hash', '=', digest(key))
        .where('at', '>', new Date(t - WINDOW_MS))
        .orderBy('at', 'desc')
        .limit(limit)
        .execute();
      if (rows.length >= limit) wait = Math.max(wait, new Date(rows[limit - 1]!.at).getTime() + WINDOW_MS - t);
    }
    return wait;
  }

  async failed(keys: string[]): Promise<void> {
    const at = new Date(this.now());
    const hashes = keys.map(digest);
    await this.db.insertInto('console_login_failures').values(hashes.map((key_hash) => ({ key_hash, at }))).execute();
    const since = new Date(at.getTime() - WINDOW_MS);
    if (++this.failures % SWEEP_EVERY === 0) await this.db.deleteFrom('console_login_failures').where('at', '<=', since).execute();
    else await this.db.deleteFrom('console_login_failures').where('key_hash', 'in', hashes).where('at', '<=', since).execute();
  }

  /** A successful login clears its login's failures (not its address's). */
  async succeeded(key: string): Promise<void> {
    await this.db.deleteFrom('console_login_failures').where('key_hash', '=', digest(key)).execute();
  }
}
