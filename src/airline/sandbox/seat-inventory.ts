// Versions of the sandbox airline's seat inventory, per flight: every sale (or release) bumps the flight's
// row of sandbox_seat_versions in its own transaction, so a seat map read at an older version is known to
// be stale. With the embedded store every change happens in this process, so the newest version is known
// in memory; with PostgreSQL other API processes sell seats too, and the version is read from the store
// before a cached map is trusted — a notification could arrive after the next request. Those reads are
// batched by the store's group committer (src/store/group-commit.ts): one read is in flight at a time, it
// starts after the turn of the event loop in which its first request arrived, and every request that arrives
// meanwhile waits for the next one, which answers all of them in one statement. A read that starts after a
// request arrived sees every sale committed before it arrived, so batching never serves a stale version
// (decision 0014). A failed read fails the requests it was to answer; the next request reads again.
import { sql, type Kysely, type Transaction } from 'kysely';
import { GroupCommitter } from '../../store/group-commit.js';
import type { HotReader } from '../../store/hot-reader.js';
import { preparedQuery } from '../../store/prepared.js';
import type { Database } from '../../store/schema.js';

/** $1 the flight keys: their stored versions (a flight never sold has no row). */
const versionsOf = preparedQuery<{ flight_key: string; version: number | string }>(
  'sandbox_seat_versions_of',
  'select flight_key, version from sandbox_seat_versions where flight_key = any($1::text[])',
);

export class SeatInventory {
  /** Newest version per flight key, from this process's sales and reads (used when the books are not shared). */
  private readonly known = new Map<string, number>();
  /** Changes when `known` is emptied (bounded memory): every version tagged before is stale then. */
  private epoch = 0;
  /**
   * Store reads of versions, one statement for every request waiting (with the books shared). Every request
   * of a burst shares it however many there are: the statement reads each flight once.
   */
  private readonly versionReader: GroupCommitter<string, string> | null;
  /** Store reads of versions made (a test reads it: concurrent requests share reads). */
  versionReads = 0;

  /**
   * `shared`: other processes change the same books (PostgreSQL), so only the store knows the newest version.
   */
  constructor(
    db: Kysely<Database> | null,
    private readonly shared: boolean,
    /** PostgreSQL: the store's connection for this read (src/store/hot-reader.ts); without it the pool's. */
    private readonly reader: HotReader | null = null,
  ) {
    this.versionReader =
      shared && db
        ? new GroupCommitter(
            async (flightKeys) => {
              this.versionReads++;
              const versions = await this.versionsIn(db, [...new Set(flightKeys)]);
              return flightKeys.map((key) => this.tag(0, versions.get(key) ?? 0));
            },
            { maxBatch: 100_000, afterFailure: 'all' },
          )
        : null;
  }

  /** The newest version of the flight: from memory when this process makes every change, else from the store. */
  current(flightKey: string): string | Promise<string> {
    if (!this.versionReader) return this.tag(this.epoch, this.known.get(flightKey) ?? 0);
    return this.versionReader.write(flightKey);
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
