// The test runner's order of files (scripts/run-tests.ts): each file's time as its reporter (scripts/test-times.ts)
// records it from node's own test events, and the next run starting the longest first.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { longestFirst } from '../scripts/test-times.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-test-times-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test("the reporter sums each file's top-level tests and suites, nested ones and other files' not counted twice", () => {
  const slow = path.join(dir, 'slow.test.mjs');
  const quick = path.join(dir, 'quick.test.mjs');
  const wait = (ms: number) => `await new Promise((r) => setTimeout(r, ${ms}))`;
  fs.writeFileSync(
    slow,
    `import { describe, test } from 'node:test';\n` +
      `test('one', async () => { ${wait(300)}; });\n` +
      `describe('two', () => { test('inner a', async () => { ${wait(600)}; }); test('inner b', async () => { ${wait(600)}; }); });\n`,
  );
  fs.writeFileSync(quick, `import { test } from 'node:test';\ntest('only', async () => { ${wait(50)}; });\n`);
  const out = path.join(dir, 'times.json');
  // the reporter as this file runs: compiled beside it (scripts/run-tests.ts), or from the sources through tsx's
  // API (node loads a reporter before any --import hook is in place)
  let reporter = path.join(import.meta.dirname, '..', 'scripts', 'test-times.js');
  if (import.meta.filename.endsWith('.ts')) {
    reporter = path.join(dir, 'reporter.mjs');
    const source = path.join(import.meta.dirname, '..', 'scripts', 'test-times.ts');
    fs.writeFileSync(reporter, `import { tsImport } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};\nexport default (await tsImport(${JSON.stringify(source)}, import.meta.url)).default;\n`);
  }
  const run = spawnSync(
    process.execPath,
    ['--test-reporter', reporter, '--test-reporter-destination', out, '--test', '--test-concurrency=2', slow, quick],
    // not as this file's own child (node's runner marks its children so, and they then report to their parent)
    { encoding: 'utf8', env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
  );
  assert.equal(run.status, 0, run.stderr + run.stdout);
  const times = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, number>;
  assert.deepEqual(Object.keys(times).sort(), [quick, slow].sort());
  // one 300 ms test and a suite of two 600 ms tests: 1,500 ms, the inner tests counted again 2,700 (the margin between
  // is for timers late on a loaded machine)
  assert.ok(times[slow]! >= 1_490 && times[slow]! < 2_400, `slow: ${times[slow]}`);
  assert.ok(times[quick]! >= 45 && times[quick]! < 600, `quick: ${times[quick]}`);
});

test('the next run starts the longest files first, a file with no time yet before them, ties in their order', () => {
  const files = ['test/a.test.ts', 'test/b.test.ts', 'src/c.test.ts', 'src/d.test.ts', 'src/e.test.ts'];
  assert.deepEqual(longestFirst(files, { 'test/a.test.ts': 100, 'test/b.test.ts': 5_000, 'src/c.test.ts': 900, 'src/e.test.ts': 900 }), [
    'src/d.test.ts',
    'test/b.test.ts',
    'src/c.test.ts',
    'src/e.test.ts',
    'test/a.test.ts',
  ]);
  // no times at all: the order given
  assert.deepEqual(longestFirst(files, {}), files);
});
