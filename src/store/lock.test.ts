// The embedded store's folder lock (decision 0002): one process per folder; a lock whose holder is provably gone
// is taken over at once, any other only once it is stale by its age (decision 0043).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, holderState, lockDataDir, thisHolder, type Holder } from './lock.js';

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

/** A child process holding the lock of `dir` (resolves once it holds it); `then` runs in it once it holds it. */
async function holderProcess(dir: string, then = 'setInterval(() => {}, 60000);'): Promise<ChildProcessWithoutNullStreams> {
  const script = `const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)}); await lockDataDir(${JSON.stringify(dir)}, () => process.exit(3), { waitMs: 0 }); console.log('locked'); ${then}`;
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
    child.on('exit', (code) => (out.includes('locked') ? resolve() : reject(new Error(`the holder exited (${code}) before it held the lock: ${err}`))));
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
/** Makes the lock folder of `dir` older than a 2 s stale age. */
const backdate = (dir: string) => {
  const past = new Date(Date.now() - 3000);
  fs.utimesSync(lockDir(dir), past, past);
};

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

  test('a holder paused past the stale age is not taken over while it lives', { skip: linux }, async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir);
    holder.kill('SIGSTOP'); // no heartbeat while stopped
    backdate(dir);
    await assert.rejects(lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 }), DataDirLockedError);
    assert.equal(holderFiles(dir).length, 1, 'its name stays');
    holder.kill('SIGCONT');
    await kill9(holder);
  });

  test('a lock naming no holder, or one this process cannot judge, goes stale by its age, then is taken over', async () => {
    const self = thisHolder() ?? { bootId: 'b', pidNamespace: 'pid:[1]', timeNamespace: '', pid: 1, startTicks: '1' };
    const names: Array<[string, string]> = [
      ['no name (a lock being made this instant, or an older postbook\'s)', ''],
      ['a holder on another boot (or machine)', JSON.stringify({ ...self, bootId: 'another-boot', pid: 2 ** 22 + 1 })],
      ['a holder in another time namespace', JSON.stringify({ ...self, timeNamespace: 'time:[1]', pid: 2 ** 22 + 1 })],
      ['a name cut short by a crash', '{"bootId": "'],
    ];
    for (const [what, content] of names) {
      const dir = tmpDir();
      fs.mkdirSync(lockDir(dir));
      if (content) fs.writeFileSync(path.join(lockDir(dir), 'holder-x.json'), content);
      await assert.rejects(lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 }), DataDirLockedError, `${what}: fresh, refused`);
      backdate(dir);
      const lock = await lockDataDir(dir, never, { waitMs: 0, staleMs: 2000 });
      assert.ok(!holderFiles(dir).includes('holder-x.json'), `${what}: stale, taken over`);
      await lock.release();
    }
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

  test('a holder that exits without releasing leaves no lock behind', { skip: linux }, async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir, 'process.exit(0);');
    await new Promise((r) => (holder.exitCode === null ? holder.once('exit', r) : r(null)));
    assert.equal(fs.existsSync(lockDir(dir)), false);
  });

  test('holderState: a live process, a reused PID (another start time), another boot, an ended process', { skip: linux }, async () => {
    const self = thisHolder()!;
    assert.equal(holderState(self), 'unknown', 'this process');
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)']);
    children.push(child);
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid!;
    const childStat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = childStat.slice(childStat.lastIndexOf(')') + 2).split(' ')[19]!;
    assert.equal(holderState({ ...self, pid, startTicks }), 'alive', 'a live process');
    assert.equal(holderState({ ...self, pid, startTicks: String(Number(startTicks) - 1) }), 'gone', 'its PID once held by another');
    assert.equal(holderState({ ...self, pid, bootId: 'another-boot', startTicks: '0' }), 'unknown', 'another boot: cannot tell');
    assert.equal(holderState({ ...self, pid, startTicks }, { ...self, timeNamespace: 'time:[1]' }), 'unknown', 'another time namespace');
    await kill9(child);
    assert.equal(holderState({ ...self, pid, startTicks }), 'gone', 'ended');
  });
});
