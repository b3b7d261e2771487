// The sandbox world every process serves (sandbox mode; docs/console.md "Sandbox", decision 0029 part 3). The
// console's reload writes the world it loaded to the store (table sandbox_world, migration 0018): the file's
// data, the service-clock time its relative times were resolved at, and a new version. Every other process on
// that store (API processes, `postbook worker`) looks at the version every second and, when it moved, builds
// the same world from the same data at the same time and replaces its own world object in place, so its
// sandbox airline and seat map viewer serve it. An API process's start records its world the same way, and a
// worker starts with the stored one: every process serves the same days. Only PostgreSQL has other processes;
// with the embedded store the process that reloads is the only one.
//
// Secrets stay out of the store's copy: the clients' and webhooks' plain secrets and the sandbox admin token are
// replaced (a follower never writes clients or webhooks: the reloading process did, and the admin token is
// read at start only).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import { buildWorld, type World } from './world.js';
import type { WorldFile } from './world-schema.js';

/** How often a process looks at the stored world's version. */
export const WORLD_POLL_MS = 1_000;
/** This process, in the stored row: a process does not follow its own reload. */
export const PROCESS_ORIGIN: string = randomUUID();
const NOT_STORED = '(not stored: see the world file)';

/** The world file's data without its secrets (still valid against the world schema). */
export function withoutSecrets(raw: WorldFile): WorldFile {
  const copy = structuredClone(raw);
  for (const c of copy.clients) {
    c.secret = NOT_STORED;
    if (c.webhook) c.webhook.secret = NOT_STORED;
  }
  if (copy.sandbox) delete copy.sandbox.adminToken;
  return copy;
}

/** Records a reload: `world` (loaded at `at`) is the world from now on; answers its version. */
export async function recordWorldReload(db: Kysely<Database>, world: World, at: Date, origin = PROCESS_ORIGIN): Promise<number> {
  const { rows } = await sql<{ version: string | number }>`
    insert into sandbox_world as w (one, version, origin, file, data, loaded_at, reloaded_at)
    values (true, 1, ${origin}, ${world.file}, ${JSON.stringify(withoutSecrets(world.raw))}::jsonb, ${at}::timestamptz, now())
    on conflict (one) do update set version = w.version + 1, origin = excluded.origin, file = excluded.file, data = excluded.data,
      loaded_at = excluded.loaded_at, reloaded_at = excluded.reloaded_at
    returning version`.execute(db);
  return Number(rows[0]!.version);
}

interface Log {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * An API process's start, in sandbox mode on PostgreSQL: the world it read from its file, at the time it resolved
 * its relative times, becomes every process's world, as a reload does (a review: each process resolved them at its
 * own start, so an API process and a worker started on different days served flights a day apart). It has just
 * written the world's booked orders at that time; the processes already running follow within a second.
 */
export function recordWorldStart(db: Kysely<Database>, world: World): Promise<number> {
  return recordWorldReload(db, world, world.resolvedAt);
}

/** Keeps this process's world the one last reloaded by any process on the store. */
export class WorldFollower {
  private seen = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly world: World,
    private readonly db: Kysely<Database>,
    private readonly log: Log,
    /** Who this process is in the stored row (tests stand in for another process with another). */
    private readonly origin = PROCESS_ORIGIN,
  ) {}

  private async version(): Promise<{ version: number; origin: string } | null> {
    const { rows } = await sql<{ version: string | number; origin: string }>`select version, origin from sandbox_world`.execute(this.db);
    return rows[0] ? { version: Number(rows[0].version), origin: rows[0].origin } : null;
  }

  /**
   * From now on. An API process starts following once it has written its world's store side and recorded it
   * (`seen`: the version it recorded, recordWorldStart), so a world another process records later is followed and
   * nothing replaces its world while it seeds (a review: a second API process's record, followed mid-start, sealed
   * the stored copy's placeholder as the webhooks' signing secrets). With `adopt` (`postbook worker`, which writes no
   * orders) the stored world, when there is one, is built here now, so the worker serves the days the API processes
   * serve however many days later it starts. Neither: what is stored counts as seen.
   */
  async start(pollMs = WORLD_POLL_MS, { adopt = false, seen }: { adopt?: boolean; seen?: number } = {}): Promise<void> {
    if (seen !== undefined) this.seen = seen;
    else if (adopt) await this.check('sandbox world: serving the world another process recorded');
    else this.seen = (await this.version())?.version ?? 0;
    if (this.timer) return;
    let busy = false;
    this.timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.check()
        .catch((err: unknown) => this.log.error({ err }, 'sandbox world: could not look at the stored world'))
        .finally(() => (busy = false));
    }, pollMs);
    this.timer.unref();
  }

  /** One look: applies a newer world recorded by another process. Answers whether the world changed. */
  async check(said = 'sandbox world reloaded by another process'): Promise<boolean> {
    const v = await this.version();
    if (!v || v.version <= this.seen) return false;
    if (v.origin === this.origin) {
      this.seen = v.version;
      return false;
    }
    const { rows } = await sql<{ version: string | number; file: string; data: unknown; loaded_at: Date | string }>`
      select version, file, data, loaded_at from sandbox_world`.execute(this.db);
    const row = rows[0]!;
    const version = Number(row.version);
    try {
      const fresh = buildWorld(typeof row.data === 'string' ? JSON.parse(row.data) : row.data, new Date(row.loaded_at), row.file);
      // The stored copy has no secrets: this process keeps its admin token (read at start only, as its routes do)
      Object.assign(this.world, fresh, { adminToken: this.world.adminToken });
      this.log.info({ version, world: fresh.name, flights: fresh.flights.size, bookings: fresh.bookings.size }, said);
    } catch (err) {
      // Checked whole by the process that reloaded it; should it not build here, this process keeps its world.
      this.log.error({ err, version }, 'sandbox world: the stored world does not build; this process keeps its own');
    }
    this.seen = version;
    return true;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
