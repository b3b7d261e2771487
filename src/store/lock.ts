// Exclusive lock on the embedded database folder. PGlite silently loses committed rows when two processes
// open one folder, so a second process must refuse to start. proper-lockfile keeps the lock fresh; a lock
// left by a killed process goes stale and is taken over after STALE_MS — at once when the holder it names is
// provably gone, never while that holder provably runs (decision 0043).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const STALE_MS = 10_000;
/** How often a contender looks again while the lock is held. */
const POLL_MS = 250;

export class DataDirLockedError extends Error {
  constructor(dir: string) {
    super(
      `the data folder ${dir} is in use by another postbook process (embedded PGlite allows one process only). ` +
        'Stop the other process, point DATA_DIR at another folder, or use DATABASE_URL for several processes.',
    );
  }
}

export interface DirLock {
  release(): Promise<void>;
}

/**
 * Who holds a lock, as the holder writes it into the lock folder: a process is the same one only on the same
 * boot of the same machine, in the same PID and time namespaces (a start time reads shifted from another time
 * namespace), with the same PID and the same start time (a PID is reused; a start time on one boot is not).
 */
export interface Holder {
  bootId: string;
  pidNamespace: string;
  /** '' where the kernel has no time namespaces */
  timeNamespace: string;
  pid: number;
  startTicks: string;
}

/** The fields after the command name of /proc/<pid>/stat (the name may hold spaces and parentheses). */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function readlinkOr(file: string, otherwise: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return otherwise;
  }
}

let me: Holder | null | undefined;

/** This process as a Holder; null where /proc cannot say it (not Linux, or a /proc of another namespace). */
export function thisHolder(): Holder | null {
  if (me !== undefined) return me;
  try {
    const self = fs.readFileSync('/proc/self/stat', 'utf8');
    // /proc/self/stat starts with the PID as /proc's namespace numbers it: it must be ours.
    if (Number(self.slice(0, self.indexOf(' '))) !== process.pid) return (me = null);
    me = {
      bootId: fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidNamespace: fs.readlinkSync('/proc/self/ns/pid'),
      timeNamespace: readlinkOr('/proc/self/ns/time', ''),
      pid: process.pid,
      // field 22, the start time in clock ticks since boot (the 20th after the name)
      startTicks: statFields(self)[19] ?? '',
    };
    if (!me.bootId || !/^\d+$/.test(me.startTicks)) me = null;
  } catch {
    me = null;
  }
  return me;
}

/**
 * What this process can tell of `holder`. "gone": it ran on this boot in these namespaces, and its PID is now
 * free (the kernel's answer to a signal 0, which no /proc mount option hides), or its process is a zombie or
 * another one (another start time). "alive": the same process still runs. "unknown": another machine, container
 * or boot, or a /proc entry this process may not read (`hidepid` hides some live processes). `self` is this
 * process (a test passes another).
 */
export function holderState(holder: Holder, self: Holder | null = thisHolder()): 'gone' | 'alive' | 'unknown' {
  if (!self || holder.bootId !== self.bootId || holder.pidNamespace !== self.pidNamespace || holder.timeNamespace !== self.timeNamespace) return 'unknown';
  if (holder.pid === self.pid) return 'unknown';
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // ESRCH: no such process; EPERM: one lives there, not ours to signal
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return 'gone';
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return 'unknown';
  }
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${holder.pid}/stat`, 'utf8');
  } catch {
    return 'unknown'; // hidden from this process
  }
  const fields = statFields(text);
  return fields[0] === 'Z' || fields[0] === 'X' || fields[19] !== holder.startTicks ? 'gone' : 'alive';
}

const HOLDER_PREFIX = 'holder-';

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Holder>;
    if (typeof h.bootId !== 'string' || typeof h.pidNamespace !== 'string' || typeof h.timeNamespace !== 'string' || !Number.isSafeInteger(h.pid) || typeof h.startTicks !== 'string') return null;
    return h as Holder;
  } catch {
    return null; // gone meanwhile, or cut short by a crash while written
  }
}

function holderNames(lockDir: string): string[] {
  try {
    return fs.readdirSync(lockDir).filter((n) => n.startsWith(HOLDER_PREFIX));
  } catch {
    return [];
  }
}

/**
 * Readies the lock folder for proper-lockfile's attempt, which takes over a stale folder only when it can remove
 * it, that is when it is empty:
 * - a folder naming exactly one holder that is gone is removed: its name first, by one contender only (an unlink
 *   succeeds once; it also makes the folder fresh, so that nobody takes it over by age meanwhile), then the folder;
 * - a folder naming exactly one holder that still runs is left as it is, however old (a process paused past the
 *   stale age — stopped, swapped out — would find its store shared when it resumes): the attempt finds it held;
 * - any other folder stale by its age loses its names (the age rule of decision 0002: a holder this process
 *   cannot judge, two names, an unreadable one).
 * Anything else is left to go stale by its age. A folder naming no holder is one being made this instant, or an
 * older postbook's.
 */
function clearForAttempt(lockDir: string, staleMs: number): void {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(lockDir).mtimeMs;
  } catch {
    return;
  }
  const names = holderNames(lockDir);
  const file = names.length === 1 ? path.join(lockDir, names[0]!) : null;
  const holder = file ? readHolder(file) : null;
  const state = holder ? holderState(holder) : 'unknown';
  if (state === 'alive') return;
  if (state === 'unknown') {
    if (mtimeMs >= Date.now() - staleMs || names.length === 0) return;
    for (const n of names) fs.rmSync(path.join(lockDir, n), { force: true });
    // removing them moved the folder's mtime: it is put back, stale as it was
    fs.utimesSync(lockDir, mtimeMs / 1000, mtimeMs / 1000);
    return;
  }
  try {
    fs.unlinkSync(file!);
  } catch {
    return; // another contender took it first
  }
  try {
    fs.rmdirSync(lockDir);
  } catch {
    // made again, or named, by another contender meanwhile: proper-lockfile's attempt finds it held
  }
}

/**
 * Writes this process's name into the lock folder it just took. Adding a file moves the folder's mtime, which
 * proper-lockfile reads as its own heartbeat: it is put back as it was. On a failure the name is removed.
 */
function nameHolder(lockDir: string): string | null {
  const self = thisHolder();
  if (!self) return null;
  const before = fs.statSync(lockDir);
  const file = path.join(lockDir, `${HOLDER_PREFIX}${randomUUID()}.json`);
  try {
    fs.writeFileSync(file, JSON.stringify(self), { flag: 'wx' });
    fs.utimesSync(lockDir, before.atime, before.mtime);
  } catch (err) {
    fs.rmSync(file, { force: true });
    fs.utimesSync(lockDir, before.atime, before.mtime);
    throw err;
  }
  return file;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LockOptions {
  /** How long to wait for the holder to let go (a stale lock of a crashed process is taken over after STALE_MS). */
  waitMs?: number;
  /** Tests: the age at which a lock is stale (proper-lockfile refreshes it every half of that; at least 2000). */
  staleMs?: number;
}

export async function lockDataDir(dir: string, onCompromised: (err: Error) => void, opts: LockOptions = {}): Promise<DirLock> {
  const staleMs = opts.staleMs ?? STALE_MS;
  const waitMs = opts.waitMs ?? staleMs + 2_000;
  fs.mkdirSync(dir, { recursive: true });
  const lockfilePath = path.join(dir, 'postbook.lock');
  const deadline = Date.now() + waitMs;
  // From release on, a heartbeat in flight that reads the folder moved (the name removed) is not a lost lock.
  let releasing = false;
  let lost = false;
  const compromised = (err: Error) => {
    lost = true;
    if (!releasing) onCompromised(err);
  };
  for (;;) {
    try {
      clearForAttempt(lockfilePath, staleMs);
    } catch {
      // the folder changed under it (another contender): the attempt finds out how it stands
    }
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(dir, { lockfilePath, stale: staleMs, update: staleMs / 2, realpath: false, retries: 0, onCompromised: compromised });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTEMPTY: a stale folder named meanwhile (a holder paused past the stale age, then back): held
      if (code !== 'ELOCKED' && code !== 'ENOTEMPTY') throw err;
      // A live holder keeps the folder fresh; one that is letting go (a restart) frees it within the wait.
      if (Date.now() >= deadline) throw new DataDirLockedError(dir);
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
      continue;
    }
    let named: string | null;
    try {
      named = nameHolder(lockfilePath);
    } catch (err) {
      releasing = true;
      await release();
      throw err;
    }
    // proper-lockfile removes a held folder at exit, before this listener runs, and only when it is empty: an exit
    // without release (process.exit after a failed shutdown, an uncaught exception) removes the name, then the folder.
    const atExit = () => {
      if (!named || lost) return;
      fs.rmSync(named, { force: true });
      try {
        fs.rmdirSync(lockfilePath);
      } catch {
        // removed already, or not empty: the next start judges what is left
      }
    };
    if (named) process.once('exit', atExit);
    return {
      release: async () => {
        releasing = true;
        process.removeListener('exit', atExit);
        // proper-lockfile removes the folder only when it is empty
        if (named) fs.rmSync(named, { force: true });
        await release();
      },
    };
  }
}
