// API clients (admins): create one (its secret is shown once, here), rotate a secret with a grace period for
// the old one, disable or enable. Other roles are told the page is for admins; the service refuses them too.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Fragment } from 'react';
import { api, ApiFailure, type ClientUsage, type ClientView, type Role } from '../api.ts';
import { graceHours, MAX_GRACE_HOURS, rotateConfirmation, settingsEdit, SETTINGS_FIELDS } from '../client-forms.ts';
import { when } from '../format.ts';
import { Action } from './parts.tsx';

function initialValues(c: ClientView): Record<string, string> {
  const s = c.settings as { refundServiceFee?: string; refundCriteria?: { minMinutesBeforeDeparture?: number }; rateLimits?: Record<string, number>; lookToBook?: { maxRatio?: number; minRequests?: number } };
  const str = (v: string | number | undefined) => (v === undefined ? "" : String(v));
  return {
    refundServiceFee: str(s.refundServiceFee),
    minMinutesBeforeDeparture: str(s.refundCriteria?.minMinutesBeforeDeparture),
    ancillaryPerMinute: str(s.rateLimits?.ancillaryPerMinute),
    verifyPerMinute: str(s.rateLimits?.verifyPerMinute),
    pnrPerMinute: str(s.rateLimits?.pnrPerMinute),
    searchPerSecond: str(s.rateLimits?.searchPerSecond),
    maxRatio: str(s.lookToBook?.maxRatio),
    minRequests: str(s.lookToBook?.minRequests),
  };
}

function SettingsForm({ client, onSaved, onCancel }: { client: ClientView; onSaved: () => void; onCancel: () => void }) {
  const [values, setValues] = useState(() => initialValues(client));
  // The version of the settings the form shows: the service refuses the edit (409) when they changed since (another
  // admin's edit, a world reload), which sending every key of older values would silently undo.
  const [version, setVersion] = useState(client.settingsVersion);
  const [error, setError] = useState<string | null>(null);
  const [stale, setStale] = useState(false);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    // An unreadable number is refused here, never sent: Number('14 h') is NaN, which JSON sends as null, and
    // null removes the setting (the 840-minute criterion gone, reported as saved).
    const { body, error: invalid } = settingsEdit(values);
    if (!body) {
      setError(invalid);
      return;
    }
    setError(null);
    setStale(false);
    try {
      await api.clientSettings(client.clientId, Object.assign(body, { settingsVersion: version }));
      onSaved();
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the settings cannot be saved');
      setStale(err instanceof ApiFailure && err.httpStatus === 409 && /changed since/.test(err.message));
    }
  };
  const reload = async () => {
    try {
      const now = (await api.clients()).clients.find((c) => c.clientId === client.clientId);
      if (!now) throw new ApiFailure(404, `no client ${client.clientId}`);
      setValues(initialValues(now));
      setVersion(now.settingsVersion);
      setStale(false);
      setError(null);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the settings cannot be loaded');
    }
  };
  return (
    <form onSubmit={(e) => void save(e)} aria-label={`Settings of ${client.clientId}`} className="settings">
      {SETTINGS_FIELDS.map((f) => (
        <div key={f.key}>
          <label htmlFor={`${client.clientId}-${f.key}`}>{f.label}</label>
          <input id={`${client.clientId}-${f.key}`} value={values[f.key]} onChange={(e) => setValues({ ...values, [f.key]: e.target.value })} aria-describedby={`${client.clientId}-${f.key}-hint`} />
          <small id={`${client.clientId}-${f.key}-hint`} className="why"> {f.hint}</small>
        </div>
      ))}
      {error ? <p role="alert" className="error">{error}</p> : null}
      {stale ? <p><button type="button" onClick={() => void reload()}>Reload the settings of {client.clientId}</button> <small className="why">your changes in this form are replaced by the settings as they are now</small></p> : null}
      <button type="submit">Save settings of {client.clientId}</button> <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

/** How often the live usage is read again while the page is open. */
const USAGE_EVERY_MS = 5_000;

/** Each pool's used/limit in its current window, and the look-to-book ratio of the last 24 h. */
function LiveUsage({ usage }: { usage: ClientUsage | undefined }) {
  if (!usage) return <span className="why">…</span>;
  const l2b = usage.lookToBook;
  return (
    <ul className="usage" aria-label={`Live usage of ${usage.clientId}`}>
      {usage.pools === null ? <li>pools: not readable now</li> : usage.pools.map((p) => (
        <li key={p.pool} className={p.used >= p.limit ? 'late' : undefined}>
          {p.pool}: <strong>{p.used}/{p.limit}</strong> in {p.windowSeconds} s
        </li>
      ))}
      {l2b === null ? <li>look-to-book: not readable now</li> : (
        <li className={l2b.exceeded ? 'late' : undefined}>
          look-to-book: <strong>{l2b.ratio.toFixed(1)}</strong> ({l2b.seatRequests} seat requests, {l2b.paidOrders} paid orders in 24 h)
          {l2b.setting ? <>; limit {l2b.setting.maxRatio} after {l2b.setting.minRequests}{l2b.exceeded ? ' — refusing (223)' : ''}</> : '; no limit'}
        </li>
      )}
    </ul>
  );
}

function WebhookForm({ client, onSaved, onSecret, onCancel }: { client: ClientView; onSaved: () => void; onSecret: (secret: string) => void; onCancel: () => void }) {
  const [url, setUrl] = useState(client.webhookUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const send = async (next: string | null, rotate: boolean) => {
    try {
      const r = await api.clientWebhook(client.clientId, next, rotate);
      if (r.secret) onSecret(r.secret);
      onSaved();
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the webhook URL cannot be saved');
    }
  };
  return (
    <form onSubmit={(e) => (e.preventDefault(), void send(url, false))} aria-label={`Webhook of ${client.clientId}`} className="settings">
      <div>
        <label htmlFor={`${client.clientId}-webhook`}>Webhook URL of {client.clientId}</label>
        <input id={`${client.clientId}-webhook`} type="url" size={50} maxLength={2048} required value={url} onChange={(e) => setUrl(e.target.value)} aria-describedby={`${client.clientId}-webhook-hint`} />
        <small id={`${client.clientId}-webhook-hint`} className="why"> the signing secret is made with the first URL and shown once</small>
      </div>
      {error ? <p role="alert" className="error">{error}</p> : null}
      <button type="submit">Save webhook of {client.clientId}</button>{' '}
      {client.webhookUrl ? (
        <>
          <button type="button" onClick={() => window.confirm('Make a new signing secret? The old one stops signing at once.') && void send(client.webhookUrl, true)}>New signing secret for {client.clientId}</button>{' '}
          <button type="button" onClick={() => window.confirm('Remove the webhook URL? No more events are delivered.') && void send(null, false)}>Remove webhook of {client.clientId}</button>{' '}
        </>
      ) : null}
      <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

function SecretOnce({ clientId, secret, onDone, what = 'Secret' }: { clientId: string; secret: string; onDone: () => void; what?: string }) {
  return (
    <section role="status" className="notice secret" aria-labelledby="secret-h">
      <h2 id="secret-h">{what} of {clientId}</h2>
      <p>Shown only now: copy it to the client's configuration. postbook does not show it again.</p>
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
  const [shown, setShown] = useState<{ clientId: string; secret: string; what?: string } | null>(null);
  const [usage, setUsage] = useState<Record<string, ClientUsage>>({});
  const [webhookOf, setWebhookOf] = useState<string | null>(null);
  const [newId, setNewId] = useState('');
  const [newName, setNewName] = useState('');
  const [grace, setGrace] = useState<Record<string, string>>({});
  // Empty or unreadable grace blocks the rotation (Number('') was 0: the old secret ended at once while the
  // confirmation said it kept working); the confirmation names the hours asked for.
  const graceOf = (clientId: string) => graceHours(grace[clientId] ?? '24');
  const rotateAllowed = (clientId: string): { allowed: true } | { allowed: false; why: string } => {
    const g = graceOf(clientId);
    return g.hours === null ? { allowed: false, why: g.error } : { allowed: true };
  };
  const rotate = (clientId: string) => {
    const g = graceOf(clientId);
    return g.hours === null ? Promise.reject(new ApiFailure(400, g.error)) : api.rotateClient(clientId, g.hours);
  };
  const [editing, setEditing] = useState<string | null>(null);
  const load = useCallback(() => {
    api.clients().then((d) => (setClients(d.clients), setError(null)), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the clients cannot be loaded'));
  }, []);
  useEffect(load, [load]);
  useEffect(() => {
    if (role !== 'admin') return undefined;
    let stop = false;
    const read = () =>
      api.clientsUsage().then(
        (d) => !stop && setUsage(Object.fromEntries(d.clients.map((u) => [u.clientId, u]))),
        () => undefined, // the table keeps the last figures; the next read may work
      );
    void read();
    const timer = window.setInterval(() => void read(), USAGE_EVERY_MS);
    return () => {
      stop = true;
      window.clearInterval(timer);
    };
  }, [role]);

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
            <tr><th scope="col">Client</th><th scope="col">Status</th><th scope="col">Settings</th><th scope="col">Live usage</th><th scope="col">Webhook URL</th><th scope="col">Old secret valid until</th><th scope="col">Actions</th></tr>
          </thead>
          <tbody>
            {clients.map((c) => (
              <Fragment key={c.clientId}>
              <tr data-client={c.clientId}>
                <td><strong>{c.clientId}</strong><br />{c.name}</td>
                <td>{c.status}</td>
                <td><code>{Object.keys(c.settings).length ? JSON.stringify(c.settings) : '—'}</code></td>
                <td><LiveUsage usage={usage[c.clientId]} /></td>
                <td>{c.webhookUrl ?? '—'}</td>
                <td>{when(c.previousSecretExpiresAt)}</td>
                <td>
                  <label htmlFor={`grace-${c.clientId}`}>Grace for {c.clientId} (hours)</label>
                  <input id={`grace-${c.clientId}`} type="number" min={0} max={MAX_GRACE_HOURS} size={4} value={grace[c.clientId] ?? '24'} onChange={(e) => setGrace({ ...grace, [c.clientId]: e.target.value })} />{' '}
                  <Action label={`Rotate ${c.clientId}`} needs="admin" role={role} allowed={rotateAllowed(c.clientId)} confirm={rotateConfirmation(graceOf(c.clientId).hours ?? 0)} run={() => rotate(c.clientId)} done={(r) => (setShown({ clientId: c.clientId, secret: (r as { secret: string }).secret }), load())} />
                  <Action label={c.status === 'active' ? `Disable ${c.clientId}` : `Enable ${c.clientId}`} needs="admin" role={role} allowed={{ allowed: true }} confirm={c.status === 'active' ? "Refuse the client's calls from now on?" : undefined} run={() => api.setClientStatus(c.clientId, c.status === 'active' ? 'disable' : 'enable')} done={load} />
                  <button type="button" aria-expanded={editing === c.clientId} onClick={() => setEditing(editing === c.clientId ? null : c.clientId)}>Settings of {c.clientId}</button>
                  <button type="button" aria-expanded={webhookOf === c.clientId} onClick={() => setWebhookOf(webhookOf === c.clientId ? null : c.clientId)}>Webhook of {c.clientId}</button>
                </td>
              </tr>
              {editing === c.clientId ? (
                <tr>
                  <td colSpan={7}>
                    <SettingsForm client={c} onCancel={() => setEditing(null)} onSaved={() => (setEditing(null), load())} />
                  </td>
                </tr>
              ) : null}
              {webhookOf === c.clientId ? (
                <tr>
                  <td colSpan={7}>
                    <WebhookForm client={c} onCancel={() => setWebhookOf(null)} onSecret={(secret) => setShown({ clientId: c.clientId, secret, what: 'Webhook signing secret' })} onSaved={() => (setWebhookOf(null), load())} />
                  </td>
                </tr>
              ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
