// The seat map viewer: pick a live booking-chain session's segment (the map seatAvailability.do serves for
// it) or, in the sandbox, a flight of the world, and see each deck's cabin drawn row by row: free and
// occupied seats with their prices, aisles, exit rows.
import { useEffect, useMemo, useState } from 'react';
import { api, ApiFailure, type SeatMapView, type SeatSources } from '../api.ts';
import { money } from '../format.ts';

type Cabin = SeatMapView['cabins'][number];

const CLASS_NAME: Record<number, string> = { 1: 'economy', 2: 'premium economy', 3: 'business', 4: 'first' };

function CabinView({ cabin }: { cabin: Cabin }) {
  const exit = (row: number) => cabin.exitRows.some((e) => row >= e.first && row <= e.last);
  // An aisle between two neighbouring aisle-side columns (…C | D…).
  const aisleAfter = new Set(cabin.columns.slice(0, -1).map((c, i) => (c.characteristics === 'A' && cabin.columns[i + 1]!.characteristics === 'A' ? c.designator : null)).filter((x): x is string => x !== null));
  const free = cabin.seatRows.reduce((a, r) => a + r.seats.filter((s) => !s.occupied).length, 0);
  const total = cabin.seatRows.reduce((a, r) => a + r.seats.length, 0);
  return (
    <section className="cabin" aria-label={`${cabin.deck} deck, ${CLASS_NAME[cabin.cabinClass] ?? `class ${cabin.cabinClass}`}`}>
      <h3>
        {cabin.deck} deck · {CLASS_NAME[cabin.cabinClass] ?? `class ${cabin.cabinClass}`} · rows {cabin.rows.first}–{cabin.rows.last} · {free} of {total} seats free
      </h3>
      <table className="seatmap">
        <thead>
          <tr>
            <th scope="col">Row</th>
            {cabin.columns.map((c) => (
              <th key={c.designator} scope="col" className={aisleAfter.has(c.designator) ? 'aisle' : undefined}>{c.designator}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {cabin.seatRows.map((r) => (
            <tr key={r.number} className={exit(r.number) ? 'exit' : undefined}>
              <th scope="row">{r.number}{exit(r.number) ? <span className="badge exit">EXIT</span> : null}</th>
              {cabin.columns.map((c) => {
                const seat = r.seats.find((s) => s.column === c.designator);
                const cls = aisleAfter.has(c.designator) ? 'aisle' : undefined;
                if (!seat) return <td key={c.designator} className={cls} aria-label={`${r.number}${c.designator}: no seat`} />;
                const label = `${r.number}${c.designator} ${seat.occupied ? 'occupied' : 'free'}, ${money(seat.priceMinor, seat.currency)}${seat.characteristics.length ? `, ${seat.characteristics.join(' ')}` : ''}`;
                return (
                  <td key={c.designator} className={cls}>
                    <span className={`seat ${seat.occupied ? 'occupied' : 'free'}`} title={label} aria-label={label} data-seat={`${r.number}${c.designator}`}>
                      {seat.occupied ? '×' : seat.priceMinor === 0 ? '0' : money(seat.priceMinor, seat.currency).split(' ')[1]}
                    </span>
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function SeatMaps() {
  const [sources, setSources] = useState<SeatSources | null>(null);
  const [choice, setChoice] = useState('');
  const [cabinClass, setCabinClass] = useState('');
  const [map, setMap] = useState<SeatMapView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api.seatSources().then(setSources, (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the sources cannot be loaded'));
  }, []);
  const params = useMemo(() => {
    if (!choice) return null;
    const p = new URLSearchParams();
    const [kind, id, segment] = choice.split('|');
    if (kind === 'session') {
      p.set('session', id!);
      p.set('segment', segment!);
    } else p.set('flight', id!);
    if (cabinClass) p.set('cabinClass', cabinClass);
    return p;
  }, [choice, cabinClass]);
  useEffect(() => {
    if (!params) return;
    setMap(null);
    setError(null);
    api.seatMap(params).then(setMap, (e: unknown) => setError(e instanceof ApiFailure ? e.message : 'the seat map cannot be loaded'));
  }, [params]);
  return (
    <main id="main">
      <h1>Seat maps</h1>
      <div className="filters">
        <div>
          <label htmlFor="seat-source">Flight or session</label>
          <select id="seat-source" value={choice} onChange={(e) => setChoice(e.target.value)}>
            <option value="">choose…</option>
            {sources && sources.sessions.length > 0 ? (
              <optgroup label="Live sessions (as seatAvailability.do serves them)">
                {sources.sessions.flatMap((s) => s.segments.map((g) => (
                  <option key={`${s.id}|${g.index}`} value={`session|${s.id}|${g.index}`}>{s.clientId} · {s.kind} · {g.label}</option>
                )))}
              </optgroup>
            ) : null}
            {sources && sources.flights.length > 0 ? (
              <optgroup label="Sandbox world flights">
                {sources.flights.map((f) => <option key={f.id} value={`flight|${f.id}`}>{f.label}</option>)}
              </optgroup>
            ) : null}
          </select>
        </div>
        <div>
          <label htmlFor="seat-class">Cabin class</label>
          <select id="seat-class" value={cabinClass} onChange={(e) => setCabinClass(e.target.value)}>
            <option value="">as booked (economy for a flight)</option>
            {Object.entries(CLASS_NAME).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
          </select>
        </div>
      </div>
      {sources && sources.sessions.length === 0 && sources.flights.length === 0 ? <p>No live session and no sandbox flight to show.</p> : null}
      {error ? <p role="alert" className="error">{error}</p> : null}
      {map ? (
        <section aria-labelledby="map-h">
          <h2 id="map-h">{map.title}</h2>
          <p className="legend"><span className="seat free">12</span> free, with its price · <span className="seat occupied">×</span> occupied · <span className="badge exit">EXIT</span> exit row</p>
          {map.cabins.map((c, i) => <CabinView key={i} cabin={c} />)}
        </section>
      ) : choice && !error ? <p className="loading">Loading…</p> : null}
    </main>
  );
}
