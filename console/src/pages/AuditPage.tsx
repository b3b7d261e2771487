// The whole audit log (admins): every console action, login and logout, newest first, optionally of one target.
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiFailure, type AuditEntry } from '../api.ts';
import { Audit } from './parts.tsx';

export function AuditPage() {
  const [target, setTarget] = useState('');
  const [applied, setApplied] = useState('');
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const failed = (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the audit log cannot be loaded');
  // Each list (a target applied) is a generation: an answer for an earlier one is dropped, never added to this one.
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setEntries(null);
    setNext(null);
    setLoadingMore(false);
    api.audit(applied).then((d) => mine === generation.current && (setEntries(d.entries), setNext(d.next)), (e: unknown) => mine === generation.current && failed(e));
  }, [applied]);
  const more = () => {
    if (next === null) return;
    const mine = generation.current;
    setLoadingMore(true);
    api.audit(applied, next).then(
      (d) => mine === generation.current && (setEntries((shown) => [...(shown ?? []), ...d.entries]), setNext(d.next), setLoadingMore(false)),
      (e: unknown) => mine === generation.current && (failed(e), setLoadingMore(false)),
    );
  };
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
      {!entries ? <p className="loading">Loading…</p> : <Audit items={entries} showTarget title={`${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}${next !== null ? ' shown' : ''}, newest first`} />}
      {entries && next !== null ? (
        <nav className="pager" aria-label="Older entries">
          <button type="button" disabled={loadingMore} onClick={more}>
            {loadingMore ? 'Loading…' : 'Older entries'}
          </button>
        </nav>
      ) : null}
    </main>
  );
}
