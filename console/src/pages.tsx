// The console's pages, each in its own chunk: the first bundle holds only the shell and the login page, so a
// cold login page loads less. The chunks are fetched when the browser is idle — the pages' right after the
// first page is drawn, the chart library's (the largest) right after login — so opening a page rarely waits
// for its code. A page and its prefetch share one import(): each chunk is fetched once.
import { useEffect, useState, type ComponentType } from 'react';

function loader<T>(load: () => Promise<T>): () => Promise<T> {
  let started: Promise<T> | null = null;
  return () =>
    (started ??= load().catch((err: unknown) => {
      started = null; // a failed fetch (the service restarting) is tried again on the next use
      throw err;
    }));
}

const loaders = {
  queue: loader(() => import('./pages/Queue.tsx')),
  refund: loader(() => import('./pages/RefundPage.tsx')),
  void: loader(() => import('./pages/VoidPage.tsx')),
  cases: loader(() => import('./pages/Cases.tsx')),
  case: loader(() => import('./pages/CasePage.tsx')),
  clients: loader(() => import('./pages/Clients.tsx')),
  operators: loader(() => import('./pages/Operators.tsx')),
  account: loader(() => import('./pages/Account.tsx')),
  sandbox: loader(() => import('./pages/Sandbox.tsx')),
  seatMaps: loader(() => import('./pages/SeatMaps.tsx')),
  audit: loader(() => import('./pages/AuditPage.tsx')),
};
const charts = loader(() => import('./pages/ChartsPage.tsx'));

/**
 * A page whose code is in a chunk: drawn at once when the chunk is loaded (the prefetch usually did it), else
 * "Loading…" until it is. Not lazy(): a lazy component suspends on its first render even when its chunk is
 * loaded (preact/compat's as React's), and React held a revealed Suspense boundary back by up to 300 ms, which
 * every first visit of a page would pay.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each page's own props are checked where it is used
function page<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] extends ComponentType<any> ? M[K] : never {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let loaded: ComponentType<any> | null = null;
  const ensure = () =>
    load().then((m) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      loaded = m[name] as ComponentType<any>;
    });
  const Page = (props: object) => {
    const [failed, setFailed] = useState(false);
    const [, setReady] = useState(false);
    const waiting = !loaded; // this render draws "Loading…"
    useEffect(() => {
      // Whether to draw again is decided by what the render drew, not by `loaded` now: the idle prefetch can
      // load the chunk between the render and this effect (Preact runs effects after the next frame, later
      // than React did), and the page would then stay at "Loading…".
      if (waiting) ensure().then(() => setReady(true), () => setFailed(true));
    }, []);
    if (failed) return <main id="main"><p role="alert" className="error">This page cannot be loaded: the service may be restarting. Reload the page.</p></main>;
    if (!loaded) return <main id="main"><p className="loading">Loading…</p></main>;
    const C = loaded;
    return <C {...props} />;
  };
  prefetchers.set(load, ensure);
  return Page as never;
}

const prefetchers = new Map<() => Promise<unknown>, () => Promise<void>>();

export const Queue = page(loaders.queue, 'Queue');
export const RefundPage = page(loaders.refund, 'RefundPage');
export const VoidPage = page(loaders.void, 'VoidPage');
export const Cases = page(loaders.cases, 'Cases');
export const CasePage = page(loaders.case, 'CasePage');
export const Clients = page(loaders.clients, 'Clients');
export const Operators = page(loaders.operators, 'Operators');
export const Account = page(loaders.account, 'Account');
export const Sandbox = page(loaders.sandbox, 'Sandbox');
export const SeatMaps = page(loaders.seatMaps, 'SeatMaps');
export const AuditPage = page(loaders.audit, 'AuditPage');
export const ChartsPage = page(charts, 'ChartsPage');

function whenIdle(run: () => void): void {
  if ('requestIdleCallback' in window) window.requestIdleCallback(run, { timeout: 2_000 });
  else setTimeout(run, 200);
}

/** Fetches every page's chunk but the charts' when the browser is idle (a failed fetch is retried on use). */
export function prefetchPages(): void {
  whenIdle(() => {
    for (const load of Object.values(loaders)) prefetchers.get(load)?.().catch(() => undefined);
  });
}

/** Fetches the chart library's chunk when the browser is idle (after login: only operators see charts) and warms it. */
export function prefetchCharts(): void {
  // The chunk, then (idle again) one drawing off the page: the chart library's first run is paid here.
  whenIdle(() =>
    void prefetchers
      .get(charts)?.()
      .then(() => charts())
      .then((m) => whenIdle(() => m.warmCharts()))
      .catch(() => undefined),
  );
}
