// A reporter for node's test runner (scripts/run-tests.ts adds it beside the usual one): each test file's time,
// the sum of its top-level tests' and suites' durations, written as one JSON object { file: ms } when the run ends.
// The file's process start and imports are not in it (node 20's events carry no per-file time); they cost
// about the same in every file, so the order of the files by these times is the order by their wall time.
interface TestEvent {
  type: string;
  data?: { file?: string; nesting?: number; details?: { duration_ms?: number } };
}

export default async function* testTimes(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const times: Record<string, number> = {};
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data ?? {};
    if (!file || nesting !== 0) continue;
    times[file] = (times[file] ?? 0) + (details?.duration_ms ?? 0);
  }
  yield JSON.stringify(times);
}

/** The files in the order to start them: longest first by `times` (stable), a file with no time yet before them all. */
export function longestFirst(files: readonly string[], times: Readonly<Record<string, number>>): string[] {
  const time = (f: string) => times[f] ?? Number.POSITIVE_INFINITY;
  return [...files].sort((a, b) => (time(a) === time(b) ? 0 : time(b) - time(a)));
}
