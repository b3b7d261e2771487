// The sandbox clock as the console's header shows it: read from the service (the session at load, the sandbox
// panel's reads and moves), then kept current in the browser from its offset to the browser's clock, so the header
// neither stays at the time the session was loaded nor misses a move made from the panel. Kept apart from the
// pages (no React) so a test reads it without a browser (test/console-format.test.ts).

/** A sandbox time read from the service, and how far ahead of the browser's clock it was when read. */
export interface SandboxTime {
  /** sandbox time − the browser's time, in ms, when it was read */
  offsetMs: number;
}

let current: SandboxTime | null = null;
const listeners = new Set<() => void>();

/** The service's sandbox time `nowIso`, read at the browser's time `readAt` (ms): the header follows it from now on. */
export function adoptSandboxTime(nowIso: string, readAt: number = Date.now()): void {
  const t = Date.parse(nowIso);
  if (!Number.isFinite(t)) return;
  current = { offsetMs: t - readAt };
  for (const l of listeners) l();
}

/** The sandbox time at the browser's time `at` (ms), or null before any read. */
export function sandboxNow(at: number = Date.now()): string | null {
  return current === null ? null : new Date(at + current.offsetMs).toISOString();
}

/** Called at every adoptSandboxTime; the returned function stops it. */
export function onSandboxTime(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
