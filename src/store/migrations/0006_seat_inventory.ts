// Seat inventory versions of the sandbox airline: one row per flight whose seats were ever sold or released,
// bumped in the same transaction as the sale or release, so a cached seat map knows when it is stale
// (docs/architecture.md "Performance targets": seat maps cached as bytes, invalidated on every seat sale).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sandbox_seat_versions (
      -- the flight key of sandbox_seat_sales ("XS901/20260105")
      flight_key text primary key,
      version bigint not null check (version > 0)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sandbox_seat_versions;`.execute(db);
}
