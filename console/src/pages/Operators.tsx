// Operator accounts (admins): add one (its password is made by the service and shown once, here), change a role
// (picked, then applied with a confirmation), disable or enable, make a new password (its sessions end). An admin's own account is changed by another admin;
// the service refuses a change that would leave no enabled admin. Other roles are told the page is for admins.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, type OperatorView, type Role } from '../api.ts';
import { when } from '../format.ts';
import { Action } from './parts.tsx';

const ROLES: Role[] = ['viewer', 'agent', 'admin'];

function PasswordOnce({ login, password, onDone }: { login: string; password: string; onDone: () => void }) {
  return (
    <section role="status" className="notice secret" aria-labelledby="password-h">
      <h2 id="password-h">Password of {login}</h2>
      <p>Shown only now: hand it to {login} by a safe way. postbook does not show it again.</p>
      <p>
        <label htmlFor="password-value">Password</label>
        <input id="password-value" readOnly value={password} size={30} onFocus={(e) => e.target.select()} data-testid="operator-password" />
      </p>
      <button type="button" onClick={onDone}>I handed it over</button>
    </section>
  );
}

export function Operators({ role }: { role: Role }) {
  const [operators, setOperators] = useState<OperatorView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ login: string; password: string } | null>(null);
  const [newLogin, setNewLogin] = useState('');
  const [newRole, setNewRole] = useState<Role>('viewer');
  const [busy, setBusy] = useState(false);
  /** Roles picked in a row's select, not yet applied (a select changes nothing on its own: arrow keys step through it). */
  const [draft, setDraft] = useState<Record<string, Role>>({});
  // an error stays until the next action succeeds (a reload after a refusal does not clear it)
  const load = useCallback(() => {
    api.operators().then((d) => setOperators(d.operators), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the operators cannot be loaded'));
  }, []);
  /** After an action: the table again, a password shown earlier hidden (it belongs to the action before). */
  const acted = (password?: { login: string; password: string }) => {
    setError(null);
    setShown(password ?? null);
    load();
  };
  useEffect(() => {
    if (role === 'admin') load();
  }, [load, role]);

  if (role !== 'admin') return <main id="main"><h1>Operators</h1><p>Operator accounts are for admins.</p></main>;
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setShown(null);
    try {
      const made = await api.addOperator(newLogin, newRole);
      setNewLogin('');
      setNewRole('viewer');
      acted({ login: made.login, password: made.password });
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the operator cannot be created');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <h1>Operators</h1>
      <p>Accounts of this console (API clients are on the Clients page). Every change is in the audit log.</p>
      {shown ? <PasswordOnce {...shown} onDone={() => setShown(null)} /> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <form className="filters" onSubmit={(e) => void create(e)} aria-label="New operator">
        <div>
          <label htmlFor="new-login">Login</label>
          <input id="new-login" required pattern="[A-Za-z0-9][A-Za-z0-9._@\-]{2,63}" value={newLogin} onChange={(e) => setNewLogin(e.target.value)} />
        </div>
        <div>
          <label htmlFor="new-role">Role</label>
          <select id="new-role" value={newRole} onChange={(e) => setNewRole(e.target.value as Role)}>
            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
          </select>
        </div>
        <button type="submit" disabled={busy}>Add operator</button>
      </form>
      {!operators ? <p className="loading">Loading…</p> : (
        <table data-testid="operators">
          <thead>
            <tr><th scope="col">Login</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Last login</th><th scope="col">Actions</th></tr>
          </thead>
          <tbody>
            {operators.map((o) => (
              <tr key={o.login} data-operator={o.login}>
                <td><strong>{o.login}</strong>{o.you ? ' (you)' : ''}</td>
                <td>
                  <label htmlFor={`role-${o.login}`} className="visually-hidden">Role of {o.login}</label>
                  <select id={`role-${o.login}`} value={draft[o.login] ?? o.role} disabled={o.you} onChange={(e) => setDraft({ ...draft, [o.login]: e.target.value as Role })}>
                    {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                  </select>{' '}
                  {(draft[o.login] ?? o.role) !== o.role ? (
                    <Action
                      label={`Apply role for ${o.login}`}
                      needs="admin"
                      role={role}
                      allowed={{ allowed: true }}
                      confirm={draft[o.login] === 'admin' ? `Make ${o.login} an admin (clients, operators, the whole audit log)?` : `Make ${o.login} ${draft[o.login]}?`}
                      run={() => api.operatorRole(o.login, draft[o.login]!)}
                      done={() => {
                        const { [o.login]: _applied, ...rest } = draft;
                        setDraft(rest);
                        acted();
                      }}
                    />
                  ) : null}
                </td>
                <td>{o.disabled ? 'disabled' : 'enabled'}</td>
                <td>{when(o.createdAt)}</td>
                <td>{o.lastLoginAt ? when(o.lastLoginAt) : 'never'}</td>
                <td>
                  <Action
                    label={o.disabled ? `Enable ${o.login}` : `Disable ${o.login}`}
                    needs="admin"
                    role={role}
                    allowed={o.you ? { allowed: false, why: 'your own account: another admin changes it' } : { allowed: true }}
                    confirm={o.disabled ? undefined : 'Refuse their logins and end their sessions now?'}
                    run={() => api.setOperatorState(o.login, o.disabled ? 'enable' : 'disable')}
                    done={() => acted()}
                  />
                  <Action
                    label={`New password for ${o.login}`}
                    needs="admin"
                    role={role}
                    allowed={o.you ? { allowed: false, why: 'your own account: another admin changes it' } : { allowed: true }}
                    confirm="The current password stops working and their sessions end."
                    run={() => api.resetOperatorPassword(o.login)}
                    done={(r) => acted(r as { login: string; password: string })}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
