// Failed console logins, counted per login and per client address in this process's memory: after
// MAX_FAILURES within WINDOW_MS a key is refused (HTTP 429) until its oldest failure leaves the window,
// whatever the password. One process's count: several API processes each count their own (docs/console.md).
const WINDOW_MS = 15 * 60_000;
const LIMITS: Record<string, number> = { login: 5, ip: 20 };

export class FailedLogins {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  private recent(key: string): number[] {
    const since = this.now() - WINDOW_MS;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > since);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }

  /** Milliseconds until every key may try again; 0 when none is blocked. */
  blockedFor(keys: string[]): number {
    let wait = 0;
    for (const key of keys) {
      const limit = LIMITS[key.split(':')[0]!] ?? 5;
      const times = this.recent(key);
      if (times.length >= limit) wait = Math.max(wait, times[times.length - limit]! + WINDOW_MS - this.now());
    }
    return wait;
  }

  failed(keys: string[]): void {
    for (const key of keys) this.failures.set(key, [...this.recent(key), this.now()]);
    // Bounded memory under a spray of logins: forget the oldest keys.
    if (this.failures.size > 10_000) for (const k of [...this.failures.keys()].slice(0, 1000)) this.failures.delete(k);
  }

  succeeded(key: string): void {
    this.failures.delete(key);
  }
}
