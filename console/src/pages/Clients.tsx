// API clients (admins): create one (its secret is shown once, here), rotate a secret with a grace period for
// the old one, disable or enable. Other roles are told the page is for admins; the service refuses them too.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, type ClientView, type Role } from '../api.ts';
import { when } from '../format.ts';
import { Action } from './parts.tsx';

function SecretOnce({ clientId, secret, onDone }: { clientId: string; secret: string; onDone: () => void }) {
  return (
    <section role="status" className="notice secret" aria-labelledby="secret-h">
      <h2 id="secret-h">Secret of {clientId}</h2>
      <p>Shown only now: copy it to the client's configuration. postbook keeps only its hash.</p>
      <p>
        <label htmlFor="secret-value">Secret</label>
        <input id="secret-value" readOnly value={secret} size={40} onFocus={(e) => e.target.select()} data-testid="secret" />
      </p>
      <button type="button" onClick={onDone}>I stored it</button>
    </section>
  );
}

export function Clients({ role }: { role: Role }) {
  const [clients, setClients] = useState<ClientView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<{ clientId: string; secret: string } | null>(null);
  const [newId, setNewId] = useState('');
  const [newName, setNewName] = useState('');
  const [grace, setGrace] = useState<Record<string, string>>({});
  const load = useCallback(() => {
    api.clients().then((d) => (setClients(d.clients), setError(null)), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the clients cannot be loaded'));
  }, []);
  useEffect(load, [load]);

  if (role !== 'admin') return <main id="main"><h1>Clients</h1><p>Client management is for admins.</p></main>;
  const create = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const { secret } = await api.addClient(newId, newName);
      setShown({ clientId: newId, secret });
      setNewId('');
      setNewName('');
      load();
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the client cannot be created');
    }
  };
  return (
    <main id="main">
      <h1>Clients</h1>
      {shown ? <SecretOnce {...shown} onDone={() => setShown(null)} /> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <form className="filters" onSubmit={(e) => void create(e)} aria-label="New client">
        <div>
          <label htmlFor="new-id">Client id</label>
          <input id="new-id" required pattern="[A-Za-z0-9._\-]{3,64}" value={newId} onChange={(e) => setNewId(e.target.value)} />
        </div>
        <div>
          <label htmlFor="new-name">Name</label>
          <input id="new-name" required maxLength={200} value={newName} onChange={(e) => setNewName(e.target.value)} />
        </div>
        <button type="submit">Create client</button>
      </form>
      {!clients ? <p className="loading">Loading…</p> : (
        <table>
          <thead>
            <tr><th scope="col">Client</th><th scope="col">Status</th><th scope="col">Settings</th><th scope="col">Webhook URL</th><th scope="col">Old secret valid until</th><th scope="col">Actions</th></tr>
          </thead>
          <tbody>
            {clients.map((c) => (
              <tr key={c.clientId} data-client={c.clientId}>
                <td><strong>{c.clientId}</strong><br />{c.name}</td>
                <td>{c.status}</td>
                <td><code>{Object.keys(c.settings).length ? JSON.stringify(c.settings) : '—'}</code></td>
                <td>{c.webhookUrl ?? '—'}</td>
                <td>{when(c.previousSecretExpiresAt)}</td>
                <td>
                  <label htmlFor={`grace-${c.clientId}`}>Grace for {c.clientId} (hours)</label>
                  <input id={`grace-${c.clientId}`} type="number" min={0} max={720} size={4} value={grace[c.clientId] ?? '24'} onChange={(e) => setGrace({ ...grace, [c.clientId]: e.target.value })} />{' '}
                  <Action label={`Rotate ${c.clientId}`} needs="admin" role={role} allowed={{ allowed: true }} confirm="The old secret keeps working for the grace period." run={() => api.rotateClient(c.clientId, Number(grace[c.clientId] ?? '24'))} done={(r) => (setShown({ clientId: c.clientId, secret: (r as { secret: string }).secret }), load())} />
                  <Action label={c.status === 'active' ? `Disable ${c.clientId}` : `Enable ${c.clientId}`} needs="admin" role={role} allowed={{ allowed: true }} confirm={c.status === 'active' ? "Refuse the client's calls from now on?" : undefined} run={() => api.setClientStatus(c.clientId, c.status === 'active' ? 'disable' : 'enable')} done={load} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
