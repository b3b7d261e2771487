// Pieces shared by the detail pages: the order with passengers, segments and tickets; the timeline; webhook
// deliveries; the audit entries; an action button that shows why it is not allowed.
import { useId, useState, type ReactNode } from 'react';
import { api, ApiFailure, type AuditEntry, type OrderView, type Role, type WebhookDelivery } from '../api.ts';
import { money, when } from '../format.ts';

export function OrderSection({ order }: { order: OrderView | null }) {
  if (!order) return <section aria-labelledby="order-h"><h2 id="order-h">Order</h2><p>The order is not found.</p></section>;
  return (
    <section aria-labelledby="order-h">
      <h2 id="order-h">Order {order.orderNo}</h2>
      <dl className="facts">
        <dt>Client</dt><dd>{order.clientId}</dd>
        <dt>Airline / PNR</dt><dd>{order.carrier} {order.airlinePnr ?? '—'}</dd>
        <dt>Source</dt><dd>{order.source}</dd>
        <dt>Payment</dt><dd>{order.paymentMethod ?? '—'}</dd>
        <dt>Total</dt><dd>{money(order.totalMinor, order.currency)}</dd>
      </dl>
      <table>
        <caption>Passengers</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Type</th><th scope="col">Name</th></tr></thead>
        <tbody>
          {order.passengers.map((p) => (
            <tr key={p.paxIndex}><td>{p.paxIndex}</td><td>{p.type}</td><td>{p.lastName}/{p.firstName}</td></tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>Segments</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Flight</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Departure (local)</th></tr></thead>
        <tbody>
          {order.segments.map((s) => (
            <tr key={s.index}><td>{s.index}</td><td>{s.flight}</td><td>{s.from}</td><td>{s.to}</td><td>{s.depLocal}</td></tr>
          ))}
        </tbody>
      </table>
      <table>
        <caption>Tickets</caption>
        <thead><tr><th scope="col">Ticket</th><th scope="col">Passenger</th><th scope="col" className="num">Fare</th><th scope="col" className="num">Tax</th><th scope="col">Coupons</th></tr></thead>
        <tbody>
          {order.tickets.map((t) => (
            <tr key={t.ticketNo}>
              <td>{t.ticketNo}</td><td>{t.paxIndex}</td><td className="num">{money(t.fareMinor, t.currency)}</td><td className="num">{money(t.taxMinor, t.currency)}</td>
              <td>{t.coupons.map((c) => `${c.segmentIndex}: ${c.status}`).join(', ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function Timeline({ items, names }: { items: Array<{ from: number | null; to: number; at: string; cause: string }>; names: Record<number, string> }) {
  return (
    <section aria-labelledby="timeline-h">
      <h2 id="timeline-h">Status history</h2>
      <ol className="timeline">
        {items.map((h, i) => (
          <li key={i}>
            <time dateTime={h.at}>{when(h.at)}</time> <strong>{h.from === null ? '' : `${h.from} → `}{h.to} {names[h.to]}</strong> <span className="cause">{h.cause}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

export function Webhooks({ items, role, onChange }: { items: WebhookDelivery[]; role: Role; onChange: () => void }) {
  return (
    <section aria-labelledby="webhooks-h">
      <h2 id="webhooks-h">Webhook deliveries</h2>
      {items.length === 0 ? (
        <p>No webhook events (the client has no webhook URL, or nothing happened yet).</p>
      ) : (
        <table>
          <thead><tr><th scope="col">Event</th><th scope="col">Change</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Action</th></tr></thead>
          <tbody>
            {items.map((e) => (
              <tr key={e.id}>
                <td>{e.id} <small>{when(e.occurredAt)}</small></td>
                <td>{e.transition}</td>
                <td>{e.state}{e.deliveredAt ? ` ${when(e.deliveredAt)}` : ''}</td>
                <td>{e.tries.length === 0 ? e.attempts : e.tries.map((t) => `#${t.attempt} ${t.httpStatus ?? t.error ?? '?'}`).join(', ')}</td>
                <td>{e.lastError ?? '—'}</td>
                <td>
                  <Action label="Redeliver" name={`Redeliver event ${e.id}`} role={role} allowed={e.state === 'delivered' ? { allowed: false, why: 'delivered already' } : { allowed: true }} run={() => api.redeliver(e.id)} done={onChange} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function Audit({ items, showTarget = false, title = 'Audit log' }: { items: AuditEntry[]; showTarget?: boolean; title?: string }) {
  return (
    <section aria-labelledby="audit-h">
      <h2 id="audit-h">{title}</h2>
      {items.length === 0 ? (
        <p>No console action yet.</p>
      ) : (
        <table data-testid="audit">
          <thead><tr><th scope="col">When</th><th scope="col">Operator</th><th scope="col">Action</th>{showTarget ? <th scope="col">Target</th> : null}<th scope="col">Before</th><th scope="col">After</th></tr></thead>
          <tbody>
            {items.map((a) => (
              <tr key={a.id}>
                <td>{when(a.at)}</td><td>{a.operator}</td><td>{a.action}</td>{showTarget ? <td>{a.target}</td> : null}
                <td><code>{a.before === null ? '—' : JSON.stringify(a.before)}</code></td>
                <td><code>{a.after === null ? '—' : JSON.stringify(a.after)}</code></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

type Allowed = { allowed: true } | { allowed: false; why: string };

/**
 * A console action: disabled with its reason when the state or the operator's role does not allow it; a
 * destructive one asks for a confirming second click. The service refuses the same cases on its own.
 */
export function Action({ label, name, role, allowed, run, done, confirm, needs = 'agent' }: { label: string; name?: string; role: Role; allowed: Allowed; run: () => Promise<unknown>; done: (result: unknown) => void; confirm?: string; needs?: Role }) {
  // `name`: the button's accessible name when its label is the same in every row (Redeliver → "Redeliver event 12");
  // it starts with the label, the text seen. The reason's id is this action's own (one per row, not per label).
  const whyId = useId();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const roleOk = role === 'admin' || role === needs || (needs === 'viewer');
  const why = !roleOk ? `your role (${role}) may not do this` : allowed.allowed ? null : allowed.why;
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await run();
      setAsking(false);
      done(r);
    } catch (e) {
      setError(e instanceof ApiFailure ? e.message : 'the service cannot be reached');
    } finally {
      setBusy(false);
    }
  };
  let body: ReactNode;
  if (asking && confirm) {
    body = (
      <>
        <span>{confirm}</span>{' '}
        <button type="button" className="danger" disabled={busy} aria-label={name ? `Confirm ${name.charAt(0).toLowerCase()}${name.slice(1)}` : undefined} onClick={() => void go()}>Confirm {label.toLowerCase()}</button>{' '}
        <button type="button" onClick={() => setAsking(false)}>Cancel</button>
      </>
    );
  } else {
    body = (
      <button type="button" disabled={busy || why !== null} aria-label={name} aria-describedby={why ? whyId : undefined} onClick={() => (confirm ? setAsking(true) : void go())}>
        {label}
      </button>
    );
  }
  return (
    <span className="action">
      {body}
      {why ? <small id={whyId} className="why"> {why}</small> : null}
      {error ? <span role="alert" className="error"> {error}</span> : null}
    </span>
  );
}
