// The whole audit log (admins): every console action, login and logout, newest first, optionally of one target.
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, type AuditEntry } from '../api.ts';
import { Audit } from './parts.tsx';

export function AuditPage() {
  const [target, setTarget] = useState('');
  const [applied, setApplied] = useState('');
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEntries(null);
    api.audit(applied).then((d) => setEntries(d.entries), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the audit log cannot be loaded'));
  }, [applied]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied(target.trim());
  };
  return (
    <main id="main">
      <h1>Audit log</h1>
      <form className="filters" onSubmit={submit} aria-label="Filter the audit log">
        <div>
          <label htmlFor="audit-target">Target (e.g. refund:1234…, case:cc_…, client:demo-agency, operator:ada.admin)</label>
          <input id="audit-target" size={40} value={target} onChange={(e) => setTarget(e.target.value)} />
        </div>
        <button type="submit">Show</button>
      </form>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {!entries ? <p className="loading">Loading…</p> : <Audit items={entries} showTarget title={`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} (at most 200, newest first)`} />}
    </main>
  );
}
