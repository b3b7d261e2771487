// The retry schedule (docs/webhooks.md "Retries"): 10 s after the first failed attempt, doubling up to one
// hour, until 24 h after the event; the attempt at 24 h is the last, and its failure marks the event failed.

export const FIRST_RETRY_MS = 10_000;
export const MAX_RETRY_MS = 3_600_000;
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;

/** When the next attempt is due after `attempts` failed ones, or null when the event is given up. */
export function nextAttemptAt(occurredAt: Date, attempts: number, now: Date): Date | null {
  const deadline = occurredAt.getTime() + GIVE_UP_AFTER_MS;
  if (now.getTime() >= deadline) return null;
  const delay = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);
  return new Date(Math.min(now.getTime() + delay, deadline));
}
