// One sandbox clock for every process (README "Sandbox clock"): the offset of the sandbox time from the real
// time, in one row. POST /sandbox/clock on any API process moves it; every API and worker process reads it
// at start and follows it (src/sandbox-clock.ts). Unused outside sandbox mode.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sandbox_clock (
      one boolean primary key default true check (one),
      offset_ms bigint not null default 0 check (offset_ms >= 0),
      moved_at timestamptz
    );
    insert into sandbox_clock (one) values (true);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sandbox_clock`.execute(db);
}
