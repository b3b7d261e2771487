// Versions of the sandbox airline's seat inventory, per flight: every sale (or release) bumps the flight's
// row of sandbox_seat_versions in its own transaction, so a seat map read at an older version is known to
// be stale. With the embedded store every change happens in this process, so the newest version is known
// in memory; with PostgreSQL other API processes sell seats too, and the version is read from the store
// before a cached map is trusted — a notification could arrive after the next request. Those reads are
// batched: one read is in flight at a time, it starts after the turn of the event loop in which its first
// request arrived, and every request that arrives meanwhile waits for the next one, which answers all of
// them in one statement. A read that starts after a request arrived sees every sale committed before it
// arrived, so batching never serves a stale version (decision 0014).
import { sql, type Kysely, type Transaction } from 'kysely';
import type { HotReader } from '../../store/hot-reader.js';
import { preparedQuery } from '../../store/prepared.js';
import type { Database } from '../../store/schema.js';

/** $1 the flight keys: their stored versions (a flight never sold has no row). */
const versionsOf = preparedQuery<{ flight_key: string; version: number | string }>(
  'sandbox_seat_versions_of',
  'select flight_key, version from sandbox_seat_versions where flight_key = any($1::text[])',
);

interface VersionWaiter {
  resolve(version: string): void;
  reject(err: unknown): void;
}

export class SeatInventory {
  /** Newest version per flight key, from this process's sales and reads (used when the books are not shared). */
  private readonly known = new Map<string, number>();
  /** Changes when `known` is emptied (bounded memory): every version tagged before is stale then. */
  private epoch = 0;
  /** Requests for store versions that arrived after the read in flight began, by flight key. */
  private waiting = new Map<string, VersionWaiter[]>();
  private reading = false;
  /** Store reads of versions made (a test reads it: concurrent requests share reads). */
  versionReads = 0;

  /**
   * `shared`: other processes change the same books (PostgreSQL), so only the store knows the newest version.
   */
  constructor(
    private readonly db: Kysely<Database> | null,
    private readonly shared: boolean,
    /** PostgreSQL: the store's connection for this read (src/store/hot-reader.ts); without it the pool's. */
    private readonly reader: HotReader | null = null,
  ) {}

  /** The newest version of the flight: from memory when this process makes every change, else from the store. */
  current(flightKey: string): string | Promise<string> {
    if (!this.shared || !this.db) return this.tag(this.epoch, this.known.get(flightKey) ?? 0);
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(flightKey);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(flightKey, [{ resolve, reject }]);
      if (!this.reading) {
        // Started after this turn of the event loop: every request parsed in the same turn (the answers to
        // several connections' bytes read by one poll) shares the read.
        this.reading = true;
        setImmediate(() => this.readWaiting(this.db!));
      }
    });
  }

  /** One statement for every waiting request; then the requests that arrived meanwhile, if any. */
  private readWaiting(db: Kysely<Database>): void {
    const batch = this.waiting;
    if (batch.size === 0) {
      this.reading = false;
      return;
    }
    this.reading = true;
    this.waiting = new Map();
    this.versionReads++;
    this.versionsIn(db, [...batch.keys()]).then(
      (versions) => {
        for (const [key, waiters] of batch) {
          const version = this.tag(0, versions.get(key) ?? 0);
          for (const w of waiters) w.resolve(version);
        }
        this.readWaiting(db);
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        this.readWaiting(db);
      },
    );
  }

  /** The flight's sold seats and the version they are at, read in one statement (one snapshot). */
  async read(db: Kysely<Database> | Transaction<Database>, flightKey: string): Promise<{ sold: string[]; version: string }> {
    const epoch = this.epoch;
    const { rows } = await sql<{ version: number | string | null; sold: string[] | null }>`
      select (select version from sandbox_seat_versions where flight_key = ${flightKey}) as version,
             array(select seat from sandbox_seat_sales where flight_key = ${flightKey}) as sold`.execute(db);
    const version = Number(rows[0]?.version ?? 0);
    this.note(flightKey, version);
    return { sold: rows[0]?.sold ?? [], version: this.tag(epoch, version) };
  }

  /** Inside the transaction that sells or releases seats of the flight: the flight's next version. */
  async bump(trx: Transaction<Database>, flightKey: string): Promise<number> {
    const { rows } = await sql<{ version: number | string }>`
      insert into sandbox_seat_versions as s (flight_key, version) values (${flightKey}, 1)
      on conflict (flight_key) do update set version = s.version + 1
      returning version`.execute(trx);
    return Number(rows[0]!.version);
  }

  /** After the transaction of `bump` committed: known at once, before the sale's answer goes out. */
  committed(flightKey: string, version: number): void {
    this.note(flightKey, version);
  }

  /** The store versions of the flights (protected: a test holds a read in flight). */
  protected async versionsIn(db: Kysely<Database>, flightKeys: string[]): Promise<Map<string, number>> {
    const query = versionsOf([flightKeys]);
    const rows = this.reader ? await this.reader.query(query) : (await db.executeQuery(query)).rows;
    return new Map(rows.map((r) => [r.flight_key, Number(r.version)]));
  }

  private tag(epoch: number, version: number): string {
    return this.shared ? String(version) : `${epoch}.${version}`;
  }

  private note(flightKey: string, version: number): void {
    if (version <= (this.known.get(flightKey) ?? 0)) return;
    if (this.known.size >= 100_000) {
      // Bounded: forgetting versions is safe only with a new epoch (every map tagged before is then stale).
      this.known.clear();
      this.epoch++;
    }
    this.known.set(flightKey, version);
  }
}
