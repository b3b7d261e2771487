// Operator accounts of the console: separate from API clients, scrypt password hashes (the clients' scheme,
// src/clients/secrets.ts), a role each. The password never leaves this module except as its hash.
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import pLimit from 'p-limit';
import { cheaperThan, DUMMY_PASSWORD_HASH, hashSecret, PASSWORD_COST, verifySecret } from '../clients/secrets.js';
import { isUniqueViolation } from '../store/errors.js';
import type { Database, OperatorRole } from '../store/schema.js';
import { audit } from './audit.js';

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

/**
 * A new operator account, with its audit row (`operator.create`, by `actor`: "cli" from the command line, the admin
 * from the console) in the same transaction; never the password or its hash. OperatorError for a bad login, role
 * or password, or a login taken.
 */
export async function createOperator(
  db: Kysely<Database>,
  input: { login: string; password: string; role: OperatorRole },
  now: Date,
  actor: Pick<Operator, 'operatorId' | 'login'> = CLI_ACTOR,
  /** The console's: `actor` must still be an enabled admin when the account is written (its row locked). */
  opts: { asAdmin?: boolean } = {},
): Promise<Operator> {
  const login = input.login.trim().toLowerCase();
  if (!LOGIN_PATTERN.test(login)) throw new OperatorError('login: 3 to 64 lower-case letters, digits, dot, dash, underscore or @');
  // the audit log's names for the command line and the sandbox's start (found by a review: an operator named `cli`
  // showed as the command line there)
  if (RESERVED_LOGINS.has(login)) throw new OperatorError(`login: ${login} is reserved (the audit log's name for ${login === CLI_ACTOR.login ? 'the command line' : "the sandbox's start"})`);
  if (!ROLES.includes(input.role)) throw new OperatorError(`role: one of ${ROLES.join(', ')}`);
  const problem = passwordProblem(input.password);
  if (problem) throw new OperatorError(problem);
  const operatorId = `op_${randomBytes(9).toString('base64url')}`;
  // hashed before the transaction: scrypt at the passwords' cost takes ~200 ms
  const passwordHash = await hashSecret(input.password, PASSWORD_COST);
  try {
    await db.transaction().execute(async (trx) => {
      if (opts.asAdmin) await lockEnabledAdmins(trx, actor);
      await trx.insertInto('operators').values({ operator_id: operatorId, login, password_hash: passwordHash, role: input.role, created_at: now, updated_at: now }).execute();
      await audit(trx, actor, 'operator.create', `operator:${login}`, null, { role: input.role, disabled: false });
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new OperatorError(`an operator ${login} exists already`);
    throw err;
  }
  return { operatorId, login, role: input.role, disabled: false };
}

/** A password made for an operator by an admin (console): 24 characters, shown once. */
export function newOperatorPassword(): string {
  return randomBytes(18).toString('base64url');
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
 * Passwords checked and hashed for logins (decision 0059): one scrypt run at a time in this process, at most
 * MAX_WAITING_CHECKS waiting. scrypt runs on libuv's four threads, which the answers' gzip, the log's writes and the
 * clients' verifications (two lanes, three threads: src/clients/auth.ts) share; logins sprayed from many addresses
 * (the throttle counts per login and per address) must not take the fourth.
 */
const passwordChecks = pLimit(1);
const MAX_WAITING_CHECKS = 16;

/** Too many logins being checked at once: the console answers 429 with Retry-After. */
export class LoginBusy extends Error {
  constructor() {
    super('too many logins are being checked right now; try again in a second');
  }
}

function inPasswordLane<T>(work: () => Promise<T>): Promise<T> {
  if (passwordChecks.pendingCount >= MAX_WAITING_CHECKS) return Promise.reject(new LoginBusy());
  return passwordChecks(work);
}

/**
 * The operator whose login and password these are, or null (unknown login, wrong password and disabled
 * account alike: the caller answers one generic message). An unknown login still costs one scrypt at the passwords'
 * cost, so the answer's timing does not tell which logins exist. A password hashed at less than PASSWORD_COST (before
 * decision 0059) is hashed again at it, once it is known right, and stored if the hash is still the one checked.
 * LoginBusy when the lane is full.
 */
export async function verifyLogin(db: Kysely<Database>, login: string, password: string, now: Date): Promise<(Operator & { passwordHash: string }) | null> {
  const row = await db
    .selectFrom('operators')
    .select(['operator_id', 'login', 'role', 'disabled', 'password_hash'])
    .where('login', '=', login.trim().toLowerCase())
    .executeTakeFirst();
  const given = password.slice(0, MAX_PASSWORD);
  const ok = await inPasswordLane(() => verifySecret(given, row?.password_hash ?? DUMMY_PASSWORD_HASH));
  if (!row || !ok || row.disabled) return null;
  const verified = (passwordHash: string) => ({ operatorId: row.operator_id, login: row.login, role: row.role, disabled: row.disabled, passwordHash });
  if (cheaperThan(row.password_hash, PASSWORD_COST)) {
    const stronger = await inPasswordLane(() => hashSecret(given, PASSWORD_COST));
    // the stronger hash and the login's time in one write; a reset meanwhile wins: its hash stays, and the session this
    // login asks for is refused (createSessionIfPasswordIs)
    const moved = await db
      .updateTable('operators')
      .set({ password_hash: stronger, last_login_at: now })
      .where('operator_id', '=', row.operator_id)
      .where('password_hash', '=', row.password_hash)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) === 1) return verified(stronger);
  }
  await db.updateTable('operators').set({ last_login_at: now }).where('operator_id', '=', row.operator_id).execute();
  return verified(row.password_hash);
}

/** Who changes an operator account from the command line, in the audit log (the console's own actions name their operator). */
export const CLI_ACTOR = { operatorId: 'cli', login: 'cli' } as const;
/** Who creates the sandbox's demo operators at start, in the audit log. */
const SANDBOX_ACTOR = { operatorId: 'sandbox', login: 'sandbox' } as const;
const RESERVED_LOGINS: ReadonlySet<string> = new Set([CLI_ACTOR.login, SANDBOX_ACTOR.login]);

export type OperatorChange = { kind: 'disable' } | { kind: 'enable' } | { kind: 'role'; role: OperatorRole } | { kind: 'password'; password: string };

/**
 * An account changed by an operator of the machine (`postbook operators disable|enable|role|password`): one
 * transaction with its audit row (`operator.<kind>`, target `operator:<login>`, the state before and after; never
 * a password or its hash). Disabling and a new password end every console session of the account at once (a
 * disabled account's sessions are refused anyway; a password reset after a leak must not leave one open); a new
 * role applies from the next request of its sessions (each reads the role afresh). Answers the account as it is
 * now; OperatorError for an unknown login, a bad role or password, or a change that changes nothing.
 */
export async function changeOperator(
  db: Kysely<Database>,
  login: string,
  change: OperatorChange,
  now: Date,
  actor: Pick<Operator, 'operatorId' | 'login'> = CLI_ACTOR,
  /**
   * The console's rules: `actor` must still be an enabled admin when the change is written, does not change their
   * own account, and no change leaves the console without an enabled admin (the command line may leave none, to
   * lock the console on purpose).
   */
  opts: {
    asAdmin?: boolean;
    /**
     * One's own change: the password hash the current password was checked against; another by the time the row is
     * locked (an admin's reset meanwhile) refuses the change as a wrong password (found by a review: the change
     * undid the reset).
     */
    expectPasswordHash?: string;
  } = {},
): Promise<Operator & { passwordHash: string }> {
  const name = login.trim().toLowerCase();
  if (change.kind === 'role' && !ROLES.includes(change.role)) throw new OperatorError(`role: one of ${ROLES.join(', ')}`);
  if (change.kind === 'password') {
    const problem = passwordProblem(change.password);
    if (problem) throw new OperatorError(problem);
  }
  // hashed before the transaction: scrypt at the passwords' cost takes ~200 ms and holds no row meanwhile
  const hash = change.kind === 'password' ? await hashSecret(change.password, PASSWORD_COST) : null;
  return db.transaction().execute(async (trx) => {
    const admins = opts.asAdmin ? await lockEnabledAdmins(trx, actor) : [];
    const row = await trx.selectFrom('operators').select(['operator_id', 'login', 'role', 'disabled', 'password_hash']).where('login', '=', name).forNoKeyUpdate().executeTakeFirst();
    if (!row) throw new UnknownOperator(name);
    if (opts.expectPasswordHash !== undefined && row.password_hash !== opts.expectPasswordHash) throw new WrongPassword('the current password is wrong');
    if (opts.asAdmin && row.operator_id === actor.operatorId) throw new NotYours(change.kind);
    const before = { role: row.role, disabled: row.disabled };
    const after = { ...before };
    if (change.kind === 'disable' || change.kind === 'enable') {
      after.disabled = change.kind === 'disable';
      if (after.disabled === before.disabled) throw new OperatorError(`operator ${name} is ${before.disabled ? 'disabled' : 'enabled'} already`);
    } else if (change.kind === 'role') {
      after.role = change.role;
      if (after.role === before.role) throw new OperatorError(`operator ${name} is ${before.role} already`);
    }
    const losesAnAdmin = before.role === 'admin' && !before.disabled && (after.role !== 'admin' || after.disabled);
    if (opts.asAdmin && losesAnAdmin && admins.every((a) => a.operator_id === row.operator_id)) {
      throw new OperatorError(`operator ${name} is the only enabled admin: make another admin first`);
    }
    await trx
      .updateTable('operators')
      .set({ role: after.role, disabled: after.disabled, updated_at: now, ...(hash ? { password_hash: hash } : {}) })
      .where('operator_id', '=', row.operator_id)
      .execute();
    let sessionsEnded = 0;
    if (change.kind === 'disable' || change.kind === 'password') {
      sessionsEnded = Number((await trx.deleteFrom('console_sessions').where('operator_id', '=', row.operator_id).executeTakeFirst()).numDeletedRows);
    }
    await audit(trx, actor, `operator.${change.kind}`, `operator:${name}`, before, change.kind === 'password' ? { ...after, passwordChanged: true, sessionsEnded } : { ...after, sessionsEnded });
    return { operatorId: row.operator_id, login: row.login, role: after.role, disabled: after.disabled, passwordHash: hash ?? row.password_hash };
  });
}

/** The current password given for a change of one's own was wrong (the console counts it as a failed login). */
export class WrongPassword extends OperatorError {}

/** No operator of this login (the console answers 404, the command line exits 1). */
export class UnknownOperator extends OperatorError {
  constructor(login: string) {
    super(`no operator ${login} (see: postbook operators list)`);
  }
}

/**
 * An operator's own new password (the console's account page): the current one must be given and right, the
 * new one good and different. As `changeOperator`'s password change: audited (by the operator), every console
 * session of the account ended — the caller opens a new one for the operator who asked.
 */
export async function changeOwnPassword(db: Kysely<Database>, operator: Pick<Operator, 'operatorId' | 'login'>, current: string, next: string, now: Date): Promise<Operator & { passwordHash: string }> {
  const row = await db.selectFrom('operators').select(['password_hash', 'disabled']).where('operator_id', '=', operator.operatorId).executeTakeFirst();
  if (!row || row.disabled || !(await inPasswordLane(() => verifySecret(current.slice(0, MAX_PASSWORD), row.password_hash)))) throw new WrongPassword('the current password is wrong');
  if (next === current) throw new OperatorError('the new password is the current one');
  return changeOperator(db, operator.login, { kind: 'password', password: next }, now, operator, { expectPasswordHash: row.password_hash });
}

/** The acting operator is not (any more) an enabled admin: the console answers 403. */
export class NoLongerAdmin extends OperatorError {}

/** An admin's own account, changed from the console: another admin does it (the console answers 409). */
export class NotYours extends OperatorError {
  constructor(kind: OperatorChange['kind']) {
    super(`you cannot ${kind === 'role' ? 'change the role of' : kind === 'password' ? 'reset the password of' : kind === 'disable' ? 'disable' : 'enable'} your own account here: ${kind === 'password' ? 'change your password on Your account' : 'ask another admin'}`);
  }
}

/**
 * The enabled admins' rows, locked in one order (two admins disabling each other at once wait in line; each
 * locking its target first deadlocked on PostgreSQL): `actor` must be among them, or NoLongerAdmin — disabled or
 * demoted while this request was on its way, it acts no more. FOR NO KEY UPDATE: a console session's insert (its
 * foreign key to the operator) does not wait for it.
 */
async function lockEnabledAdmins(trx: Kysely<Database>, actor: Pick<Operator, 'operatorId'>): Promise<Array<{ operator_id: string }>> {
  const admins = await trx.selectFrom('operators').select('operator_id').where('role', '=', 'admin').where('disabled', '=', false).orderBy('operator_id').forNoKeyUpdate().execute();
  if (!admins.some((a) => a.operator_id === actor.operatorId)) throw new NoLongerAdmin('your account is no longer an enabled admin: nothing was changed');
  return admins;
}

/** Sandbox demo operators (decision 0029): demo-viewer, demo-agent and demo-admin with one password, created when missing. */
export async function seedDemoOperators(db: Kysely<Database>, password: string, now: Date): Promise<void> {
  for (const role of ROLES) {
    const login = `demo-${role}`;
    const exists = await db.selectFrom('operators').select('operator_id').where('login', '=', login).executeTakeFirst();
    if (exists) continue;
    try {
      await createOperator(db, { login, password, role }, now, SANDBOX_ACTOR);
    } catch (err) {
      if (!(err instanceof OperatorError && /exists already/.test(err.message))) throw err;
    }
  }
}
