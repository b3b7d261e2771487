// The built console (console/dist) for the browser tests: built here when missing or older than its sources,
// so a fresh clone's `npm test` needs no separate step (docs/console.md "Tests"). Built into a folder of its
// own and renamed into place, so two test processes building at once never serve a half-written build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './processes.js';

const CONSOLE = path.join(ROOT, 'console');
const DIST = path.join(CONSOLE, 'dist');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name.startsWith('.dist-') || entry.name === 'node_modules') continue;
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureConsoleBuilt(): void {
  const index = path.join(DIST, 'index.html');
  if (fs.existsSync(index) && fs.statSync(index).mtimeMs >= newestSource(CONSOLE)) return;
  const out = `.dist-${process.pid}`;
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', path.join(CONSOLE, 'vite.config.ts'), '--logLevel', 'warn'], {
    cwd: ROOT,
    env: { ...process.env, CONSOLE_OUT_DIR: out },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const built = path.join(CONSOLE, out);
  const old = path.join(CONSOLE, `.dist-old-${process.pid}`);
  if (fs.existsSync(DIST)) fs.renameSync(DIST, old);
  try {
    fs.renameSync(built, DIST);
  } catch {
    fs.rmSync(built, { recursive: true, force: true }); // another process put its fresh build in place first
  }
  fs.rmSync(old, { recursive: true, force: true });
}
