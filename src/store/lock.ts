// Exclusive lock on the embedded database folder. PGlite silently loses committed rows when two processes
// open one folder, so a second process must refuse to start. proper-lockfile keeps the lock fresh; a lock
// left by a killed process goes stale and is taken over after STALE_MS.
//
// A lock's age alone does not tell a dead holder from a busy one: PGlite runs a statement on the event loop's
// thread, so a statement longer than STALE_MS (a migration rewriting a large table, a vacuum) leaves the lock
// unrefreshed, and a second process took it over and opened the folder while the first was still writing (a
// review lost committed rows and corrupted an index that way). So the holder also writes its process id, host
// and process start time beside the lock, and a lock whose holder still lives on this host is never taken over,
// however old; a stale lock is taken over only once its holder is gone (or on another host, where only the age
// can tell).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import lockfile from 'proper-lockfile';

const STALE_MS = 10_000;
/** Between two tries while the folder is held. */
const RETRY_MS = 1_000;

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

/** Who holds a folder's lock (written beside it once taken). */
interface Owner {
  pid: number;
  host: string;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat); null where there is no /proc. */
  start: string | null;
}

/** The start time of a process (field 22 of /proc/<pid>/stat, after the command name), or null. */
function startOf(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the owner is a process other than this one, alive on this host: its id names a process started when the
 * owner's did (an id reused since names another). Without /proc to tell (not Linux, or hidden) nothing is known,
 * and the lock's age decides as before. Process ids are a pid namespace's: containers that share a folder and a
 * host name but not their pids are told apart by the age only (decision 0002).
 */
function ownerAlive(owner: Owner): boolean {
  if (owner.host !== os.hostname() || owner.start === null) return false;
  const start = startOf(owner.pid);
  if (start === null || start !== owner.start) return false;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(file: string): Owner | null {
  try {
    const o = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Owner>;
    return typeof o.pid === 'number' && typeof o.host === 'string' ? { pid: o.pid, host: o.host, start: typeof o.start === 'string' ? o.start : null } : null;
  } catch {
    return null;
  }
}

export async function lockDataDir(dir: string, onCompromised: (err: Error) => void, waitMs = STALE_MS + 2_000): Promise<DirLock> {
  fs.mkdirSync(dir, { recursive: true });
  const lockfilePath = path.join(dir, 'postbook.lock');
  const ownerPath = path.join(dir, 'postbook.lock.owner');
  // A lock left by a crashed process is stale after STALE_MS: waiting a little longer than that lets a restart
  // right after kill -9 succeed, while a live holder keeps it (refreshed, or known alive by its process id).
  const until = Date.now() + waitMs;
  let release: () => Promise<void>;
  for (;;) {
    const owner = readOwner(ownerPath);
    // no lock folder: no holder, whatever an owner file left behind says
    if (!owner || !fs.existsSync(lockfilePath) || !ownerAlive(owner)) {
      try {
        release = await lockfile.lock(dir, { lockfilePath, stale: STALE_MS, update: STALE_MS / 2, realpath: false, retries: 0, onCompromised });
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      }
    }
    if (Date.now() + RETRY_MS > until) throw new DataDirLockedError(dir);
    await sleep(RETRY_MS);
  }
  // Written at once (nothing runs between the lock and this line), replaced in one rename.
  const mine: Owner = { pid: process.pid, host: os.hostname(), start: startOf(process.pid) };
  fs.writeFileSync(`${ownerPath}.${process.pid}`, JSON.stringify(mine));
  fs.renameSync(`${ownerPath}.${process.pid}`, ownerPath);
  return {
    release: async () => {
      const owner = readOwner(ownerPath);
      if (owner?.pid === process.pid && owner.host === mine.host) fs.rmSync(ownerPath, { force: true });
      await release();
    },
  };
}
