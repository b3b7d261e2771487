// Call options with a time budget whose AbortSignal (and its timer) is made only when a connector waits.
import type { CallOptions } from './connector.js';

/** How long postbook waits for an airline when the caller sets no time-out: every airline call of a request or a worker. */
export const AIRLINE_TIMEOUT_MS = 15_000;
/** How long a graceful stop waits for the workers' running jobs: an airline call's time-out and its outcome's statements. */
export const STOP_GRACE_MS = AIRLINE_TIMEOUT_MS + 5_000;

/**
 * A caller's budget, fixed when the call starts. Most sandbox reads never wait, and an
 * `AbortSignal.timeout` per call (a timer plus its bookkeeping) cost more than the read itself; the signal
 * is made on first use, for the time left, so a connector that does wait still stops at the same deadline.
 */
export class Deadline implements CallOptions {
  private readonly at: number;
  private made: AbortSignal | null = null;

  constructor(timeoutMs: number) {
    this.at = performance.now() + timeoutMs;
  }

  get signal(): AbortSignal {
    if (!this.made) {
      const left = Math.ceil(this.at - performance.now());
      this.made = left > 0 ? AbortSignal.timeout(left) : AbortSignal.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }
    return this.made;
  }

  /** True once the budget ran out; makes no signal. */
  get expired(): boolean {
    return this.made ? this.made.aborted : performance.now() >= this.at;
  }
}

/** Whether the caller already gave up, without making a signal that is not there yet. */
export function callExpired(opts: CallOptions): boolean {
  return opts instanceof Deadline ? opts.expired : opts.signal.aborted;
}

/**
 * `work`'s outcome, or `onExpiry()` thrown once the caller's budget runs out first: a wait on something that takes
 * no signal (a store read behind a busy embedded store) still ends at the deadline. `work` goes on and its outcome is
 * dropped. It makes the caller's signal (a Deadline's timer): use it where a wait happens, not on a path that
 * answers from memory.
 */
export function withinDeadline<T>(work: Promise<T>, opts: CallOptions, onExpiry: () => Error): Promise<T> {
  const signal = opts.signal;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(onExpiry());
  }
  return new Promise<T>((resolve, reject) => {
    const expire = () => reject(onExpiry());
    signal.addEventListener('abort', expire, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', expire);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', expire);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
