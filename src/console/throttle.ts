// Failed console logins, counted per login and per client address in the store (migration 0017), so every API
// process on one database counts the same failures: after LIMITS failures of a key within WINDOW_MS the key is
// refused (HTTP 429) until its oldest counted failure leaves the window, whatever the password; an attempt counts
// before its password is checked (reserve), so attempts sent at once cannot pass the count together. Keys are kept
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

/** A login attempt under way: its rows (one per key), counted as failures until it succeeds. */
export interface LoginAttempt {
  ids: number[];
}

export class FailedLogins {
  private failures = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until every key may try again; 0 when none is blocked. Rows `except` are not counted. */
  async blockedFor(keys: string[], except: readonly number[] = []): Promise<number> {
    const t = this.now();
    let wait = 0;
    for (const key of keys) {
      const limit = limitOf(key);
      // The limit-th newest failure in the window: the key is free again when it leaves the window.
      let q = this.db
        .selectFrom('console_login_failures')
        .select('at')
        .where('key_hash', '=', digest(key))
        .where('at', '>', new Date(t - WINDOW_MS));
      if (except.length > 0) q = q.where('id', 'not in', except);
      const rows = await q.orderBy('at', 'desc').limit(limit).execute();
      if (rows.length >= limit) wait = Math.max(wait, new Date(rows[limit - 1]!.at).getTime() + WINDOW_MS - t);
    }
    return wait;
  }

  /**
   * Before a password is checked: the attempt is written first, as a failure of each key, then the keys are
   * counted without it. Checked and counted the other way round, every attempt sent before the first failure was
   * written passed the check (40 logins at once: 40 passwords tried, found by a review). Now an attempt is counted
   * by every attempt whose count comes after its row, so of any number at once at most a key's limit go on to the
   * password. Answers the wait when a key is blocked (the attempt then taken back: a blocked attempt neither
   * counts nor prolongs the block), else the attempt, to be settled with `failed`, `succeeded` or `withdrawn`.
   */
  async reserve(keys: string[]): Promise<{ wait: number; attempt: LoginAttempt | null }> {
    const at = new Date(this.now());
    const rows = await this.db
      .insertInto('console_login_failures')
      .values(keys.map((key) => ({ key_hash: digest(key), at })))
      .returning('id')
      .execute();
    const attempt = { ids: rows.map((r) => Number(r.id)) };
    const wait = await this.blockedFor(keys, attempt.ids);
    if (wait === 0) return { wait, attempt };
    await this.withdrawn(attempt);
    return { wait, attempt: null };
  }

  /** The attempt's password was wrong: its rows stay, as failures; the keys' rows past the window go. */
  async failed(attempt: LoginAttempt): Promise<void> {
    const rows = await this.db.selectFrom('console_login_failures').select('key_hash').where('id', 'in', attempt.ids).execute();
    await this.sweep(rows.map((r) => r.key_hash));
  }

  /** Failures of `keys` recorded at once, without an attempt (a test's planted history). */
  async record(keys: string[]): Promise<void> {
    const at = new Date(this.now());
    const hashes = keys.map(digest);
    await this.db.insertInto('console_login_failures').values(hashes.map((key_hash) => ({ key_hash, at }))).execute();
    await this.sweep(hashes);
  }

  private async sweep(hashes: string[]): Promise<void> {
    const since = new Date(this.now() - WINDOW_MS);
    if (++this.failures % SWEEP_EVERY === 0) await this.db.deleteFrom('console_login_failures').where('at', '<=', since).execute();
    else if (hashes.length > 0) await this.db.deleteFrom('console_login_failures').where('key_hash', 'in', hashes).where('at', '<=', since).execute();
  }

  /** The attempt's login succeeded: its rows and its login's failures go (not its address's). */
  async succeeded(loginKey: string, attempt: LoginAttempt): Promise<void> {
    await this.db
      .deleteFrom('console_login_failures')
      .where((eb) => eb.or([eb('key_hash', '=', digest(loginKey)), eb('id', 'in', attempt.ids)]))
      .execute();
  }

  /** The attempt decided nothing (blocked, or the check failed for another reason): its rows go. */
  async withdrawn(attempt: LoginAttempt): Promise<void> {
    await this.db.deleteFrom('console_login_failures').where('id', 'in', attempt.ids).execute();
  }
}
