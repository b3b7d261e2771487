// The sandbox panel (sandbox mode only): the sandbox clock every process follows, and moving it forward
// (admins), so refunds, SLA badges and voids can be followed through days in minutes.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, type Role } from '../api.ts';
import { when } from '../format.ts';

const UNIT_MINUTES = { minutes: 1, hours: 60, days: 1440 } as const;

export function Sandbox({ role }: { role: Role }) {
  const [clock, setClock] = useState<{ now: string; offsetMs: number } | null>(null);
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<keyof typeof UNIT_MINUTES>('hours');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    api.sandboxClock().then(setClock, (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the clock cannot be read'));
  }, []);
  useEffect(load, [load]);
  const move = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const moved = await api.moveSandboxClock(Math.round(Number(amount) * UNIT_MINUTES[unit]));
      setClock(moved);
      setNotice(`The sandbox clock now reads ${when(moved.now)}.`);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the clock cannot be moved');
    }
  };
  const offsetHours = clock ? (clock.offsetMs / 3_600_000).toFixed(1) : '';
  return (
    <main id="main">
      <h1>Sandbox</h1>
      <p>Every API and worker process follows this one clock; it only moves forward.</p>
      <dl className="facts">
        <dt>Sandbox time</dt><dd data-testid="sandbox-now">{clock ? when(clock.now) : '…'}</dd>
        <dt>Ahead of real time</dt><dd>{clock ? `${offsetHours} h` : '…'}</dd>
      </dl>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      <form className="filters" onSubmit={(e) => void move(e)} aria-label="Move the sandbox clock">
        <div>
          <label htmlFor="advance">Advance by</label>
          <input id="advance" type="number" min={1} step={1} required value={amount} onChange={(e) => setAmount(e.target.value)} />
        </div>
        <div>
          <label htmlFor="unit">Unit</label>
          <select id="unit" value={unit} onChange={(e) => setUnit(e.target.value as keyof typeof UNIT_MINUTES)}>
            <option value="minutes">minutes</option>
            <option value="hours">hours</option>
            <option value="days">days</option>
          </select>
        </div>
        <button type="submit" disabled={role !== 'admin'} aria-describedby={role !== 'admin' ? 'move-why' : undefined}>Move the clock</button>
        {role !== 'admin' ? <small id="move-why" className="why">your role ({role}) may not do this</small> : null}
        <button type="button" onClick={load}>Reload</button>
      </form>
    </main>
  );
}
