// Console sessions, kept server-side: the cookie carries a random token, the table its SHA-256, the
// operator, a CSRF token (sent back by the app in a header on every state-changing call) and an expiry.
// Session times are real time, not the sandbox clock: moving the test clock must not log operators out.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import type { Operator } from './operators.js';

const SESSION_COOKIE = 'postbook_console';
/** The session cookie's name over https (decision 0062): the browser takes it only Secure, Path=/ and without Domain. */
const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/**
 * The session cookie's name and path for a response or request that is Secure or not (decision 0062). A Secure one is
 * `__Host-` prefixed, which only this origin can set: a sibling subdomain or a plain-http page on the same host can
 * write `postbook_console` for /console (cookie tossing) but never this name, and over https only this name is read.
 */
export function sessionCookie(secure: boolean): { name: string; path: string } {
  return secure ? { name: SECURE_SESSION_COOKIE, path: '/' } : { name: SESSION_COOKIE, path: '/console' };
}

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export interface Session {
  operator: Operator;
  csrfToken: string;
  tokenHash: string;
  expiresAt: Date;
}

export async function createSession(db: Kysely<Database>, operatorId: string, ttlMs: number): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  return (await openSession(db, operatorId, null, ttlMs))!;
}

/**
 * A session for an operator whose password hash is still `passwordHash` and who is not disabled, or null: a
 * password checked against an older hash opens none. A reset ends the account's sessions, and a login whose check
 * had read the hash before it must not open one after it (found by a review: one of seven did).
 */
export function createSessionIfPasswordIs(db: Kysely<Database>, operatorId: string, passwordHash: string, ttlMs: number): Promise<{ token: string; csrfToken: string; expiresAt: Date } | null> {
  return openSession(db, operatorId, passwordHash, ttlMs);
}

async function openSession(db: Kysely<Database>, operatorId: string, passwordHash: string | null, ttlMs: number): Promise<{ token: string; csrfToken: string; expiresAt: Date } | null> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + ttlMs);
  const made = await db
    .insertInto('console_sessions')
    .columns(['token_hash', 'operator_id', 'csrf_token', 'created_at', 'expires_at'])
    .expression((eb) =>
      eb
        .selectFrom('operators')
        .select([eb.val(hashOf(token)).as('token_hash'), 'operator_id', eb.val(csrfToken).as('csrf_token'), eb.val(now).as('created_at'), eb.val(expiresAt).as('expires_at')])
        .where('operator_id', '=', operatorId)
        .$if(passwordHash !== null, (q) => q.where('password_hash', '=', passwordHash!).where('disabled', '=', false)),
    )
    .returning('token_hash')
    .executeTakeFirst();
  if (made === undefined) return null;
  // Expired sessions of anybody go now and then (cheap: indexed on expires_at).
  if (Math.random() < 0.1) await db.deleteFrom('console_sessions').where('expires_at', '<', now).execute();
  return { token, csrfToken, expiresAt };
}

/** The live session of this cookie token (operator not disabled), or null. */
export async function findSession(db: Kysely<Database>, token: string | undefined): Promise<Session | null> {
  if (!token || token.length > 100) return null;
  const tokenHash = hashOf(token);
  const row = await db
    .selectFrom('console_sessions as s')
    .innerJoin('operators as o', 'o.operator_id', 's.operator_id')
    .select(['s.token_hash', 's.csrf_token', 's.expires_at', 'o.operator_id', 'o.login', 'o.role', 'o.disabled'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row || row.disabled || new Date(row.expires_at).getTime() <= Date.now()) return null;
  return {
    operator: { operatorId: row.operator_id, login: row.login, role: row.role, disabled: row.disabled },
    csrfToken: row.csrf_token,
    tokenHash: row.token_hash,
    expiresAt: new Date(row.expires_at),
  };
}

export async function endSession(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Constant-time comparison of the CSRF header with the session's token. */
export function csrfMatches(session: Session, header: unknown): boolean {
  if (typeof header !== 'string' || header.length === 0 || header.length > 200) return false;
  const a = createHash('sha256').update(header).digest();
  const b = createHash('sha256').update(session.csrfToken).digest();
  return timingSafeEqual(a, b);
}
