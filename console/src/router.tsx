// A small client-side router over the History API: the console's pages live under /console/…, the service
// answers index.html for each of them, and links navigate without reloading.
import { createContext, useCallback, useContext, useEffect, useState, type AnchorHTMLAttributes, type MouseEvent, type ReactNode } from 'react';

export const BASE = '/console';

interface RouterState {
  path: string;
  search: string;
  navigate: (to: string, opts?: { replace?: boolean }) => void;
}

const RouterContext = createContext<RouterState>({ path: '/', search: '', navigate: () => undefined });

function current(): { path: string; search: string } {
  const p = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : window.location.pathname;
  return { path: p === '' ? '/' : p, search: window.location.search };
}

export function Router({ children }: { children: ReactNode }) {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const onPop = () => setLoc(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, opts?: { replace?: boolean }) => {
    const url = `${BASE}${to}`;
    if (opts?.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    setLoc(current());
    window.scrollTo(0, 0);
  }, []);
  return <RouterContext.Provider value={{ ...loc, navigate }}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterState {
  return useContext(RouterContext);
}

/** An in-app link: a real <a href> (open in a new tab works), navigated without a reload on a plain click. */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  const { navigate } = useRouter();
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a href={`${BASE}${to}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/** `/refunds/:code` against a path: the parameters, or null (also for a parameter that is not valid percent-encoding). */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/');
  const a = path.split('/');
  if (p.length !== a.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!;
    if (seg.startsWith(':')) {
      // A malformed `%` (a hand-edited or cut address) threw here and blanked the whole console: no such page.
      try {
        out[seg.slice(1)] = decodeURIComponent(a[i]!);
      } catch {
        return null;
      }
    } else if (seg !== a[i]) return null;
  }
  return out;
}
