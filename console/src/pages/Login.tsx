import { useState, type FormEvent } from 'react';
import { api, ApiFailure, type SessionInfo } from '../api.ts';

export function Login({ onLogin }: { onLogin: (s: SessionInfo) => void }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onLogin(await api.login(login, password));
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the service cannot be reached');
      setPassword('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" className="login">
      <h1>postbook console</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'login-error' : undefined}>
        <label htmlFor="login">Login</label>
        <input id="login" name="login" autoComplete="username" required value={login} onChange={(e) => setLogin(e.target.value)} autoFocus />
        <label htmlFor="password">Password</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
        {error ? (
          <p id="login-error" role="alert" className="error">
            {error}
          </p>
        ) : null}
        <button type="submit" disabled={busy}>
          {busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
      <p className="hint">Operators are created by an admin on the console's Operators page, or with <code>postbook operators add LOGIN --role ROLE</code> (docs/console.md).</p>
    </main>
  );
}
