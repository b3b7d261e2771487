// One refund: summary, the actions its state allows, the order, the quote with its explanation, the status
// history, the airline's part, webhook deliveries and the audit log.
import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, type RefundDetail, type Role } from '../api.ts';
import { Link } from '../router.tsx';
import { day, money, REASON, REFUND_STATUS, when } from '../format.ts';
import { Action, Audit, OrderSection, Timeline, Webhooks } from './parts.tsx';

/** The status poll's state in words (told as a job's: created, retry, failed; decision 0034). */
const POLL_STATE: Record<string, string> = { created: 'waiting', retry: 'retrying after a failure', active: 'running', completed: 'done', cancelled: 'cancelled', failed: 'gave up' };

export function RefundPage({ code, role }: { code: string; role: Role }) {
  const [r, setR] = useState<RefundDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    api.refund(code).then(
      (d) => (setR(d.refund), setError(null)),
      (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the refund cannot be loaded'),
    );
  }, [code]);
  useEffect(load, [load]);

  if (error) return <main id="main"><h1>Refund {code}</h1><p role="alert" className="error">{error}</p></main>;
  if (!r) return <main id="main"><h1>Refund {code}</h1><p className="loading">Loading…</p></main>;
  const q = r.quote;
  return (
    <main id="main">
      <p><Link to="/">← Refund queue</Link></p>
      <h1>
        Refund {r.refundCode} <span className={`badge status-${r.status}`} data-testid="refund-status">{r.status} {REFUND_STATUS[r.status]}</span>
      </h1>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      <section aria-labelledby="actions-h" className="actions">
        <h2 id="actions-h">Actions</h2>
        <Action label="Withdraw" role={role} allowed={r.actions.withdraw} confirm={r.status === 1 ? 'Ask the airline to withdraw this refund, then set it to status 6?' : 'Withdraw this refund claim (status 6)?'} run={() => api.withdraw(r.refundCode)} done={(res) => (setNotice((res as { atAirline: boolean }).atAirline ? 'Withdrawn at the airline and here.' : 'Withdrawn.'), load())} />
        {r.status === 1 || r.status === 3 ? (
          <Action label="Retry status poll" role={role} allowed={r.actions.retry} run={() => api.retry(r.refundCode)} done={(res) => (setNotice((res as { queued: boolean }).queued ? 'A look at the airline is queued now.' : 'A look at the airline was already waiting; it runs shortly.'), load())} />
        ) : (
          <Action label="Retry submission" role={role} allowed={r.actions.retry} run={() => api.retry(r.refundCode)} done={(res) => (setNotice((res as { queued: boolean }).queued ? 'A submission to the airline is queued now.' : 'A submission attempt was already waiting; it runs shortly.'), load())} />
        )}
        <button type="button" onClick={load}>Reload</button>
      </section>
      <section aria-labelledby="summary-h">
        <h2 id="summary-h">Summary</h2>
        <dl className="facts">
          <dt>Client</dt><dd>{r.clientId}</dd>
          <dt>Reason</dt><dd>{r.reason} {REASON[r.reason]}</dd>
          <dt>Path</dt><dd>{r.path === 'deposit' ? 'deposit (0 → 1 → 3 → 2)' : 'card / refund claim (0 → 1 → 5)'}</dd>
          <dt>Method</dt><dd>{r.refundMethod}, {r.quoteType}</dd>
          <dt>Estimated refund</dt><dd>{money(r.estimatedRefundMinor, r.currency)}</dd>
          <dt>Actual refund</dt><dd>{money(r.actualRefundMinor, r.currency)}</dd>
          <dt>Post-ticketing refunds</dt><dd>{r.postRefunds.length === 0 ? '—' : r.postRefunds.map((p) => money(p.minor, p.currency)).join(' + ')}</dd>
          <dt>Service fee</dt><dd>{money(r.serviceFee.minor, r.serviceFee.currency)}</dd>
          <dt>Expected confirmation</dt><dd>{day(q.expectedConfirmationDate)}</dd>
          <dt>Expected refund</dt><dd>{day(q.expectedRefundDate)}</dd>
          <dt>Cancel reason</dt><dd>{r.cancelReason ?? '—'}</dd>
          <dt>Created / updated</dt><dd>{when(r.createdAt)} / {when(r.updatedAt)}</dd>
          {r.status === 1 || r.status === 3 ? (
            <><dt>Status poll</dt><dd data-testid="poll-job">{r.pollJob ? `${POLL_STATE[r.pollJob.state] ?? r.pollJob.state}${r.pollJob.failedAttempts > 0 ? `, ${r.pollJob.failedAttempts} failed attempt(s) of ${r.pollJob.retryLimit + 1}` : ''}${r.pollJob.state === 'created' || r.pollJob.state === 'retry' ? `, due ${when(r.pollJob.due)}` : ''}${r.pollJob.lastError ? ` (last error: ${r.pollJob.lastError})` : ''}` : 'none'}</dd></>
          ) : null}
          {r.consoleCase ? (<><dt>Console case</dt><dd><Link to={`/cases/${r.consoleCase.caseId}`}>{r.consoleCase.caseId}</Link> approved by {r.consoleCase.decidedBy}</dd></>) : null}
        </dl>
      </section>
      <section aria-labelledby="quote-h">
        <h2 id="quote-h">Quote</h2>
        <table>
          <caption>Per ticket: paid and refunded</caption>
          <thead><tr><th scope="col">Ticket</th><th scope="col">Passenger</th><th scope="col" className="num">Paid</th><th scope="col" className="num">Refund</th></tr></thead>
          <tbody>
            {q.tickets.map((t) => (
              <tr key={t.ticketNo}><td>{t.ticketNo}</td><td>{t.lastName}/{t.firstName}</td><td className="num">{money(t.paidMinor, q.currency)}</td><td className="num">{money(t.refundMinor, q.currency)}</td></tr>
            ))}
          </tbody>
        </table>
        <p>
          Fare: paid {money(q.fare.originalMinor, q.currency)}, refund {money(q.fare.refundMinor, q.currency)}; service fee {money(q.serviceFee.minor, q.serviceFee.currency)} per passenger
          {q.vouchers && q.vouchers.length > 0 ? `; vouchers: ${q.vouchers.map((v) => money(v.valueMinor, v.currency)).join(', ')}` : ''}.
        </p>
        <h3>How each ticket was priced</h3>
        {'unavailable' in r.explanation ? (
          <p>The explanation is not available: {r.explanation.unavailable}.</p>
        ) : (
          <table data-testid="explanation">
            <caption>Priced again by the refund engine at the quote's time ({when(r.quotedAt)}) with the airline's current rules</caption>
            <thead>
              <tr>
                <th scope="col">Ticket</th><th scope="col">Rule applied</th><th scope="col">Minutes to departure</th>
                <th scope="col" className="num">Refundable</th><th scope="col" className="num">− Penalty</th><th scope="col" className="num">− Airline fee</th>
                <th scope="col" className="num">= Ticket</th><th scope="col" className="num">+ Ancillaries</th><th scope="col" className="num">= Refund</th><th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {r.explanation.map((x) => (
                <tr key={x.ticketNo}>
                  <td>{x.ticketNo} ({x.passengerType})</td>
                  <td>{x.rule ? `#${x.rule.index + 1}, type ${x.rule.ruleType}${x.rule.window ? `, window ${x.rule.window.startMinute ?? '∞'} … ${x.rule.window.endMinute ?? '−∞'}` : ''}` : 'none'}{x.fallbackToTaxRule ? ' (tax-refund fallback)' : ''}</td>
                  <td className="num">{x.minutesToDeparture}</td>
                  <td className="num">{money(x.refundableMinor, x.currency)}</td>
                  <td className="num">{money(x.penaltyMinor, x.currency)}</td>
                  <td className="num">{money(x.airlineFeeMinor, x.currency)}</td>
                  <td className="num">{money(x.ticketRefundMinor, x.currency)}</td>
                  <td className="num">{money(x.ancillaryRefundMinor, x.currency)}</td>
                  <td className="num">{money(x.totalRefundMinor, x.currency)}{x.storedRefundMinor !== null ? <span className="badge late"> quoted {money(x.storedRefundMinor, x.currency)}: rules changed since</span> : null}</td>
                  <td>{x.reasons.join('; ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <table>
          <caption>The airline's refund rules for this quote</caption>
          <thead><tr><th scope="col">Type</th><th scope="col">Pax</th><th scope="col">Window (min before dep.)</th><th scope="col">Penalty</th><th scope="col">Airline fee</th><th scope="col">Fare / tax refundable</th><th scope="col">Method</th></tr></thead>
          <tbody>
            {q.refundRules.map((rule, i) => (
              <tr key={i}>
                <td>{rule.ruleType}</td>
                <td>{rule.passengerType ?? 'any'}</td>
                <td>{rule.startMinute ?? '∞'} … {rule.endMinute ?? '−∞'}</td>
                <td>{rule.penaltyAmount ?? (rule.penaltyPercent !== undefined ? `${rule.penaltyPercent}% of ${rule.penaltyPercentBase ?? 'fare'}` : '—')}</td>
                <td>{rule.airlineFee ?? '—'}</td>
                <td>{rule.fareRefundable ? 'fare' : '—'} / {rule.taxRefundable ? 'tax' : '—'}</td>
                <td>{rule.refundMethod ?? 'CashBackToOriginalPayment'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <Timeline items={r.timeline} names={REFUND_STATUS} />
      <section aria-labelledby="airline-h">
        <h2 id="airline-h">Airline submission and answers</h2>
        <p>Airline refund id: {r.airlineRefundId ?? 'not submitted yet'}{r.completedOn ? `; completed on ${day(r.completedOn)}` : ''}</p>
        {r.airline.length === 0 ? <p>No answer from the airline yet.</p> : (
          <ul>{r.airline.map((a, i) => <li key={i}><time dateTime={a.at}>{when(a.at)}</time> → {a.to} {REFUND_STATUS[a.to]}: {a.cause}</li>)}</ul>
        )}
      </section>
      <OrderSection order={r.order} />
      <Webhooks items={r.webhooks} role={role} onChange={() => (setNotice('The event is due now; the deliverer sends it within seconds.'), load())} />
      <Audit items={r.audit} />
    </main>
  );
}
