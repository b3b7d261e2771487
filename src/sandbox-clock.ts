// The sandbox clock (sandbox mode only): one movable time for every process of a deployment. Its offset from
// the real time is stored in the database (table sandbox_clock, migration 0013); each process keeps a
// TestClock set to it — read at start, followed by polling on PostgreSQL, where API and worker processes
// share the store — so `now()` stays a synchronous read. GET and POST /sandbox/clock read and move it
// (the admin token guards them); `postbook sandbox clock` does the same from the command line.
import Type, { type Static } from 'typebox';
import { sql, type Kysely } from 'kysely';
import type { TestClock } from './clock.js';
import { ApiError } from './errors.js';
import type { Database } from './store/schema.js';

export const ClockState = Type.Object({ now: Type.String({ format: 'date-time' }), offsetMs: Type.Integer() });
export type ClockState = Static<typeof ClockState>;

export const MoveClockRequest = Type.Object({
  advanceMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 5_256_000 })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
  fromOffsetMs: Type.Optional(
    Type.Integer({
      description:
        'The offsetMs the caller read: the move is made only while the clock still stands there (otherwise 409), so a move sent twice (a double click, a retried lost answer) moves it once',
    }),
  ),
});
export type MoveClockRequest = Static<typeof MoveClockRequest>;

/** How often a process sharing a PostgreSQL store looks at the stored clock (a move elsewhere shows within this). */
export const CLOCK_POLL_MS = 1_000;

export function clockState(clock: TestClock): ClockState {
  return { now: clock.now().toISOString(), offsetMs: Math.round(clock.offset()) };
}

/** Sets `clock` forward to the stored offset when the store is ahead (the clock never goes back). */
function follow(clock: TestClock, storedOffsetMs: number): void {
  const behind = storedOffsetMs - clock.offset();
  if (behind > 0) clock.advance(behind);
}

/** The sandbox's time now, as every process of the deployment reads it (a one-off command: the CLI). */
export async function storedSandboxNow(db: Kysely<Database>): Promise<Date> {
  return new Date(Date.now() + (await storedOffset(db)));
}

async function storedOffset(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('sandbox_clock').select('offset_ms').executeTakeFirst();
  return Number(row?.offset_ms ?? 0);
}

/** The process's clock tied to the stored one. */
export class SharedSandboxClock {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly clock: TestClock,
    private readonly db: Kysely<Database>,
  ) {}

  /** Brings the clock to the stored time (at start, before anything reads it). */
  async load(): Promise<void> {
    follow(this.clock, await storedOffset(this.db));
  }

  /** Follows moves made by other processes every `pollMs` (on a shared PostgreSQL store). */
  follow(pollMs = CLOCK_POLL_MS): void {
    if (this.timer) return;
    let busy = false;
    this.timer = setInterval(() => {
      // A frozen clock keeps its instant (a test's exact times): measured against the real time, it would seem
      // to fall behind the stored one and be moved forward by each poll.
      if (busy || this.clock.frozen) return;
      busy = true;
      this.load()
        .catch(() => undefined) // a store hiccup: the next poll tries again; the clock keeps flowing meanwhile
        .finally(() => (busy = false));
    }, pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /**
   * Moves the shared clock forward by minutes or to an instant, in one transaction on the stored row; the
   * move starts from the later of this process's time and the stored one, so no earlier move is undone.
   */
  async move({ advanceMinutes, to, fromOffsetMs }: MoveClockRequest): Promise<ClockState> {
    if ((advanceMinutes === undefined) === (to === undefined)) throw new ApiError(100, 'invalid request: send exactly one of advanceMinutes or to', 400);
    const offset = await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('sandbox_clock').select('offset_ms').forUpdate().executeTakeFirstOrThrow();
      const current = Math.max(Number(row.offset_ms), this.clock.offset());
      // Read as a whole millisecond (clockState): 1 ms either way is the same reading.
      if (fromOffsetMs !== undefined && Math.abs(current - fromOffsetMs) > 1) {
        const now = new Date(Date.now() + current).toISOString();
        throw new ApiError(100, `the sandbox clock moved since it was read (offsetMs ${fromOffsetMs}; it now reads ${now}, offsetMs ${Math.round(current)}): read it again and move from there`, 409);
      }
      let next: number;
      if (to !== undefined) {
        next = new Date(to).getTime() - Date.now();
        if (next < current) throw new ApiError(100, 'invalid request: the clock only moves forward', 400);
      } else {
        next = current + (advanceMinutes ?? 0) * 60_000;
      }
      next = Math.round(next);
      await trx.updateTable('sandbox_clock').set({ offset_ms: next, moved_at: sql<Date>`now()` }).execute();
      return next;
    });
    follow(this.clock, offset);
    return clockState(this.clock);
  }
}
