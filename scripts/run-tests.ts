// Runs every *.test.ts under src/ and test/ with node's test runner, capturing every log line the apps
// write, then checks that no planted secret or personal value reached a log (docs/architecture.md "Security").
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { PLANTED } from '../src/test-support/planted.js';
import { longestFirst } from './test-times.js';

function findTests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : findTests(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

const filter = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const allFiles = [...findTests('test').sort(), ...findTests('src').sort()];

// The order the files start in: longest first, by their times in this machine's last runs on this store (kept in the
// temporary folder, as the PGlite template is), so that the two slots end together instead of one running a long
// file alone at the end; a file with no time yet goes first. With no times at all (a machine's first run), test/
// first: its files start servers and CLIs as child processes and run longest (the crash tests, the CLIs, the server
// process: half the suite's time in a tenth of its files).
const timesFile = path.join(os.tmpdir(), `postbook-test-times-${process.env.DATABASE_URL ? 'postgres' : 'pglite'}.json`);
const readTimes = (file: string): Record<string, number> => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
};
const pastTimes = readTimes(timesFile);
let files = longestFirst(allFiles, pastTimes);
if (filter.length > 0) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// The tests run compiled: tsc emits the sources once (tsconfig.json's src/, test/, bench/ and scripts/) into a mirror
// of the repository (below), and node runs the test files there with no loader. Under tsx every module a test
// process imports, node_modules' included, passed through its loader thread: importing the service took ~4.3 s of CPU
// instead of ~2.1 compiled, in each of ~135 test processes (2026-12-05, AMD EPYC). The process-level tests' children
// run the same build (test/support/processes.ts: tsx compiling the sources again in each of them cost ~1.8 s of CPU
// a child). The files that import the console's front-end sources (console/src/, which Vite compiles, and whose tests
// build console/dist/ beside them) run from the sources with tsx. Emitted without type checking (`--noCheck`):
// `npm test` has type-checked the same sources just before.
const ROOT = path.resolve(import.meta.dirname, '..');
const sourcesOnly = new Set(allFiles.filter((f) => fs.readFileSync(f, 'utf8').includes('console/src/')));
const fromSources = (file: string) => sourcesOnly.has(file);

/**
 * The mirror: a folder of the repository's shape. Where tsc emitted JavaScript, its folders hold it beside links to
 * each file of the sources (the .ts files that tests read as text, READMEs); every other entry is a link to the
 * repository's (node_modules, package.json, worlds/, docs/, console/ …). A path a module computes from its own place
 * (`../../worlds/demo.yaml`, the console's dist/) reaches the same file as from the sources.
 */
function buildMirror(): string {
  const mirror = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-tests-'));
  process.on('exit', () => fs.rmSync(mirror, { recursive: true, force: true }));
  const config = path.join(mirror, 'tsconfig.mirror.json');
  const dirs = ['src', 'test', 'bench', 'scripts'];
  fs.writeFileSync(
    config,
    JSON.stringify({
      extends: path.join(ROOT, 'tsconfig.json'),
      compilerOptions: { rootDir: ROOT, outDir: mirror },
      include: dirs.map((d) => path.join(ROOT, d)),
      exclude: [...sourcesOnly].map((f) => path.join(ROOT, f)),
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compile = spawnSync(process.execPath, [tsc, '-p', config, '--noCheck'], { cwd: ROOT, stdio: 'inherit' });
  if (compile.status !== 0) {
    console.error('compiling the tests and the service for the test run failed');
    process.exit(compile.status ?? 1);
  }
  // console/ stays a link: the browser tests build console/dist/ in it while the servers serve it from there.
  if (fs.existsSync(path.join(mirror, 'console'))) {
    console.error("the test build compiled the console's sources: a compiled file imports console/src/ (such a test file runs from the sources: fromSources)");
    process.exit(1);
  }
  const link = (rel: string) => {
    for (const name of fs.readdirSync(path.join(ROOT, rel))) {
      const r = path.join(rel, name);
      if (r === '.git') continue;
      const there = fs.statSync(path.join(mirror, r), { throwIfNoEntry: false });
      if (!there) fs.symlinkSync(path.join(ROOT, r), path.join(mirror, r));
      else if (there.isDirectory()) link(r);
    }
  };
  link('');
  return mirror;
}

const mirror = buildMirror();
const build = path.join(mirror, 'src');
const compiled = (f: string) => path.join(mirror, f.replace(/\.ts$/, '.js'));

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
// Compiled files with their stack traces mapped back to the sources; tsx maps its own.
const COMPILED = ['--enable-source-maps'];
const TSX = ['--import', 'tsx'];
const fileOf = (f: string) => (fromSources(f) ? f : compiled(f));
// Beside the usual report (node's default: spec on a terminal, else TAP), each file's time (scripts/test-times.ts).
const REPORTERS = (times: string) => [
  `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
  '--test-reporter-destination=stdout',
  `--test-reporter=${path.join(mirror, 'scripts', 'test-times.js')}`,
  `--test-reporter-destination=${times}`,
];
const runTimes: Record<string, number> = {};
const batches: Array<[files: string[], concurrency: number, nodeFlags: string[]]> = [
  [together.filter((f) => !fromSources(f)).map(compiled), 2, [...WASM_BASELINE, ...COMPILED]],
  [together.filter(fromSources), 2, [...WASM_BASELINE, ...TSX]],
  [alone.map(fileOf), 1, alone.some(fromSources) ? TSX : COMPILED],
];
for (const [i, [batch, concurrency, nodeFlags]] of batches.entries()) {
  if (batch.length === 0) continue;
  const times = path.join(mirror, `test-times-${i}.json`);
  const run = spawnSync(process.execPath, [...nodeFlags, ...REPORTERS(times), '--test', `--test-concurrency=${concurrency}`, ...batch], {
    stdio: 'inherit',
    env: { ...process.env, POSTBOOK_LOG_CAPTURE_DIR: captureDir, POSTBOOK_TEST_BUILD: build },
  });
  if (run.status !== 0) process.exit(run.status ?? 1);
  // the mirror's compiled paths back to the repository's sources
  for (const [file, ms] of Object.entries(readTimes(times))) runTimes[path.relative(file.startsWith(mirror) ? mirror : ROOT, file).replace(/\.js$/, '.ts')] = ms;
}
// Kept for the next run's order (a run of some files keeps the others' times); only a passing run's times. Written
// whole and then renamed into place: a run starting meanwhile reads the old times or the new, never half a file.
const timesTmp = `${timesFile}.${process.pid}`;
fs.writeFileSync(timesTmp, JSON.stringify({ ...pastTimes, ...runTimes }));
fs.renameSync(timesTmp, timesFile);
const slowest = Object.entries(runTimes).sort((a, b) => b[1] - a[1]).slice(0, 8);
console.log(`# slowest files (their tests' time): ${slowest.map(([f, ms]) => `${f} ${(ms / 1000).toFixed(0)} s`).join(', ')}`);

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
