// The embedded store's autovacuum (decision 0032). PostgreSQL vacuums and analyzes its tables from a launcher
// process of its own; PGlite is one backend inside this process and has no such process, so nothing ever did
// it: the row versions a refund leaves behind at each status change stayed in the tables and their indexes,
// and the planner kept the estimates of the tables it saw empty. Statements that read "refunds at status 0"
// or "jobs still to run" then walked every dead entry: refund.do slowed as the store grew.
//
// This runs PostgreSQL's own rule, with PostgreSQL's own settings read from the embedded server: a table is
// vacuumed when its dead rows pass autovacuum_vacuum_threshold + autovacuum_vacuum_scale_factor × its rows (or
// its inserts since the last vacuum pass the insert threshold and scale factor), analyzed when its changes
// since the last analyze pass autovacuum_analyze_threshold + autovacuum_analyze_scale_factor × its rows. The
// counts come from pg_stat_user_tables. One table per statement, through the store's one connection: requests
// wait for one table's vacuum, never for a whole round.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** What the maintenance logs through (the service's logger). */
export interface MaintenanceLog {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface AutovacuumStats {
  /** Tables vacuumed (with analyze) and analyzed only, since start. */
  vacuums: number;
  analyzes: number;
  /** Time spent in VACUUM and ANALYZE statements, seconds. */
  seconds: number;
  /** Rounds that failed to read the counts or to vacuum a table (logged as warnings). */
  errors: number;
}

/** A table due for maintenance: VACUUM (ANALYZE) when `vacuum`, else ANALYZE. */
export interface DueTable {
  schema: string;
  table: string;
  vacuum: boolean;
}

/** Tables past PostgreSQL's autovacuum thresholds, with PostgreSQL's settings, most dead rows first. */
export async function dueTables(db: Kysely<Database>): Promise<DueTable[]> {
  const { rows } = await sql<{ schema_name: string; table_name: string; needs_vacuum: boolean }>`
    with t as (
      select s.schemaname, s.relname, s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze, greatest(c.reltuples, 0) as reltuples
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where c.relkind = 'r' and s.schemaname not like 'pg\\_temp%'
    ), due as (
      select schemaname, relname, n_dead_tup,
        n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8 + current_setting('autovacuum_vacuum_scale_factor')::float8 * reltuples
        or n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8 + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * reltuples
          as needs_vacuum,
        n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8 + current_setting('autovacuum_analyze_scale_factor')::float8 * reltuples
          as needs_analyze
      from t
    )
    select schemaname as schema_name, relname as table_name, needs_vacuum from due where needs_vacuum or needs_analyze
    order by n_dead_tup desc, schemaname, relname`.execute(db);
  return rows.map((r) => ({ schema: r.schema_name, table: r.table_name, vacuum: r.needs_vacuum }));
}

export class PgliteAutovacuum {
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;
  private readonly totals: AutovacuumStats = { vacuums: 0, analyzes: 0, seconds: 0, errors: 0 };

  constructor(
    private readonly db: Kysely<Database>,
    private readonly opts: { intervalMs: number; log?: MaintenanceLog },
  ) {}

  get stats(): Readonly<AutovacuumStats> {
    return this.totals;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      // A slow round is not overlapped by the next tick.
      this.round ??= this.runOnce()
        .then(() => undefined)
        .finally(() => (this.round = null));
    }, this.opts.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a round under way (the store closes after it). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.round;
  }

  /** One round: every due table, one statement each; answers what was done. Never throws. */
  async runOnce(): Promise<Array<DueTable & { ms: number }>> {
    const done: Array<DueTable & { ms: number }> = [];
    let due: DueTable[];
    try {
      due = await dueTables(this.db);
    } catch (err) {
      this.failed('reading the table counts', err);
      return done;
    }
    for (const t of due) {
      if (this.stopped) break;
      const started = performance.now();
      try {
        const target = sql.id(t.schema, t.table);
        await (t.vacuum ? sql`vacuum (analyze) ${target}` : sql`analyze ${target}`).execute(this.db);
      } catch (err) {
        // A table dropped meanwhile (a test's schema, a pg-boss partition) is not worth a warning.
        if (!/does not exist/.test(String((err as Error)?.message))) this.failed(`${t.vacuum ? 'vacuum' : 'analyze'} of ${t.schema}.${t.table}`, err);
        continue;
      }
      const ms = performance.now() - started;
      this.totals.seconds += ms / 1000;
      if (t.vacuum) this.totals.vacuums++;
      else this.totals.analyzes++;
      done.push({ schema: t.schema, table: t.table, vacuum: t.vacuum, ms });
      this.opts.log?.debug({ table: `${t.schema}.${t.table}`, op: t.vacuum ? 'vacuum' : 'analyze', ms: Math.round(ms) }, 'embedded store maintenance');
    }
    return done;
  }

  private failed(what: string, err: unknown): void {
    this.totals.errors++;
    this.opts.log?.warn({ err }, `embedded store maintenance: ${what} failed`);
  }
}
