// Polls until `fn` yields a truthy value (returned), or fails the test after `ms` naming what it waited for.
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 20_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
