// Exclusive lock on the embedded database folder. PGlite silently loses committed rows when two processes
// open one folder, so a second process must refuse to start. proper-lockfile keeps the lock fresh; a lock
// left by a killed process goes stale and is taken over after STALE_MS.
import fs from 'node:fs';
import path from 'node:path';
import lockfile from 'proper-lockfile';

const STALE_MS = 10_000;

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

export async function lockDataDir(dir: string, onCompromised: (err: Error) => void, waitMs = STALE_MS + 2_000): Promise<DirLock> {
  fs.mkdirSync(dir, { recursive: true });
  const lockfilePath = path.join(dir, 'postbook.lock');
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dir, {
      lockfilePath,
      stale: STALE_MS,
      update: STALE_MS / 2,
      realpath: false,
      // A lock left by a crashed process is stale after STALE_MS: waiting a little longer than that lets
      // a restart right after kill -9 succeed, while a live holder keeps refreshing it and wins.
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 1000), minTimeout: 1000, maxTimeout: 1000, factor: 1 } : 0,
      onCompromised,
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') throw new DataDirLockedError(dir);
    throw err;
  }
  return { release: () => release() };
}
