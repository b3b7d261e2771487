// Client secrets: stored as scrypt hashes, compared in constant time, generated with enough entropy.
import { hash, randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt's cost: `N` (memory, 128·N·r bytes a run), `r`, and `p` (runs of that memory one after another). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * Client secrets (decision 0059): 192 random bits each (`newSecret`), which no cost makes harder to
 * guess; 16 MiB and ~35–65 ms a run.
 */
export const SECRET_COST: ScryptCost = { N: 16384, r: 8, p: 1 };
/**
 * Operators' passwords (decision 0059): chosen by people, so as costly as OWASP's floor for scrypt (N=2^17, r=8, p=1)
 * by its own equivalent at the secrets' memory, N=2^14 with p=5: 16 MiB a run, never the 128 MiB that would take the
 * API process past its RSS target; five times the time.
 */
export const PASSWORD_COST: ScryptCost = { N: 16384, r: 8, p: 5 };
const KEYLEN = 32;

function scrypt(secret: string, salt: Buffer, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(secret, salt, KEYLEN, Object.assign({}, opts, { maxmem: 64 * 1024 * 1024 }), (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, base64url parts. */
export async function hashSecret(secret: string, cost: ScryptCost = SECRET_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether a stored hash was made at less than `cost` in any of its parameters (an unreadable one: yes). */
export function cheaperThan(stored: string, cost: ScryptCost): boolean {
  const [kind, n, r, p] = stored.split('$');
  return kind !== 'scrypt' || Number(n) < cost.N || Number(r) < cost.r || Number(p) < cost.p;
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(secret, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

const dummyHash = (c: ScryptCost) => `scrypt$${c.N}$${c.r}$${c.p}$${Buffer.alloc(16).toString('base64url')}$${Buffer.alloc(KEYLEN).toString('base64url')}`;
/** A hash no secret matches, verified against for unknown client ids so timing does not reveal them. */
export const DUMMY_HASH = dummyHash(SECRET_COST);
/** The same for unknown operator logins, at the passwords' cost. */
export const DUMMY_PASSWORD_HASH = dummyHash(PASSWORD_COST);

export function newSecret(): string {
  return randomBytes(24).toString('base64url');
}

/** SHA-256 in one call (no Hash object per request: every authenticated request digests its secret). */
export function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}

export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
