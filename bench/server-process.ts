// postbook as it is deployed, in a process of its own (`node dist/server.js`, built first), for the measures
// that concern the API process itself (its memory): the bench process also runs the load generator and the
// yardsticks, so its own figures would include theirs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface ServerProcess {
  baseUrl: string;
  pid: number;
  /** Resident set size now (VmRSS of /proc/<pid>/status), in bytes. */
  rssBytes(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb[1]) * 1024;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Builds dist/ (`npm run build`'s compiler step) and starts `node dist/server.js` on a free loopback port with
 * the bench's world, on the bench's PostgreSQL or on a fresh embedded data folder of its own (PGlite allows
 * one process per folder). Resolves once the service answers.
 */
export async function startServerProcess(opts: { root: string; worldFile: string; databaseUrl: string | null }): Promise<ServerProcess> {
  execFileSync(process.execPath, [path.join(opts.root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: opts.root, stdio: 'inherit' });
  const port = await freePort();
  const dataDir = opts.databaseUrl ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-server-'));
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(port),
    HOST: '127.0.0.1',
    // As deployed: info, one access line per answer, to a file (as a log collector's pipe would take it).
    LOG_LEVEL: 'info',
    WORLD: opts.worldFile,
    // As deployed (docs/production.md) and as the in-process measures run: on PostgreSQL the API process answers
    // HTTP and the refund workers run elsewhere; the embedded store's one process carries them (a review: the API
    // process measured here carried the workers on PostgreSQL too)
    WORKERS: opts.databaseUrl ? 'false' : 'true',
    ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : { DATA_DIR: dataDir! }),
  };
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-bench-log-'));
  const logFd = fs.openSync(path.join(logDir, 'postbook.log'), 'a');
  const child = spawn(process.execPath, [path.join(opts.root, 'dist/server.js')], { cwd: opts.root, env, stdio: ['ignore', logFd, 'pipe'] });
  fs.closeSync(logFd);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited(child);
    clearTimeout(killer);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(logDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`postbook (node dist/server.js) exited with ${child.exitCode} before it answered: ${stderr.trim()}`);
    }
    const answered = await fetch(`${baseUrl}/openapi.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (answered) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`postbook (node dist/server.js) did not answer within 120 s: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { baseUrl, pid: child.pid!, rssBytes: () => rssOf(child.pid!), stop };
}
