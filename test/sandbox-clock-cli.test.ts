// `postbook sandbox clock` (README "Sandbox clock"): show, advance by a duration, set to an instant, on the
// stored clock that every process follows; bad arguments exit 2 with the reason.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killChildren, migratedDataDir, spawnNode } from './support/processes.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-clock-cli-'));
const dataDir = await migratedDataDir(path.join(dir, 'data'));
after(() => {
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const p = spawnNode(['src/cli.ts', ...args], { DATA_DIR: dataDir, SANDBOX: 'true', ...env });
  const { code } = await p.exit;
  return { code, out: p.stdout(), err: p.stderr() };
}
const hoursAhead = (out: string) => Number(/\(([\d.]+) h ahead/.exec(out)?.[1]);

test('sandbox clock: show, advance, set, refusals', { timeout: 300_000 }, async () => {
  const shown = await cli(['sandbox', 'clock']);
  assert.equal(shown.code, 0, shown.err);
  assert.equal(hoursAhead(shown.out), 0);

  const advanced = await cli(['sandbox', 'clock', 'advance', '1d12h']);
  assert.equal(advanced.code, 0, advanced.err);
  assert.equal(hoursAhead(advanced.out), 36);
  assert.equal(hoursAhead((await cli(['sandbox', 'clock', 'show'])).out), 36, 'stored: a later command sees it');

  const target = new Date(Date.now() + 10 * 86_400_000);
  const set = await cli(['sandbox', 'clock', 'set', target.toISOString()]);
  assert.equal(set.code, 0, set.err);
  assert.ok(Math.abs(hoursAhead(set.out) - 240) <= 0.1, set.out);

  const back = await cli(['sandbox', 'clock', 'set', new Date().toISOString()]);
  assert.equal(back.code, 2);
  assert.match(back.err, /only moves forward/);
  const bad = await cli(['sandbox', 'clock', 'advance', 'soon']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /duration such as 90m/);
  const off = await cli(['sandbox', 'clock'], { SANDBOX: 'false' });
  assert.equal(off.code, 2);
  assert.match(off.err, /only in sandbox mode/);
});
