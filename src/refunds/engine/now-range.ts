// The minutes to departure (docs/architecture.md "Refund arithmetic" step 1) and the range of instants at which the
// engine's readings of the clock give the same (decision 0067). On their own so that the engine's types may name the
// range without a cycle through time.ts.

const MINUTE = 60_000;

/** step 1 + edge case: floor of the exact difference in minutes (30 s after departure is −1). */
export function minutesBetween(nowMs: number, departureMs: number): number {
  const m = Math.floor((departureMs - nowMs) / MINUTE);
  return m === 0 ? 0 : m; // never -0
}

/**
 * The instants (epoch milliseconds, both ends included) at which every reading of the clock made so far gives what
 * it gave at `now`: each place that compares `now` with an instant, or cuts time into minutes or days, narrows the
 * range to the side of it that `now` is on. So an answer computed from `now` and readings made through this range
 * is the answer at any instant inside it, all else equal (decision 0067: a quote priced once is answered again
 * while the clock stays inside its range). A reading it cannot bound exactly narrows it to `now` alone.
 */
export class NowRange {
  from = -Infinity;
  until = Infinity;

  constructor(readonly now: number) {}

  /** Keeps only the instants from `from` to `until` (integers, both included). */
  within(from: number, until: number): void {
    if (from > this.from) this.from = from;
    if (until < this.until) this.until = until;
  }

  /** `now > instant`, keeping the range on that side of it (`now` and the range's ends are whole milliseconds). */
  after(instant: number): boolean {
    const cut = Math.floor(instant);
    if (this.now > instant) {
      this.within(cut + 1, Infinity);
      return true;
    }
    this.within(-Infinity, cut);
    return false;
  }

  /** minutesBetween(now, departureMs), keeping the range to the instants that give the same whole minutes. */
  minutesUntil(departureMs: number): number {
    const m = minutesBetween(this.now, departureMs);
    // floor((d − t) / MINUTE) = m exactly when d − (m + 1)·MINUTE < t ≤ d − m·MINUTE
    this.within(Math.floor(departureMs - (m + 1) * MINUTE) + 1, Math.floor(departureMs - m * MINUTE));
    return m;
  }

  /** Whether `instant` (a whole millisecond) is inside the range. */
  holds(instant: number): boolean {
    return instant >= this.from && instant <= this.until;
  }
}
