// The refund queue: refunds and voids (marked) filtered and sorted by the service, counts per status, SLA badges.
import { useEffect, useMemo, useState } from 'react';
import { api, ApiFailure, type Meta, type QueueAnswer } from '../api.ts';
import { Link, useRouter } from '../router.tsx';
import { money, REASON, REFUND_STATUS, SLA_TEXT, VOID_STATUS, when } from '../format.ts';

type Field = 'kind' | 'status' | 'airline' | 'client' | 'payment' | 'reason' | 'minAgeHours' | 'late' | 'sort' | 'dir';

export function Queue() {
  const { search, navigate } = useRouter();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const [meta, setMeta] = useState<Meta | null>(null);
  const [data, setData] = useState<QueueAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api.meta().then(setMeta, () => undefined);
  }, []);
  useEffect(() => {
    let live = true;
    api.queue(params).then(
      (d) => live && (setData(d), setError(null)),
      (e: unknown) => live && setError(e instanceof ApiFailure ? e.message : 'the queue cannot be loaded'),
    );
    return () => {
      live = false;
    };
  }, [params]);

  const set = (field: Field, value: string) => {
    const next = new URLSearchParams(params);
    if (value === '') next.delete(field);
    else next.set(field, value);
    next.delete('after');
    next.delete('before');
    navigate(`/?${next.toString()}`, { replace: true });
  };
  /** A status of one kind: both filters at once (a review: a void's count set the status alone and listed refunds too); again, both off. */
  const setKindStatus = (kind: 'refund' | 'void', status: string) => {
    const next = new URLSearchParams(params);
    const on = next.get('status') === status && next.get('kind') === kind;
    for (const [field, value] of [['status', status], ['kind', kind]] as const) {
      if (on) next.delete(field);
      else next.set(field, value);
    }
    next.delete('after');
    next.delete('before');
    navigate(`/?${next.toString()}`, { replace: true });
  };
  const v = (f: Field) => params.get(f) ?? '';
  /**
   * The page after the last row shown or before the first (the service's keyset cursors, as the cases and audit
   * pages page): an offset skipped or repeated rows when the list changed between two pages.
   */
  const page = (way: 'after' | 'before', cursor: string) => {
    const next = new URLSearchParams(params);
    next.delete('after');
    next.delete('before');
    next.set(way, cursor);
    navigate(`/?${next.toString()}`, { replace: true });
  };

  return (
    <main id="main">
      <h1>Refund queue</h1>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <div>
          <label htmlFor="f-kind">Kind</label>
          <select id="f-kind" value={v('kind')} onChange={(e) => set('kind', e.target.value)}>
            <option value="">refunds and voids</option>
            <option value="refund">refunds</option>
            <option value="void">voids</option>
          </select>
        </div>
        <div>
          <label htmlFor="f-status">Status</label>
          <select id="f-status" value={v('status')} onChange={(e) => set('status', e.target.value)}>
            <option value="">any</option>
            {Object.entries(REFUND_STATUS).map(([k, name]) => (
              <option key={k} value={k}>
                {k} {name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-airline">Airline</label>
          <select id="f-airline" value={v('airline')} onChange={(e) => set('airline', e.target.value)}>
            <option value="">any</option>
            {meta?.facets.airlines.map((a) => <option key={a}>{a}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="f-client">Client</label>
          <select id="f-client" value={v('client')} onChange={(e) => set('client', e.target.value)}>
            <option value="">any</option>
            {meta?.facets.clients.map((a) => <option key={a}>{a}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="f-payment">Payment</label>
          <select id="f-payment" value={v('payment')} onChange={(e) => set('payment', e.target.value)}>
            <option value="">any</option>
            {['deposit', 'virtualCard', 'ownAccount', 'merchant'].map((a) => <option key={a}>{a}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="f-reason">Reason</label>
          <select id="f-reason" value={v('reason')} onChange={(e) => set('reason', e.target.value)}>
            <option value="">any</option>
            {Object.entries(REASON).map(([k, name]) => (
              <option key={k} value={k}>
                {k} {name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor="f-age">Older than (hours)</label>
          <input id="f-age" type="number" min={0} max={99999} inputMode="numeric" value={v('minAgeHours')} onChange={(e) => set('minAgeHours', e.target.value.replace(/\D/g, ''))} />
        </div>
        <div className="check">
          <input id="f-late" type="checkbox" checked={v('late') === '1'} onChange={(e) => set('late', e.target.checked ? '1' : '')} />
          <label htmlFor="f-late">Only with an SLA badge</label>
        </div>
        <div>
          <label htmlFor="f-sort">Sort by</label>
          <select id="f-sort" value={v('sort')} onChange={(e) => set('sort', e.target.value)}>
            <option value="">created</option>
            <option value="updated">updated</option>
            <option value="amount">amount, per currency (A–Z)</option>
            <option value="status">status</option>
          </select>
        </div>
        <div>
          <label htmlFor="f-dir">Order</label>
          <select id="f-dir" value={v('dir')} onChange={(e) => set('dir', e.target.value)}>
            <option value="">newest / largest first</option>
            <option value="asc">oldest / smallest first</option>
          </select>
        </div>
      </form>

      {data ? (
        <section aria-label="Counts per status" className="counts">
          {(['refund', 'void'] as const).map((kind) => (
            <p key={kind}>
              <strong>{kind === 'refund' ? 'Refunds' : 'Voids'}:</strong>{' '}
              {Object.keys(data.counts[kind]).length === 0
                ? 'none'
                : Object.entries(data.counts[kind]).map(([st, n]) => (
                    <button type="button" key={st} className="count" aria-pressed={v('status') === st && v('kind') === kind} onClick={() => setKindStatus(kind, st)} data-testid={`count-${kind}-${st}`}>
                      {(kind === 'refund' ? REFUND_STATUS : VOID_STATUS)[Number(st)]}: {n}
                    </button>
                  ))}
            </p>
          ))}
        </section>
      ) : null}

      {error ? <p role="alert" className="error">{error}</p> : null}
      {!data ? (
        <p className="loading">Loading…</p>
      ) : (
        <>
          <table className="queue">
            <caption>
              {data.total} item(s){data.total > data.items.length ? `, showing ${data.items.length}` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Status</th>
                <th scope="col">Client</th>
                <th scope="col">Order</th>
                <th scope="col">Airline</th>
                <th scope="col">Payment</th>
                <th scope="col">Reason</th>
                <th scope="col" className="num">Amount</th>
                <th scope="col">Created</th>
                <th scope="col">SLA</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((i) => (
                <tr key={`${i.kind}-${i.code}`} data-code={i.code}>
                  <td>
                    {i.kind === 'void' ? <span className="badge void">VOID</span> : null} <Link to={`/${i.kind === 'void' ? 'voids' : 'refunds'}/${encodeURIComponent(i.code)}`}>{i.code}</Link>
                  </td>
                  <td>
                    {i.status} {(i.kind === 'void' ? VOID_STATUS : REFUND_STATUS)[i.status]}
                  </td>
                  <td>{i.clientId}</td>
                  <td>{i.orderNo}</td>
                  <td>{i.carrier}</td>
                  <td>{i.paymentMethod ?? '—'}</td>
                  <td>{REASON[i.reason] ?? i.reason}</td>
                  <td className="num">{money(i.actualMinor ?? i.amountMinor, i.currency)}</td>
                  <td>{when(i.createdAt)}</td>
                  <td>
                    {i.sla.map((s) => (
                      <span key={s} className="badge late">
                        {SLA_TEXT[s]}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav className="pager" aria-label="Pages">
            <button type="button" disabled={data.prev === null} onClick={() => data.prev !== null && page('before', data.prev)}>
              Previous
            </button>
            <button type="button" disabled={data.next === null} onClick={() => data.next !== null && page('after', data.next)}>
              Next
            </button>
          </nav>
        </>
      )}
    </main>
  );
}
