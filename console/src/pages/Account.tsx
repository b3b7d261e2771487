// Your account (every role): your login and role, and a new password — the current one asked for, the new one
// twice. The change ends every console session of the account, this one included, and the service answers a new
// session for this page (another browser logged in as you is logged out).
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, type SessionInfo } from '../api.ts';

const MIN_PASSWORD = 12;

export function Account({ session, onSession }: { session: SessionInfo; onSession: (s: SessionInfo) => void }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setNotice(null);
    if (next !== repeat) return setError('the new password and its repetition differ');
    if (next.length < MIN_PASSWORD) return setError(`the new password needs at least ${MIN_PASSWORD} characters`);
    setBusy(true);
    setError(null);
    try {
      onSession(await api.changeOwnPassword(current, next));
      setNotice('Your password is changed; your other console sessions are logged out.');
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the service cannot be reached');
    } finally {
      setCurrent('');
      setNext('');
      setRepeat('');
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <h1>Your account</h1>
      <dl className="facts">
        <dt>Login</dt><dd>{session.operator.login}</dd>
        <dt>Role</dt><dd>{session.operator.role}</dd>
      </dl>
      <h2>New password</h2>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <form className="filters" onSubmit={(e) => void submit(e)} aria-label="New password">
        <div>
          <label htmlFor="current-password">Current password</label>
          <input id="current-password" type="password" autoComplete="current-password" required value={current} onChange={(e) => setCurrent(e.target.value)} />
        </div>
        <div>
          <label htmlFor="new-password">New password ({MIN_PASSWORD} characters or more)</label>
          <input id="new-password" type="password" autoComplete="new-password" required minLength={MIN_PASSWORD} value={next} onChange={(e) => setNext(e.target.value)} />
        </div>
        <div>
          <label htmlFor="repeat-password">New password again</label>
          <input id="repeat-password" type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />
        </div>
        <button type="submit" disabled={busy}>{busy ? 'Changing…' : 'Change password'}</button>
      </form>
    </main>
  );
}
