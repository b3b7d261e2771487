// Operator accounts managed from the console (admins; docs/console.md "Operators"): the same account changes as
// `postbook operators …` (./operators.ts), each audited with the admin who made it. A password is made by the
// service and answered once (an admin never chooses another operator's password, nor sees it again); an admin
// does not disable or demote their own account, and no change leaves the console without an enabled admin.
import type { Kysely } from 'kysely';
import type { Database, OperatorRole } from '../store/schema.js';
import { ActionRefused } from './actions.js';
import { changeOperator, createOperator, listOperators, newOperatorPassword, NoLongerAdmin, NotYours, OperatorError, UnknownOperator, type Operator, type OperatorChange } from './operators.js';

export interface OperatorAdminDeps {
  db: Kysely<Database>;
  now: () => Date;
}

export interface OperatorView {
  login: string;
  role: OperatorRole;
  disabled: boolean;
  createdAt: string;
  lastLoginAt: string | null;
  /** The operator reading the page: their own account's role and state are changed by another admin. */
  you: boolean;
}

export async function operatorsView(deps: OperatorAdminDeps, reader: Operator): Promise<OperatorView[]> {
  return (await listOperators(deps.db)).map((o) => ({
    login: o.login,
    role: o.role,
    disabled: o.disabled,
    createdAt: o.createdAt.toISOString(),
    lastLoginAt: o.lastLoginAt ? o.lastLoginAt.toISOString() : null,
    you: o.operatorId === reader.operatorId,
  }));
}

/** A new account with a password made here: answered once, with the login as stored (lower case). */
export async function addOperator(deps: OperatorAdminDeps, admin: Operator, login: string, role: OperatorRole): Promise<{ login: string; role: OperatorRole; password: string }> {
  const password = newOperatorPassword();
  const made = await refusals(() => createOperator(deps.db, { login, password, role }, deps.now(), admin, { asAdmin: true }));
  return { login: made.login, role: made.role, password };
}

export async function changeOperatorFromConsole(deps: OperatorAdminDeps, admin: Operator, login: string, change: Exclude<OperatorChange, { kind: 'password' }>): Promise<{ login: string; role: OperatorRole; disabled: boolean }> {
  const op = await refusals(() => changeOperator(deps.db, login, change, deps.now(), admin, { asAdmin: true }));
  return { login: op.login, role: op.role, disabled: op.disabled };
}

/** A new password made here, answered once; the account's console sessions end (as `postbook operators password`). */
export async function resetOperatorPassword(deps: OperatorAdminDeps, admin: Operator, login: string): Promise<{ login: string; password: string }> {
  const password = newOperatorPassword();
  const op = await refusals(() => changeOperator(deps.db, login, { kind: 'password', password }, deps.now(), admin, { asAdmin: true }));
  return { login: op.login, password };
}

/**
 * OperatorError as the console answers it: 403 an admin no longer one, 404 an unknown login, 400 a login or role not
 * allowed, 409 the rest (your own account, taken, already so, the last admin).
 */
async function refusals<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!(err instanceof OperatorError)) throw err;
    if (err instanceof NotYours) throw new ActionRefused(409, err.message);
    const status = err instanceof NoLongerAdmin ? 403 : err instanceof UnknownOperator ? 404 : /^(login|role): /.test(err.message) ? 400 : 409;
    throw new ActionRefused(status, err.message.replace(' (see: postbook operators list)', ''));
  }
}
