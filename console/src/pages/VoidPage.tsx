import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, type Role, type VoidDetail } from '../api.ts';
import { Link } from '../router.tsx';
import { day, money, VOID_STATUS, when } from '../format.ts';
import { OrderSection, Timeline, Webhooks } from './parts.tsx';

export function VoidPage({ code, role }: { code: string; role: Role }) {
  const [v, setV] = useState<VoidDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    api.void(code).then((d) => setV(d.void), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the void cannot be loaded'));
  }, [code]);
  useEffect(load, [load]);
  if (error) return <main id="main"><h1>Void {code}</h1><p role="alert" className="error">{error}</p></main>;
  if (!v) return <main id="main"><h1>Void {code}</h1><p className="loading">Loading…</p></main>;
  return (
    <main id="main">
      <p><Link to="/">← Refund queue</Link></p>
      <h1>
        <span className="badge void">VOID</span> {v.voidCode} <span className="badge">{v.status} {VOID_STATUS[v.status]}</span>
      </h1>
      <dl className="facts">
        <dt>Client</dt><dd>{v.clientId}</dd>
        <dt>Path</dt><dd>{v.path}</dd>
        <dt>Void amount</dt><dd>{money(v.voidAmountMinor, v.currency)}</dd>
        <dt>Actual refund</dt><dd>{money(v.actualRefundMinor, v.currency)}</dd>
        <dt>Tickets</dt><dd>{v.ticketNos.join(', ')}</dd>
        <dt>Airline void id</dt><dd>{v.airlineVoidId ?? '—'}</dd>
        <dt>Cancel reason</dt><dd>{v.cancelReason ?? '—'}</dd>
        <dt>Completed</dt><dd>{day(v.completedOn)}</dd>
        <dt>Next airline call</dt>
        <dd data-testid="void-next-call">
          {v.nextCall
            ? `${v.status === 0 ? 'submission' : 'status look'} due ${when(v.nextCall.due)}${v.nextCall.failedAttempts > 0 ? `, after ${v.nextCall.failedAttempts} failed call(s)` : ''}${v.nextCall.lastError ? ` (last error: ${v.nextCall.lastError})` : ''}`
            : 'none (final)'}
        </dd>
        <dt>Created / updated</dt><dd>{when(v.createdAt)} / {when(v.updatedAt)}</dd>
      </dl>
      <Timeline items={v.timeline} names={VOID_STATUS} />
      <OrderSection order={v.order} />
      <Webhooks items={v.webhooks} role={role} onChange={load} />
    </main>
  );
}
