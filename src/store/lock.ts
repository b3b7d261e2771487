// Exclusive lock on the embedded database folder. PGlite silently loses committed rows when two processes
// open one folder, so a second process must refuse to start. proper-lockfile keeps the lock fresh; a lock
// left by a killed process goes stale and is taken over after STALE_MS — or at once when the holder it names
// is provably gone (decision 0043).
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
 * boot of the same machine, in the same PID namespace, with the same PID and the same start time (a PID is
 * reused; a start time on one boot is not). Its user: /proc mounted with `hidepid` hides another user's
 * processes, which would read as gone.
 */
export interface Holder {
  bootId: string;
  pidNamespace: string;
  pid: number;
  startTicks: string;
  uid: number;
}

/** The fields after the command name of /proc/<pid>/stat (the name may hold spaces and parentheses). */
function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
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
      pid: process.pid,
      // field 22, the start time in clock ticks since boot (the 20th after the name)
      startTicks: statFields(self)[19] ?? '',
      uid: process.getuid?.() ?? -1,
    };
    if (!me.bootId || !me.startTicks || me.uid < 0) me = null;
  } catch {
    me = null;
  }
  return me;
}

/**
 * Whether `holder` has certainly ended: it ran on this boot in this PID namespace, as this process's user (or
 * this process is root's), and its PID is now free, a zombie, or another process's. Anything this process cannot
 * tell (another machine, container, boot or user, an unreadable /proc) is not "gone": the lock then goes stale
 * by its age alone. `self` is this process (a test passes another user's).
 */
export function holderGone(holder: Holder, self: Holder | null = thisHolder()): boolean {
  if (!self || holder.bootId !== self.bootId || holder.pidNamespace !== self.pidNamespace) return false;
  if (holder.uid !== self.uid && self.uid !== 0) return false;
  if (holder.pid === self.pid) return false;
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${holder.pid}/stat`, 'utf8');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
  const fields = statFields(text);
  return fields[0] === 'Z' || fields[0] === 'X' || fields[19] !== holder.startTicks;
}

const HOLDER_PREFIX = 'holder-';

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Holder>;
    if (typeof h.bootId !== 'string' || typeof h.pidNamespace !== 'string' || !Number.isSafeInteger(h.pid) || typeof h.startTicks !== 'string' || !Number.isSafeInteger(h.uid)) return null;
    return h as Holder;
  } catch {
    return null; // gone meanwhile, or cut short by a crash while written
  }
}

/**
 * When the lock folder names exactly one holder and that holder is gone: removes its name and makes the folder
 * stale, so that proper-lockfile's own take-over of a stale lock happens on the next attempt. Of several
 * contenders that read the same dead holder, only the one whose unlink of its name succeeds goes on. A folder
 * naming no holder (one being made this instant, or an older postbook's) is left to go stale by its age.
 */
function clearGoneHolder(lockDir: string): boolean {
  let names: string[];
  try {
    names = fs.readdirSync(lockDir).filter((n) => n.startsWith(HOLDER_PREFIX));
  } catch {
    return false;
  }
  if (names.length !== 1) return false;
  const file = path.join(lockDir, names[0]!);
  const holder = readHolder(file);
  if (!holder || !holderGone(holder)) return false;
  try {
    fs.unlinkSync(file);
    fs.utimesSync(lockDir, 0, 0);
  } catch {
    return false; // another contender took it first
  }
  return true;
}

/**
 * Writes this process's name into the lock folder it just took. Adding a file moves the folder's mtime, which
 * proper-lockfile reads as its own heartbeat: it is put back as it was.
 */
function nameHolder(lockDir: string): string | null {
  const self = thisHolder();
  if (!self) return null;
  const before = fs.statSync(lockDir);
  const file = path.join(lockDir, `${HOLDER_PREFIX}${randomUUID()}.json`);
  fs.writeFileSync(file, JSON.stringify(self), { flag: 'wx' });
  fs.utimesSync(lockDir, before.atime, before.mtime);
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
  for (;;) {
    clearGoneHolder(lockfilePath);
    try {
      const release = await lockfile.lock(dir, { lockfilePath, stale: staleMs, update: staleMs / 2, realpath: false, retries: 0, onCompromised });
      let named: string | null = null;
      try {
        named = nameHolder(lockfilePath);
      } catch (err) {
        await release();
        throw err;
      }
      return {
        release: async () => {
          // proper-lockfile removes the folder only when it is empty
          if (named) fs.rmSync(named, { force: true });
          await release();
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      // A live holder keeps the folder fresh; one that is letting go (a restart) frees it within the wait.
      if (Date.now() >= deadline) throw new DataDirLockedError(dir);
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
    }
  }
}
