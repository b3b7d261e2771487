// The console's shell: the session (or the login page), the navigation, and the page of the current path.
import { useCallback, useEffect, useState } from 'react';
import { api, ApiFailure, setCsrfToken, whenLoggedOut, type SessionInfo } from './api.ts';
import { Link, match, useRouter } from './router.tsx';
import { Login } from './pages/Login.tsx';
// Every page but the login page is its own chunk, fetched when idle (pages.ts).
import { Account, AuditPage, CasePage, Cases, ChartsPage, Clients, Operators, prefetchCharts, prefetchPages, Queue, RefundPage, Sandbox, SeatMaps, VoidPage } from './pages.tsx';
import { when } from './format.ts';
import { adoptSandboxTime, onSandboxTime, sandboxNow } from './sandbox-time.ts';

/** How often the header's sandbox time is worked out again from its offset (it shows minutes). */
const SANDBOX_TICK_MS = 10_000;

/**
 * The sandbox time in the header: the session's at load, then every read or move of the sandbox panel, kept current
 * between them from its offset to the browser's clock; read again from the service when the tab is shown again (a
 * move made from another console or the CLI meanwhile).
 */
function SandboxBadge({ loadedNow }: { loadedNow: string | undefined }) {
  const [, setTick] = useState(0);
  useEffect(() => {
    if (loadedNow) adoptSandboxTime(loadedNow);
    const redraw = () => setTick((n) => n + 1);
    const stop = onSandboxTime(redraw);
    const timer = window.setInterval(redraw, SANDBOX_TICK_MS);
    const shown = () => {
      if (document.visibilityState === 'visible') api.sandboxClock().then((c) => adoptSandboxTime(c.now), () => undefined);
    };
    document.addEventListener('visibilitychange', shown);
    return () => {
      stop();
      window.clearInterval(timer);
      document.removeEventListener('visibilitychange', shown);
    };
  }, [loadedNow]);
  return <span className="badge sandbox" title="sandbox clock" data-testid="header-sandbox-now">sandbox · {when(sandboxNow() ?? loadedNow)}</span>;
}

export function App() {
  const [session, setSession] = useState<SessionInfo | null | 'loading'>('loading');
  const [logoutFailed, setLogoutFailed] = useState(false);
  const { path, navigate } = useRouter();

  const adopt = useCallback((s: SessionInfo | null) => {
    setCsrfToken(s?.csrfToken ?? null);
    setSession(s);
    setLogoutFailed(false);
  }, []);

  useEffect(() => {
    whenLoggedOut(() => adopt(null));
    api.session().then(adopt, () => adopt(null));
    prefetchPages();
  }, [adopt]);
  const loggedIn = session !== 'loading' && session !== null;
  useEffect(() => {
    if (loggedIn) prefetchCharts();
  }, [loggedIn]);

  if (session === 'loading') return <p className="loading">Loading…</p>;
  if (!session) return <Login onLogin={(s) => { adopt(s); if (path === '/login') navigate('/', { replace: true }); }} />;

  // Logged out only when the service says so (204, or 401: no session any more). Any other answer leaves the
  // session open on the server, where a reload would find it: the page says so instead of looking logged out.
  const logout = async () => {
    setLogoutFailed(false);
    try {
      await api.logout();
    } catch (err) {
      if (!(err instanceof ApiFailure && err.httpStatus === 401)) {
        setLogoutFailed(true);
        return;
      }
    }
    adopt(null);
    navigate('/', { replace: true });
  };

  let page;
  let m;
  if (path === '/' || path === '/login') page = <Queue />;
  else if ((m = match('/refunds/:code', path))) page = <RefundPage code={m.code!} role={session.operator.role} />;
  else if ((m = match('/voids/:code', path))) page = <VoidPage code={m.code!} role={session.operator.role} />;
  else if (path === '/cases') page = <Cases />;
  else if ((m = match('/cases/:id', path))) page = <CasePage id={m.id!} role={session.operator.role} />;
  else if (path === '/audit' && session.operator.role === 'admin') page = <AuditPage />;
  else if (path === '/seatmaps') page = <SeatMaps />;
  else if (path === '/charts') page = <ChartsPage />;
  else if (path === '/clients') page = <Clients role={session.operator.role} />;
  else if (path === '/operators') page = <Operators role={session.operator.role} />;
  else if (path === '/account') page = <Account session={session} onSession={adopt} />;
  else if (path === '/sandbox' && session.sandbox) page = <Sandbox role={session.operator.role} />;
  else page = <main id="main"><h1>Not found</h1><p>No console page at this address. <Link to="/">Back to the refund queue</Link>.</p></main>;

  return (
    <>
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <span className="brand">postbook console</span>
        <nav aria-label="Console">
          <Link to="/" aria-current={path === '/' ? 'page' : undefined}>Refund queue</Link>
          <Link to="/cases" aria-current={path.startsWith('/cases') ? 'page' : undefined}>Console cases</Link>
          <Link to="/seatmaps" aria-current={path === '/seatmaps' ? 'page' : undefined}>Seat maps</Link>
          <Link to="/charts" aria-current={path === '/charts' ? 'page' : undefined}>Charts</Link>
          {session.operator.role === 'admin' ? <Link to="/clients" aria-current={path === '/clients' ? 'page' : undefined}>Clients</Link> : null}
          {session.operator.role === 'admin' ? <Link to="/operators" aria-current={path === '/operators' ? 'page' : undefined}>Operators</Link> : null}
          {session.operator.role === 'admin' ? <Link to="/audit" aria-current={path === '/audit' ? 'page' : undefined}>Audit log</Link> : null}
          {session.sandbox ? <Link to="/sandbox" aria-current={path === '/sandbox' ? 'page' : undefined}>Sandbox</Link> : null}
        </nav>
        <span className="who">
          {session.sandbox ? <SandboxBadge loadedNow={session.now} /> : null}
          <Link to="/account" aria-current={path === '/account' ? 'page' : undefined} aria-label="Your account"><span data-testid="operator">{session.operator.login}</span></Link> <span className="badge">{session.operator.role}</span>
          <button type="button" onClick={() => void logout()}>Log out</button>
          {logoutFailed ? <span role="alert" className="error"> logout failed, try again (your session is still open)</span> : null}
        </span>
      </header>
      {page}
    </>
  );
}
