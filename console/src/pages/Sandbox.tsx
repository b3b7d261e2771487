// The sandbox panel (sandbox mode only): the sandbox clock every process follows, and moving it forward
// (admins), so refunds, SLA badges and voids can be followed through days in minutes.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, type Role, type WorldSummary } from '../api.ts';
import { when } from '../format.ts';
import { adoptSandboxTime } from '../sandbox-time.ts';

const UNIT_MINUTES = { minutes: 1, hours: 60, days: 1440 } as const;

/** The world file the sandbox airline serves, and reloading it (admins). */
function WorldPanel({ role }: { role: Role }) {
  const [world, setWorld] = useState<WorldSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api.sandboxWorld().then(setWorld, (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the world cannot be read'));
  }, []);
  const reload = async () => {
    setConfirming(false);
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const done = await api.reloadSandboxWorld();
      setWorld(done);
      setNotice(`World ${done.name} reloaded: ${done.flights} flights, ${done.bookings} bookings, ${done.clients} clients (${done.ordersCreated} new booked orders).`);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the world cannot be reloaded');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="world-h">
      <h2 id="world-h">World</h2>
      <dl className="facts" data-testid="sandbox-world">
        <dt>File</dt><dd>{world ? world.file : '…'}</dd>
        <dt>Name</dt><dd>{world ? world.name : '…'}</dd>
        <dt>Contents</dt><dd>{world ? `${world.airlines} airlines, ${world.flights} flights, ${world.bookings} bookings, ${world.clients} clients` : '…'}</dd>
      </dl>
      <p>Reloading reads the file again (as at start): its clients' secrets and settings, booked orders and webhooks are written to the store, and this process serves its flights. A file that does not load changes nothing.</p>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      {confirming ? (
        <p>
          <button type="button" onClick={() => void reload()}>Confirm reload the world</button> <button type="button" onClick={() => setConfirming(false)}>Cancel</button>
        </p>
      ) : (
        <p>
          <button type="button" disabled={role !== 'admin' || busy} onClick={() => setConfirming(true)} aria-describedby={role !== 'admin' ? 'reload-why' : undefined}>Reload the world</button>
          {role !== 'admin' ? <small id="reload-why" className="why"> your role ({role}) may not do this</small> : null}
        </p>
      )}
    </section>
  );
}

export function Sandbox({ role }: { role: Role }) {
  const [clock, setClock] = useState<{ now: string; offsetMs: number } | null>(null);
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState<keyof typeof UNIT_MINUTES>('hours');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = useCallback(() => {
    api.sandboxClock().then((c) => (setClock(c), adoptSandboxTime(c.now)), (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the clock cannot be read'));
  }, []);
  useEffect(load, [load]);
  const [moving, setMoving] = useState(false);
  const move = async (e: FormEvent) => {
    e.preventDefault();
    if (!clock || moving) return;
    setError(null);
    setMoving(true);
    try {
      const moved = await api.moveSandboxClock(Math.round(Number(amount) * UNIT_MINUTES[unit]), clock.offsetMs);
      setClock(moved);
      adoptSandboxTime(moved.now); // the header's sandbox time follows the move
      setNotice(`The sandbox clock now reads ${when(moved.now)}.`);
    } catch (err) {
      setError(err instanceof ApiFailure ? err.message : 'the clock cannot be moved');
      // moved elsewhere meanwhile (409): show where it stands now
      if (err instanceof ApiFailure && err.httpStatus === 409) load();
    } finally {
      setMoving(false);
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
        <button type="submit" disabled={role !== 'admin' || !clock || moving} aria-describedby={role !== 'admin' ? 'move-why' : undefined}>Move the clock</button>
        {role !== 'admin' ? <small id="move-why" className="why">your role ({role}) may not do this</small> : null}
        <button type="button" onClick={load}>Reload</button>
      </form>
      <WorldPanel role={role} />
    </main>
  );
}
