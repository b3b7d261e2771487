// The embedded store's folder lock (decision 0002): one process per folder; a lock left by a crashed process is
// taken over once it is stale by its age (10 s without a refresh), never while its holder refreshes it, nor while
// its holder lives on this host (a long statement keeps the holder from refreshing it).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataDirLockedError, lockDataDir } from './lock.js';

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
const lockDir = (dir: string) => path.join(dir, 'postbook.lock');
const never = (err: Error) => assert.fail(`lock compromised: ${err.message}`);
/** What each holder process has printed (read from its start: a line is never missed). */
const output = new WeakMap<ChildProcessWithoutNullStreams, string>();

/**
 * A child process holding the lock of `dir` (resolves once it holds it). With `blockMs` its event loop is then
 * blocked that long, as by one long PGlite statement (the lock not refreshed meanwhile).
 */
async function holderProcess(dir: string, blockMs = 0): Promise<ChildProcessWithoutNullStreams> {
  const block = blockMs > 0 ? `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${blockMs}); console.log('unblocked');` : '';
  const script = `const { lockDataDir } = await import(${JSON.stringify(LOCK_MODULE)}); await lockDataDir(${JSON.stringify(dir)}, () => process.exit(3), 0); console.log('locked'); setTimeout(() => { ${block} }, 10); setInterval(() => {}, 60000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]);
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      output.set(child, (output.get(child) ?? '') + d.toString());
      if (output.get(child)!.includes('locked')) resolve();
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`the holder exited (${code}) before it held the lock: ${err}`)));
  });
  return child;
}

describe('data folder lock', () => {
  test('a second process is refused while the holder lives; once it is killed, the lock is free only when stale', async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir);
    await assert.rejects(lockDataDir(dir, never, 0), DataDirLockedError);
    await assert.rejects(lockDataDir(dir, never, 0), /in use by another postbook process/);
    const exited = new Promise((r) => holder.once('exit', r));
    holder.kill('SIGKILL');
    await exited;
    // killed: its lock stays until it is stale by its age
    await assert.rejects(lockDataDir(dir, never, 0), DataDirLockedError);
    const past = new Date(Date.now() - 11_000);
    fs.utimesSync(lockDir(dir), past, past);
    const lock = await lockDataDir(dir, never, 0);
    await lock.release();
    assert.equal(fs.existsSync(lockDir(dir)), false, 'release removes the lock folder');
  });

  test('an owner file without its lock folder (a holder that released, or one killed before it could) holds nothing', async () => {
    const dir = tmpDir();
    // a live process on this host, as its owner file would name it
    fs.writeFileSync(path.join(dir, 'postbook.lock.owner'), JSON.stringify({ pid: process.ppid, host: os.hostname(), start: fs.readFileSync(`/proc/${process.ppid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19] }));
    const lock = await lockDataDir(dir, never, 0);
    await lock.release();
  });

  test('a holder busy past the stale age (one long statement on its thread) is not taken over: its process lives (found by a review: rows lost)', async () => {
    const dir = tmpDir();
    const holder = await holderProcess(dir, 13_000);
    let exitCode: number | null = null;
    holder.once('exit', (code) => (exitCode = code));
    // the lock unrefreshed for longer than its stale age while the holder's thread is busy
    while (Date.now() - fs.statSync(lockDir(dir)).mtimeMs <= 10_500) await new Promise((r) => setTimeout(r, 250));
    await assert.rejects(lockDataDir(dir, never, 0), DataDirLockedError);
    await assert.rejects(lockDataDir(dir, never, 1_500), DataDirLockedError, 'nor after waiting');
    // once its statement ends the holder refreshes its lock, uncompromised
    for (const end = Date.now() + 30_000; !(output.get(holder) ?? '').includes('unblocked'); ) {
      assert.ok(Date.now() < end, "the holder's statement ended");
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 6_000));
    assert.equal(exitCode, null, 'the holder still holds its lock');
    assert.ok(Date.now() - fs.statSync(lockDir(dir)).mtimeMs < 6_000, 'refreshed');
  });
});
