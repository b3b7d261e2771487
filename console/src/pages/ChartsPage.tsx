// Charts where operators would rather look than read (recharts, SVG): refund status changes per day by the
// status reached, and time to refund per airline. Each chart has its numbers in a table below it (screen
// readers read the table; the chart itself is marked as an image with a description).
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { Bar, BarChart, CartesianGrid, Tooltip, XAxis, YAxis } from 'recharts';
import { api, ApiFailure, type Charts } from '../api.ts';
import { REFUND_STATUS } from '../format.ts';

// Colours each at least 3:1 against white (WCAG non-text contrast); stacked segments are parted by a white line,
// so two neighbours of like lightness (2 refunded, 5 fulfilled) stay apart without telling hue from hue.
const COLOURS: Record<string, string> = { '0': '#6b6b6b', '1': '#0b4f9c', '2': '#1b7a2f', '3': '#7a4f00', '4': '#a10000', '5': '#00695c', '6': '#5e35b1' };
const STATUSES = ['0', '1', '3', '2', '5', '4', '6'];

/**
 * A chart drawn once at its box's width: measured before the first paint (a layout effect), so the chart renders
 * a single time at the right size — no ResponsiveContainer pass at a guessed size followed by another at the
 * measured one — and again only when the box's width changes (a ResizeObserver: a scrollbar that appears
 * narrows the box without resizing the window).
 */
function Sized({ height, children }: { height: number; children: (width: number) => ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const measure = () => setWidth(box.current ? Math.floor(box.current.clientWidth) : 0);
    measure();
    if (!box.current) return;
    const watch = new ResizeObserver(measure);
    watch.observe(box.current);
    return () => watch.disconnect();
  }, []);
  return <div ref={box} style={{ height }}>{width > 0 ? children(width) : null}</div>;
}

/** The chart's legend as HTML (recharts' own Legend measures itself and draws the chart a second time). */
function Legend({ items }: { items: Array<{ name: string; colour: string }> }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((i) => <li key={i.name}><span className="swatch" style={{ background: i.colour }} /> {i.name}</li>)}
    </ul>
  );
}

/**
 * Draws a small chart once, off the page, when the browser is idle after the chunk arrived: the chart library's
 * first drawing (its code's first run) costs a few hundred ms on a slow machine, paid here instead of on the
 * operator's first visit of the page.
 */
export function warmCharts(): void {
  const box = document.createElement('div');
  box.style.cssText = 'position:absolute;left:-10000px;top:0;width:400px;height:200px;visibility:hidden';
  document.body.appendChild(box);
  const root = createRoot(box);
  root.render(
    <BarChart width={400} height={200} data={[{ k: 'a', v: 1, w: 2 }]}>
      <CartesianGrid strokeDasharray="3 3" />
      <XAxis dataKey="k" />
      <YAxis />
      <Tooltip />
      <Bar dataKey="v" stackId="s" isAnimationActive={false} />
      <Bar dataKey="w" stackId="s" isAnimationActive={false} />
    </BarChart>,
  );
  setTimeout(() => {
    root.unmount();
    box.remove();
  }, 1_000);
}

export function ChartsPage() {
  const [days, setDays] = useState(30);
  const [data, setData] = useState<Charts | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loads, setLoads] = useState(0);
  useEffect(() => {
    // An answer for a window no longer chosen is dropped: a slow 90-day answer arriving after the 7-day one drew
    // 90 days under "last 7 days" (a review). Until the new window's answer comes, nothing of the old one shows.
    let current = true;
    setData(null);
    setError(null);
    api.charts(days).then(
      (d) => current && setData(d),
      (e: unknown) => current && setError(e instanceof ApiFailure ? e.message : 'the charts cannot be loaded'),
    );
    return () => {
      current = false;
    };
  }, [days, loads]);
  const perDay = data?.perDay.map((d, i) => ({ day: i === data.perDay.length - 1 ? `${d.day.slice(5)} (so far)` : d.day.slice(5), ...Object.fromEntries(STATUSES.map((s) => [s, d.byStatus[s] ?? 0])) })) ?? [];
  const used = STATUSES.filter((s) => data?.perDay.some((d) => (d.byStatus[s] ?? 0) > 0));
  const today = data?.perDay.at(-1)?.day;
  return (
    <main id="main">
      <h1>Charts</h1>
      <div className="filters">
        <div>
          <label htmlFor="days">Window</label>
          <select id="days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            <option value={7}>last 7 days</option>
            <option value={30}>last 30 days</option>
            <option value={90}>last 90 days</option>
          </select>
        </div>
        <div>
          <button type="button" onClick={() => setLoads((n) => n + 1)}>Refresh</button>
        </div>
      </div>
      {error ? <p role="alert" className="error">{error}</p> : null}
      {!data ? (error ? null : <p className="loading">Loading…</p>) : (
        <>
          <p className="chart-window" data-testid="chart-window">
            Days in UTC, {data.from.slice(0, 10)} to {today} (today so far, by the service clock).
          </p>
          <section aria-labelledby="per-day-h">
            <h2 id="per-day-h">Refund status changes per day (UTC), by the status reached</h2>
            {used.length === 0 ? <p>No refund changed status in this window.</p> : (
              <>
                <div role="img" aria-label={`Stacked bars: refund status changes per UTC day over the last ${data.days} days, the last day so far (a refund that moves 0, 1, 2 in a day counts three times); the table below holds the numbers`} className="chart" data-testid="chart-per-day">
                  <Sized height={280}>
                    {(width) => (
                      // accessibilityLayer off: it made the SVG a nameless tab stop inside this role="img"
                      <BarChart width={width} height={280} data={perDay} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
                        <CartesianGrid strokeDasharray="3 3" />
                        <XAxis dataKey="day" />
                        <YAxis allowDecimals={false} label={{ value: 'status changes', angle: -90, position: 'insideLeft' }} />
                        <Tooltip />
                        {used.map((s) => <Bar key={s} dataKey={s} name={`${s} ${REFUND_STATUS[Number(s)]}`} stackId="a" fill={COLOURS[s]} stroke="#fff" strokeWidth={1} isAnimationActive={false} />)}
                      </BarChart>
                    )}
                  </Sized>
                  <Legend items={used.map((s) => ({ name: `${s} ${REFUND_STATUS[Number(s)]}`, colour: COLOURS[s]! }))} />
                </div>
                <details>
                  <summary>The numbers</summary>
                  <table>
                    <thead><tr><th scope="col">Day (UTC)</th>{used.map((s) => <th key={s} scope="col" className="num">{s} {REFUND_STATUS[Number(s)]}</th>)}</tr></thead>
                    <tbody>
                      {data.perDay.filter((d) => Object.keys(d.byStatus).length > 0).map((d) => (
                        <tr key={d.day}><td>{d.day}{d.day === today ? ' (so far)' : ''}</td>{used.map((s) => <td key={s} className="num">{d.byStatus[s] ?? 0}</td>)}</tr>
                      ))}
                    </tbody>
                  </table>
                </details>
              </>
            )}
          </section>
          <section aria-labelledby="ttr-h">
            <h2 id="ttr-h">Time to refund per airline (hours, submission to refunded or fulfilled)</h2>
            {data.timeToRefund.length === 0 ? <p>No refund completed in this window.</p> : (
              <>
                <div role="img" aria-label="Bars: median and 90th percentile hours from submission to refund per airline; the table below holds the numbers" className="chart" data-testid="chart-time-to-refund">
                  <Sized height={240}>
                    {(width) => (
                      <BarChart width={width} height={240} data={data.timeToRefund} margin={{ top: 8, right: 16, bottom: 8, left: 0 }} accessibilityLayer={false}>
                        <CartesianGrid strokeDasharray="3 3" />
                        <XAxis dataKey="carrier" />
                        <YAxis />
                        <Tooltip />
                        <Bar dataKey="medianHours" name="median" fill="#0b4f9c" isAnimationActive={false} />
                        <Bar dataKey="p90Hours" name="90th percentile" fill="#7a4f00" isAnimationActive={false} />
                      </BarChart>
                    )}
                  </Sized>
                  <Legend items={[{ name: 'median', colour: '#0b4f9c' }, { name: '90th percentile', colour: '#7a4f00' }]} />
                </div>
                <table>
                  <thead><tr><th scope="col">Airline</th><th scope="col" className="num">Refunds</th><th scope="col" className="num">Median (h)</th><th scope="col" className="num">90th percentile (h)</th></tr></thead>
                  <tbody>
                    {data.timeToRefund.map((t) => <tr key={t.carrier}><td>{t.carrier}</td><td className="num">{t.count}</td><td className="num">{t.medianHours}</td><td className="num">{t.p90Hours}</td></tr>)}
                  </tbody>
                </table>
              </>
            )}
          </section>
        </>
      )}
    </main>
  );
}
