// The embedded store's folder lock (decision 0002): one process per folder; a lock whose holder is provably gone
// is taken over at once, any other only once it is stale by its age (decision 0043).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, holderGone, lockDataDir, thisHolder, type Holder } from './lock.js';

const dirs: string[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
after(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-lock-'));
  dirs.push(d);
  return d;
}

const LOCK_MODULE = new URL('./lock.ts', import.meta.url).href;

/** A child process holding the lock of `dir` (resolves once it holds it). */
async function holderProcess(dir: string): Promise<ChildProcessWithoutNullStreams> {
  const script = `const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)}); await lockDataDir(${JSON.stringify(dir)}, () => process.exit(3), { waitMs: 0 }); console.log('locked'); setInterval(() => {}, 60000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('locked')) resolve();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`the holder exited (${code}) before it held the lock: ${err}`)));
  });
  return child;
}

async function kill9(child: ChildProcessWithoutNullStreams): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const lockDir = (dir: string) => path.join(dir, 'postbook.lock');
const holderFiles = (dir: string) => fs.readdirSync(lockDir(dir)).filter((n) => n.startsWith('holder-'));
const never = (err: Error) => assert.fail(`lock compromised: ${err.message}`);
const linux = thisHolder() ? false : 'no /proc here to tell whether a holder is gone';

describe('data folder lock', () => {
  test('a second process is refused while the holder lives, at once or after its wait', async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir);
    await assert.rejects(lockDataDir(dir, never, { waitMs: 0 }), DataDirLockedError);
    const t0 = Date.now();
    await assert.rejects(lockDataDir(dir, never, { waitMs: 700 }), /in use by another postbook process/);
    assert.ok(Date.now() - t0 >= 700, 'it waited for the holder to let go');
    await kill9(holder);
  });

  test('a holder killed with kill -9 is taken over at once, not after the stale age', { skip: linux }, async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir);
    assert.equal(holderFiles(dir).length, 1, 'the holder named itself in the lock folder');
    await kill9(holder);
    // waitMs 0: one attempt; the lock is seconds from stale by its age
    const lock = await lockDataDir(dir, never, { waitMs: 0 });
    const names = holderFiles(dir);
    assert.equal(names.length, 1);
    const named = JSON.parse(fs.readFileSync(path.join(lockDir(dir), names[0]!), 'utf8')) as Holder;
    assert.equal(named.pid, process.pid);
    await lock.release();
    assert.equal(fs.existsSync(lockDir(dir)), false, 'release removes the lock folder');
  });

  test('a lock naming no holder, or a holder this process cannot see, goes stale by its age only', async () => {
    const dir = tmpDir();
    fs.mkdirSync(lockDir(dir)); // a lock being made this instant, or one of an older postbook
    await assert.rejects(lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 }), DataDirLockedError);
    const self = thisHolder() ?? { bootId: 'b', pidNamespace: 'pid:[1]', pid: 1, startTicks: '1', uid: 0 };
    // a holder on another boot (or machine) whose PID is free here
    fs.writeFileSync(path.join(lockDir(dir), 'holder-x.json'), JSON.stringify({ ...self, bootId: 'another-boot', pid: 2 ** 22 + 1 }));
    await assert.rejects(lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 }), DataDirLockedError);
    fs.rmSync(path.join(lockDir(dir), 'holder-x.json'));
    // stale by its age: taken over as before
    const past = new Date(Date.now() - 3000);
    fs.utimesSync(lockDir(dir), past, past);
    const lock = await lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 });
    await lock.release();
  });

  test('naming the holder does not disturb its heartbeat: held past two refreshes, never compromised', async () => {
    const dir = tmpDir();
    let compromised: Error | null = null;
    const lock = await lockDataDir(dir, (err) => (compromised = err), { staleMs: 2000 }); // refreshed every second
    await new Promise((r) => setTimeout(r, 2600));
    assert.equal(compromised, null);
    await lock.release();
    assert.equal(fs.existsSync(lockDir(dir)), false);
  });

  test('holderGone: this process is not gone; a freed PID is; a reused PID (another start time) is', { skip: linux }, async () => {
    const self = thisHolder()!;
    assert.equal(holderGone(self), false);
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)']);
    children.push(child);
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid!;
    const childStat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = childStat.slice(childStat.lastIndexOf(')') + 2).split(' ')[19]!;
    assert.equal(holderGone({ ...self, pid, startTicks }), false, 'a live process');
    assert.equal(holderGone({ ...self, pid, startTicks: String(Number(startTicks) - 1) }), true, 'its PID once held by another');
    assert.equal(holderGone({ ...self, pid, bootId: 'another-boot', startTicks: '0' }), false, 'another boot: cannot tell');
    await kill9(child);
    assert.equal(holderGone({ ...self, pid, startTicks }), true, 'ended');
    // another user's process may be hidden from this one (/proc's hidepid): only root can tell
    const user = { ...self, uid: 1000 };
    assert.equal(holderGone({ ...self, pid, startTicks, uid: 1001 }, user), false, 'another user: cannot tell');
    assert.equal(holderGone({ ...self, pid, startTicks, uid: 1001 }, { ...self, uid: 0 }), true, 'root can');
  });
});
