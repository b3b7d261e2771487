// The one clock of the service. Sandbox mode uses a movable test clock so windows, expiries and refund
// timelines can be crossed in a test or a demo; production uses the system clock.

export interface Clock {
  now(): Date;
  /** True when the clock can be moved (sandbox). */
  readonly movable: boolean;
}

export const systemClock: Clock = {
  now: () => new Date(),
  movable: false,
};

/** Real time plus an offset: time keeps flowing, and an operator can jump it forward or set it. */
export class TestClock implements Clock {
  readonly movable = true;
  private offsetMs = 0;
  private frozenAt: number | null = null;

  constructor(private readonly base: () => number = Date.now) {}

  now(): Date {
    return new Date(this.frozenAt ?? this.base() + this.offsetMs);
  }

  /** How far the clock is ahead of the real time, in ms. */
  offset(): number {
    // not now() - base(): the two reads of the time a millisecond apart made a clock at the real time read -1 ms
    // ahead, "-0.0 h" (a flaky CLI test)
    return this.frozenAt === null ? this.offsetMs : this.frozenAt - this.base();
  }

  /** Move forward by ms (never backwards: refunds and offers must not see time reverse). */
  advance(ms: number): Date {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    if (this.frozenAt !== null) this.frozenAt += ms;
    else this.offsetMs += ms;
    return this.now();
  }

  /** Jump to an instant at or after the current one. */
  set(to: Date): Date {
    const delta = to.getTime() - this.now().getTime();
    return this.advance(delta);
  }

  /** Stop the flow of time (tests that need exact instants); unfreeze resumes from the frozen instant. */
  freeze(): void {
    this.frozenAt = this.now().getTime();
  }

  /** Whether time stands still (between freeze and unfreeze). */
  get frozen(): boolean {
    return this.frozenAt !== null;
  }

  unfreeze(): void {
    if (this.frozenAt === null) return;
    this.offsetMs = this.frozenAt - this.base();
    this.frozenAt = null;
  }
}
