// A wait on the store with an end: the readiness probe and the metrics' store figures (a stalled store must not
// hold either). Its own module: the metrics cannot import the health checks (they import the app's deps).

/** How long the store may take to answer `select 1` before the process counts as not ready. */
export const STORE_PROBE_TIMEOUT_MS = 2_000;

/** A probe that timed out says so; any other failure is named by its code only, its text to the log. */
export class ProbeTimeout extends Error {}

/** `work`, or a rejection once `ms` have passed (the work itself goes on: a driver's query cannot be taken back). */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
