// The console cases: refund.do requests answered 825 (voluntary refund after departure), waiting for an agent.
import { useEffect, useRef, useState } from 'react';
import { api, ApiFailure, type CaseSummary } from '../api.ts';
import { Link } from '../router.tsx';
import { when } from '../format.ts';

export function Cases() {
  const [status, setStatus] = useState<'pending' | 'approved' | 'rejected'>('pending');
  const [cases, setCases] = useState<CaseSummary[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const failed = (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the cases cannot be loaded');
  // Each list (a status chosen) is a generation: an answer for an earlier one is dropped, never added to this one.
  const generation = useRef(0);
  useEffect(() => {
    const mine = ++generation.current;
    setCases(null);
    setNext(null);
    setLoadingMore(false);
    api.cases(status).then((d) => mine === generation.current && (setCases(d.cases), setNext(d.next)), (e: unknown) => mine === generation.current && failed(e));
  }, [status]);
  const more = () => {
    if (!next) return;
    const mine = generation.current;
    setLoadingMore(true);
    api.cases(status, next).then(
      (d) => mine === generation.current && (setCases((shown) => [...(shown ?? []), ...d.cases]), setNext(d.next), setLoadingMore(false)),
      (e: unknown) => mine === generation.current && (failed(e), setLoadingMore(false)),
    );
  };
  return (
    <main id="main">
      <h1>Console cases</h1>
      <p>Voluntary refunds requested after departure: refund.do answered 825 and recorded the request here for an agent to approve or reject.</p>
      <div className="filters">
        <div>
          <label htmlFor="case-status">Cases</label>
          <select id="case-status" value={status} onChange={(e) => setStatus(e.target.value as typeof status)}>
            <option value="pending">waiting for a decision</option>
            <option value="approved">approved</option>
            <option value="rejected">rejected</option>
          </select>
        </div>
      </div>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {!cases ? <p className="loading">Loading…</p> : cases.length === 0 ? <p>No {status} case.</p> : (
        <table>
          <thead><tr><th scope="col">Case</th><th scope="col">Received</th><th scope="col">Client</th><th scope="col">Order</th><th scope="col">Airline / PNR</th><th scope="col">Decision</th></tr></thead>
          <tbody>
            {cases.map((c) => (
              <tr key={c.caseId}>
                <td><Link to={`/cases/${c.caseId}`}>{c.caseId}</Link></td>
                <td>{when(c.createdAt)}</td>
                <td>{c.clientId}</td>
                <td>{c.orderNo}</td>
                <td>{c.carrier} {c.airlinePnr ?? ''}</td>
                <td>{c.status === 'pending' ? 'waiting' : `${c.status} by ${c.decidedBy ?? '?'} ${when(c.decidedAt)}`}{c.refundCode ? <> → <Link to={`/refunds/${c.refundCode}`}>{c.refundCode}</Link></> : null}{c.cancelReason ? `: ${c.cancelReason}` : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cases && next ? (
        <nav className="pager" aria-label="More cases">
          <button type="button" disabled={loadingMore} onClick={more}>
            {loadingMore ? 'Loading…' : `More cases (${cases.length} shown)`}
          </button>
        </nav>
      ) : null}
    </main>
  );
}
