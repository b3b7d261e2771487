// Child processes of the process-level tests: postbook's server or CLI run with tsx, their output kept,
// and every child killed when the test file ends (call `killChildren` in an `after` hook).
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import path from 'node:path';

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

/** `node --import tsx <args>` in the repository, with only PATH, PORT=0, LOG_LEVEL=info and `env`. */
export function spawnNode(args: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return watch(child);
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
  throw new Error(`no "${msg}" within ${ms / 1000} s`);
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
