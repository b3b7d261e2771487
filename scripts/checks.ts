// The static checks of `npm test` — the three type checks, the lint and the layering check — run side by side,
// as many at once as the machine has cores: each is one thread's work, and one after the other they took ~35 s
// on a 2-core machine, the lint alone 19 s. Each check's output is printed whole when it ends; the exit code is
// that of the first check to fail (1 for one ended by a signal).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Check {
  name: string;
  command: string;
}

// The checks as package.json's own scripts define them (`npm run typecheck`, `lint`, `lint:deps` run them one by
// one), each `a && b` taken apart; the longest first, so that it never waits for a free slot.
const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const CHECKS: Check[] = ['lint', 'typecheck', 'lint:deps'].flatMap((script) => {
  const text = scripts[script];
  if (!text) throw new Error(`package.json has no script ${script}`);
  return text.split(' && ').map((command) => ({ name: `${script}: ${command}`, command }));
});

function run(check: Check): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    // npm run puts node_modules/.bin on the PATH, as for the scripts themselves
    const child = spawn(check.command, { cwd: ROOT, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
