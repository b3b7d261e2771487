// Versions of the sandbox airline's seat inventory, per flight: every sale (or release) bumps the flight's
// row of sandbox_seat_versions in its own transaction and notifies, so every API process knows, without a
// query, whether a seat map it read is still current. The version of a map is `<epoch>.<version>`: the
// epoch changes whenever this process may have missed a notification (PostgreSQL listener reconnecting),
// which makes every older map stale at once.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.js';
import { notifyChannel, type ListenHandlers } from '../../store/store.js';

/** The notification channel (scoped to the store's schema by the store). */
export const SEAT_INVENTORY_CHANNEL = 'postbook_seat_inventory';

export type Listen = (channel: string, handlers: ListenHandlers) => Promise<() => Promise<void>>;

export class SeatInventory {
  /** Newest version seen per flight key (from this process's sales, reads and other processes' notifications). */
  private readonly known = new Map<string, number>();
  private epoch = 0;
  /** Without a listener (embedded store: one process) every change happens here, so this is always true. */
  private live: boolean;
  private stopListening: (() => Promise<void>) | null = null;

  constructor(private readonly listen: Listen | null) {
    this.live = listen === null;
  }

  /** PostgreSQL: start listening for other processes' changes (before the first seat map is trusted). */
  async start(): Promise<void> {
    if (!this.listen || this.stopListening) return;
    this.stopListening = await this.listen(SEAT_INVENTORY_CHANNEL, {
      onMessage: (payload) => {
        const at = payload.lastIndexOf(' ');
        const version = Number(payload.slice(at + 1));
        if (at > 0 && Number.isSafeInteger(version)) this.note(payload.slice(0, at), version);
      },
      onLive: (live) => {
        // Whatever was learnt before a gap may be stale: a new epoch invalidates every earlier version.
        if (live !== this.live) this.epoch++;
        if (!live) this.known.clear();
        this.live = live;
      },
    });
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = null;
    this.live = this.listen === null;
    await stop?.();
  }

  /** The newest version known for the flight, or null while changes could go unnoticed. */
  current(flightKey: string): string | null {
    return this.live ? `${this.epoch}.${this.known.get(flightKey) ?? 0}` : null;
  }

  /**
   * The flight's sold seats and the version they are at, read in one statement (one snapshot). The answer's
   * version is null while changes could go unnoticed.
   */
  async read(db: Kysely<Database> | Transaction<Database>, flightKey: string): Promise<{ sold: string[]; version: string | null }> {
    const epoch = this.epoch;
    const live = this.live;
    const { rows } = await sql<{ version: number | string | null; sold: string[] | null }>`
      select (select version from sandbox_seat_versions where flight_key = ${flightKey}) as version,
             array(select seat from sandbox_seat_sales where flight_key = ${flightKey}) as sold`.execute(db);
    const row = rows[0];
    const version = Number(row?.version ?? 0);
    this.note(flightKey, version);
    return { sold: row?.sold ?? [], version: live && this.live && epoch === this.epoch ? `${epoch}.${version}` : null };
  }

  /** Inside the transaction that sells or releases seats of the flight: a new version, announced at commit. */
  async bump(trx: Transaction<Database>, flightKey: string): Promise<number> {
    const { rows } = await sql<{ version: number | string }>`
      with v as (
        insert into sandbox_seat_versions as s (flight_key, version) values (${flightKey}, 1)
        on conflict (flight_key) do update set version = s.version + 1
        returning version
      )
      select version, pg_notify(${notifyChannel(SEAT_INVENTORY_CHANNEL)}, ${flightKey} || ' ' || version) from v`.execute(trx);
    return Number(rows[0]!.version);
  }

  /** After the transaction of `bump` committed: this process knows at once (no waiting for its own notification). */
  committed(flightKey: string, version: number): void {
    this.note(flightKey, version);
  }

  private note(flightKey: string, version: number): void {
    const had = this.known.get(flightKey) ?? 0;
    if (version > had) {
      // Bounded: forgetting a flight is safe only with a new epoch (its maps then count as stale).
      if (this.known.size >= 100_000) {
        this.known.clear();
        this.epoch++;
      }
      this.known.set(flightKey, version);
    }
  }
}
