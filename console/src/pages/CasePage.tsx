// One console case: the request as the client submitted it, the order, and the agent's decision: approve (a
// refund enters the normal lifecycle) or reject with a cancelReason of spec 2.11.
import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, type CaseDetail, type Meta, type Role } from '../api.ts';
import { approveConfirmation, estimateText } from '../case-estimate.ts';
import { Link, useRouter } from '../router.tsx';
import { REASON, when } from '../format.ts';
import { Action, Audit, OrderSection } from './parts.tsx';

export function CasePage({ id, role }: { id: string; role: Role }) {
  const { navigate } = useRouter();
  const [c, setC] = useState<CaseDetail | null>(null);
  const [meta, setMeta] = useState<Meta | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api.case(id).then((d) => setC(d.case), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the case cannot be loaded'));
  }, [id]);
  useEffect(load, [load]);
  useEffect(() => {
    api.meta().then((m) => (setMeta(m), setReason((r) => r || (m.cancelReasons[0] ?? ''))), () => undefined);
  }, []);
  if (error) return <main id="main"><h1>Case {id}</h1><p role="alert" className="error">{error}</p></main>;
  if (!c) return <main id="main"><h1>Case {id}</h1><p className="loading">Loading…</p></main>;
  const pending = c.caseStatus === 'pending';
  const decided = pending ? { allowed: true as const } : { allowed: false as const, why: `already ${c.caseStatus}` };
  return (
    <main id="main">
      <p><Link to="/cases">← Console cases</Link></p>
      <h1>Case {c.caseId} <span className="badge" data-testid="case-status">{c.caseStatus}</span></h1>
      <dl className="facts">
        <dt>Client</dt><dd>{c.clientId}</dd>
        <dt>Received</dt><dd>{when(c.createdAt)}</dd>
        <dt>Why here</dt><dd>a voluntary refund after departure (refund.do answered 825)</dd>
        {pending ? (
          <>
            <dt>Estimated refund</dt>
            <dd data-testid="case-estimate">
              {c.estimate && !('unavailable' in c.estimate) ? (
                <>{estimateText(c.estimate)} <small className="why">an estimate priced {when(c.estimate.pricedAt)}: the approval prices it again{c.estimate.path === 'deposit' ? '; paid by deposit, the refund cannot be withdrawn once created' : ''}</small></>
              ) : (
                <span className="error">{estimateText(c.estimate)}</span>
              )}
            </dd>
          </>
        ) : null}
        {!pending ? (<><dt>Decision</dt><dd>{c.caseStatus} by {c.decidedBy} {when(c.decidedAt)}{c.cancelReason ? `: ${c.cancelReason}` : ''}{c.refundCode ? <> → refund <Link to={`/refunds/${c.refundCode}`}>{c.refundCode}</Link></> : null}</dd></>) : null}
      </dl>
      <section aria-labelledby="decide-h" className="actions">
        <h2 id="decide-h">Decision</h2>
        <p>
          <Action label="Approve" role={role} allowed={decided} confirm={approveConfirmation(c.estimate)} run={() => api.approve(c.caseId)} done={(res) => navigate(`/refunds/${(res as { refundCode: string }).refundCode}`)} />
        </p>
        <div className="reject">
          <label htmlFor="cancel-reason">Cancel reason (spec 2.11)</label>
          <select id="cancel-reason" value={reason} onChange={(e) => setReason(e.target.value)} disabled={!pending}>
            {meta?.cancelReasons.map((r) => <option key={r}>{r}</option>)}
          </select>{' '}
          <Action label="Reject" role={role} allowed={decided} confirm="Reject this request?" run={() => api.reject(c.caseId, reason)} done={load} />
        </div>
      </section>
      <section aria-labelledby="request-h">
        <h2 id="request-h">Request as submitted</h2>
        <table>
          <thead><tr><th scope="col">Passenger</th><th scope="col">Reason</th><th scope="col">Segments</th></tr></thead>
          <tbody>
            {c.request.refundRequestList.map((p, i) => (
              <tr key={i}>
                <td>{p.lastName}/{p.firstName}</td>
                <td>{p.refundReason} {REASON[p.refundReason]}</td>
                <td>{p.segments.map((s) => `${s.flightNo} ${s.depAirport}-${s.arrAirport} ${s.depDate}`).join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <OrderSection order={c.order} />
      <Audit items={c.audit} />
    </main>
  );
}
