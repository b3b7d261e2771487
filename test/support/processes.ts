// Child processes of the process-level tests: postbook's server or CLI, their output kept, and every child
// killed when the test file ends (call `killChildren` in an `after` hook). Under the suite's runner
// (scripts/run-tests.ts) they run the build it compiled once (`node dist/….js`, as `npm start` deploys it);
// a test file run on its own runs the sources with tsx.
import { execFileSync, spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import path from 'node:path';
import { migratedTemplateFile } from '../../src/test-support/template.js';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
const children: ChildProcess[] = [];

export interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Parsed JSON log lines of stdout. */
  lines: () => Array<Record<string, unknown>>;
}

/**
 * The folder of the build scripts/run-tests.ts compiled for this run (POSTBOOK_TEST_BUILD), or null: the
 * sources are run with tsx. Compiling the service's ~200 modules again in every child cost ~1.8 s of CPU each
 * (tsx's loader thread; ~70 children in a suite).
 */
const BUILD = process.env.POSTBOOK_TEST_BUILD?.trim() || null;

/** The test process's WASM tier (scripts/run-tests.ts), passed on to the children it starts. */
const WASM_TIER = process.execArgv.filter((a) => a === '--liftoff-only');

/**
 * Node's arguments for `src/<entry>.ts <args>`: `dist/<entry>.js <args>` from the runner's build, else
 * `--import tsx src/<entry>.ts <args>`; with the test process's WASM tier.
 */
export function nodeArgs(args: string[]): string[] {
  const [entry, ...rest] = args;
  const source = /^src\/(.+)\.ts$/.exec(entry ?? '');
  if (!source) throw new Error(`nodeArgs: ${entry} is not a source file under src/`);
  return [...WASM_TIER, ...(BUILD ? [path.join(BUILD, `${source[1]}.js`), ...rest] : ['--import', 'tsx', entry!, ...rest])];
}

/**
 * The time a suite run under libfaketime gives its processes (DEVELOPERS.md "Tests at any time of day"): passed on to
 * the children, or they would run at the real time beside a test process hours away from it.
 */
const FAKED_TIME: Record<string, string> = process.env.FAKETIME ? { FAKETIME: process.env.FAKETIME, LD_PRELOAD: process.env.LD_PRELOAD ?? '' } : {};

/** `node src/<entry>.ts <args>` (see nodeArgs) in the repository, with only PATH, PORT=0, LOG_LEVEL=info, a faked time and `env`. */
export function spawnNode(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, nodeArgs(args), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...FAKED_TIME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watch(child);
}

/**
 * `dataDir` (a DATA_DIR) holding the embedded store as a first start leaves it before the world is loaded —
 * the cluster created and every migration run — unpacked from the migrated template the in-process tests
 * clone (src/test-support/app.ts) into `<dataDir>/pglite`, where the store opens it. A first start in an empty
 * folder creates the cluster (initdb, ~6 s in WASM) and runs every migration (~1.5 s): for the tests of
 * anything but that first start. Returns `dataDir`.
 */
export async function migratedDataDir(dataDir: string): Promise<string> {
  const target = path.join(dataDir, 'pglite');
  fs.mkdirSync(target, { recursive: true });
  // The dump's member names start with "/": tar strips it (and says so on stderr, not shown).
  execFileSync('tar', ['-xf', await migratedTemplateFile(), '-C', target], { stdio: 'pipe' });
  return dataDir;
}

/** A child process started by a test: killed by killChildren(), its output kept and its JSON log lines parsed. */
export function watch(child: ChildProcessByStdio<null, Readable, Readable>): Proc {
  children.push(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return {}; // a line cut by kill -9
        }
      });
  return { child, exit, stdout: () => out, stderr: () => err, lines };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for a log line with this `msg`; fails early if the process exits first. The default wait is long: on a machine
 * shared with other test runs, starting the embedded store can take a minute. */
export async function waitForLog(p: Proc, msg: string, ms = 180_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const line = p.lines().find((l) => l.msg === msg);
    if (line) return line;
    const exited = await Promise.race([p.exit.then(() => true), sleep(100).then(() => false)]);
    if (exited) throw new Error(`process exited before "${msg}": ${p.stderr()} ${p.stdout().slice(-2000)}`);
  }
  // what the process said so far: a start that hangs (seen twice under a loaded machine, not reproduced alone) says where
  const said = p.lines().map((l) => String(l.msg)).slice(-15).join(' | ');
  throw new Error(`no "${msg}" within ${ms / 1000} s; its last log lines: ${said || '(none)'}; stderr: ${p.stderr().slice(-1500) || '(none)'}`);
}

/** The server, once it logged "postbook is ready", with its URL. */
export async function startServer(env: Record<string, string>): Promise<Proc & { url: string }> {
  const p = spawnNode(['src/server.ts'], env);
  const ready = await waitForLog(p, 'postbook is ready');
  return { ...p, url: String(ready.url) };
}

export function killChildren(): void {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
