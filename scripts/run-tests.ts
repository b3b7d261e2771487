// Runs every *.test.ts under src/ and test/ with node's test runner, capturing every log line the apps
// write, then checks that no planted secret or personal value reached a log (docs/architecture.md "Security").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PLANTED } from '../src/test-support/planted.js';

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : findTests(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// test/ first: its files start servers and CLIs as child processes and run longest (the crash tests, the CLIs,
// the server process: half the suite's time in a tenth of its files); started first, the two slots end together
// instead of one running them alone at the end.
let files = [...findTests('test').sort(), ...findTests('src').sort()];
if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// The process-level tests' children run the build (test/support/processes.ts), compiled once here as
// `npm run build` compiles it: tsx compiling the sources again in each of them cost ~1.8 s of CPU a child.
// Only when a file under test/ runs (a run of src/ files alone starts no child of postbook's); emitted without
// type checking (`--noCheck`, 6 s against 14): `npm test` has type-checked the same sources just before.
const ROOT = path.resolve(import.meta.dirname, '..');
const build = files.some((f) => f.startsWith(`test${path.sep}`)) ? path.join(ROOT, 'dist') : null;
if (build) {
  const compile = spawnSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--noCheck'], { cwd: ROOT, stdio: 'inherit' });
  if (compile.status !== 0) {
    console.error('compiling the build for the process-level tests failed');
    process.exit(compile.status ?? 1);
  }
}

const captureDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-logs-'));
const store = process.env.DATABASE_URL ? `PostgreSQL (${process.env.DATABASE_URL.replace(/\/\/[^@]*@/, '//***@')})` : 'PGlite';
console.log(`# ${files.length} test files on ${store}; logs captured in ${captureDir}`);

// Files whose report measures time (the console's page render times, docs/console.md) run after the others,
// on their own: beside another test file on a 2-core machine they would report the neighbour's load.
const ALONE = ['test/console-e2e.test.ts'];
const together = files.filter((f) => !ALONE.includes(f));
const alone = files.filter((f) => ALONE.includes(f));
// PGlite's WASM compiled by V8's baseline compiler only (`--liftoff-only`; the test files inherit it, and the
// servers and CLIs they start, test/support/processes.ts): a test process lives seconds, and V8's optimizing
// compiler spent more CPU tiering up postgres's hot functions than the tests ever got back. The whole suite
// on a 2-core AMD EPYC (2026-11-30, two alternating pairs): 228 and 236 s instead of 276 and 283, CPU 371 and
// 385 s instead of 477 and 489. Not for the file that measures the console's render times, nor for the
// service itself (`npm start`, the bench: a long-lived process gains from the optimizing tier).
const WASM_BASELINE = ['--liftoff-only'];
for (const [batch, concurrency, v8Flags] of [
  [together, 2, WASM_BASELINE],
  [alone, 1, []],
] as const) {
  if (batch.length === 0) continue;
  const run = spawnSync(process.execPath, [...v8Flags, '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...batch], {
    stdio: 'inherit',
    env: { ...process.env, POSTBOOK_LOG_CAPTURE_DIR: captureDir, ...(build ? { POSTBOOK_TEST_BUILD: build } : {}) },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
}

// ---- the log check: every line every app wrote during the suite ----
const captured = fs
  .readdirSync(captureDir)
  .map((f) => fs.readFileSync(path.join(captureDir, f), 'utf8'))
  .join('');
const lines = captured.split('\n').filter(Boolean);
const requestLines = lines.filter((l) => l.includes('"reqId"')).length;
// A capture that saw no traffic would pass vacuously: the whole suite's HTTP traffic must be there (a run of
// a few chosen files is still checked, without the minimum).
const minimum = filter.length > 0 ? 0 : 200;
if (requestLines < minimum) {
  console.error(`log check: only ${requestLines} request log lines were captured; the capture is not working`);
  process.exit(1);
}
const planted = [...PLANTED.names, ...PLANTED.emails, ...PLANTED.phones, ...PLANTED.documents, ...PLANTED.secrets, ...PLANTED.cards];
const leaks = planted.filter((value) => captured.toLowerCase().includes(value.toLowerCase()));
if (leaks.length > 0) {
  console.error(`log check: FAILED — ${leaks.length} planted value(s) reached the logs: ${leaks.map((v) => v.slice(0, 3) + '…').join(', ')}`);
  console.error(`see ${captureDir}`);
  process.exit(1);
}
console.log(`# log check: ${lines.length} log lines (${requestLines} with a request id), none holds any of ${planted.length} planted values`);
fs.rmSync(captureDir, { recursive: true, force: true });
