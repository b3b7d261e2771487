// Operator accounts of the console: separate from API clients, scrypt password hashes (the clients' scheme,
// src/clients/secrets.ts), a role each. The password never leaves this module except as its hash.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DUMMY_HASH, hashSecret, verifySecret } from '../clients/secrets.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Database, OperatorRole } from '../store/schema.js';

export const ROLES: readonly OperatorRole[] = ['viewer', 'agent', 'admin'];
const RANK: Record<OperatorRole, number> = { viewer: 0, agent: 1, admin: 2 };

/** Whether `role` may do what `needed` may (admin ⊃ agent ⊃ viewer). */
export function roleAllows(role: OperatorRole, needed: OperatorRole): boolean {
  return RANK[role] >= RANK[needed];
}

export interface Operator {
  operatorId: string;
  login: string;
  role: OperatorRole;
  disabled: boolean;
}

export class OperatorError extends Error {}

export const LOGIN_PATTERN = /^[a-z0-9][a-z0-9._@-]{2,63}$/;
export const MIN_PASSWORD = 12;
const MAX_PASSWORD = 256;

/** Why this password cannot be used, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD) return `the password needs at least ${MIN_PASSWORD} characters`;
  if (password.length > MAX_PASSWORD) return `the password may have at most ${MAX_PASSWORD} characters`;
  return null;
}

export async function createOperator(db: Kysely<Database>, input: { login: string; password: string; role: OperatorRole }, now: Date): Promise<Operator> {
  const login = input.login.trim().toLowerCase();
  if (!LOGIN_PATTERN.test(login)) throw new OperatorError('login: 3 to 64 lower-case letters, digits, dot, dash, underscore or @');
  if (!ROLES.includes(input.role)) throw new OperatorError(`role: one of ${ROLES.join(', ')}`);
  const problem = passwordProblem(input.password);
  if (problem) throw new OperatorError(problem);
  const operatorId = `op_${randomBytes(9).toString('base64url')}`;
  try {
    await db
      .insertInto('operators')
      .values({ operator_id: operatorId, login, password_hash: await hashSecret(input.password), role: input.role, created_at: now, updated_at: now })
      .execute();
  } catch (err) {
    if (isUniqueViolation(err)) throw new OperatorError(`an operator ${login} exists already`);
    throw err;
  }
  return { operatorId, login, role: input.role, disabled: false };
}

export async function listOperators(db: Kysely<Database>): Promise<Array<Operator & { createdAt: Date; lastLoginAt: Date | null }>> {
  const rows = await db.selectFrom('operators').select(['operator_id', 'login', 'role', 'disabled', 'created_at', 'last_login_at']).orderBy('login').execute();
  return rows.map((r) => ({
    operatorId: r.operator_id,
    login: r.login,
    role: r.role,
    disabled: r.disabled,
    createdAt: new Date(r.created_at),
    lastLoginAt: r.last_login_at ? new Date(r.last_login_at) : null,
  }));
}

/**
 * The operator whose login and password these are, or null (unknown login, wrong password and disabled
 * account alike: the caller answers one generic message). An unknown login still costs one scrypt, so the
 * answer's timing does not tell which logins exist.
 */
export async function verifyLogin(db: Kysely<Database>, login: string, password: string, now: Date): Promise<Operator | null> {
  const row = await db
    .selectFrom('operators')
    .select(['operator_id', 'login', 'role', 'disabled', 'password_hash'])
    .where('login', '=', login.trim().toLowerCase())
    .executeTakeFirst();
  const ok = await verifySecret(password.slice(0, MAX_PASSWORD), row?.password_hash ?? DUMMY_HASH);
  if (!row || !ok || row.disabled) return null;
  await db.updateTable('operators').set({ last_login_at: now }).where('operator_id', '=', row.operator_id).execute();
  return { operatorId: row.operator_id, login: row.login, role: row.role, disabled: row.disabled };
}

/** Sandbox demo operators (decision 0029): demo-viewer, demo-agent and demo-admin with one password, created when missing. */
export async function seedDemoOperators(db: Kysely<Database>, password: string, now: Date): Promise<void> {
  for (const role of ROLES) {
    const login = `demo-${role}`;
    const exists = await db.selectFrom('operators').select('operator_id').where('login', '=', login).executeTakeFirst();
    if (exists) continue;
    try {
      await createOperator(db, { login, password, role }, now);
    } catch (err) {
      if (!(err instanceof OperatorError && /exists already/.test(err.message))) throw err;
    }
  }
}
