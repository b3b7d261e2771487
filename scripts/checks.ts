// The static checks of `npm test` — the three type checks, the lint and the layering check — run side by side,
// as many at once as the machine has cores: each is one thread's work, and one after the other they took ~35 s
// on a 2-core machine, the lint alone 19 s. Each check's output is printed whole when it ends; the exit code is
// that of the first check to fail (1 for one ended by a signal).
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const bin = (pkg: string, file: string) => path.join(ROOT, 'node_modules', pkg, file);

interface Check {
  name: string;
  args: string[];
}

// The longest first, so that it never waits for a free slot.
const CHECKS: Check[] = [
  { name: 'lint (eslint .)', args: [bin('eslint', 'bin/eslint.js'), '.'] },
  { name: 'typecheck: service, tests, bench, scripts', args: [bin('typescript', 'bin/tsc'), '--noEmit', '-p', 'tsconfig.json'] },
  { name: 'typecheck: console', args: [bin('typescript', 'bin/tsc'), '--noEmit', '-p', 'console/tsconfig.json'] },
  { name: 'layering (dependency-cruiser)', args: [bin('dependency-cruiser', 'bin/dependency-cruise.mjs'), 'src', '--config', '.dependency-cruiser.cjs'] },
  { name: 'typecheck: client SDK', args: [bin('typescript', 'bin/tsc'), '--noEmit', '-p', 'packages/client/tsconfig.json'] },
];

function run(check: Check): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, check.args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => out.push(d));
    child.on('error', (err) => out.push(Buffer.from(String(err))));
    child.on('close', (code) => {
      const status = code ?? 1;
      const text = Buffer.concat(out).toString().trim();
      console.log(`${status === 0 ? '✔' : '✖'} ${check.name} (${((Date.now() - started) / 1000).toFixed(1)} s)${text ? `\n${text}` : ''}`);
      resolve(status);
    });
  });
}

const width = Math.max(1, Math.min(os.availableParallelism(), CHECKS.length));
const queue = [...CHECKS];
const statuses: number[] = [];
await Promise.all(
  Array.from({ length: width }, async () => {
    for (let check = queue.shift(); check; check = queue.shift()) statuses.push(await run(check));
  }),
);
const failed = statuses.find((s) => s !== 0);
if (failed !== undefined) process.exit(failed);
