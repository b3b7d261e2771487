// Chain sessions (search routings, verify sessions, offers) are kept a day past their expiry and then deleted by a
// sweep (src/booking/session-retention.ts): the table gained a row per search routing and was never pruned (a
// review). The sweep reads the expired ones through their expiry; the console's list of live verify sessions and
// offers reads the newest through a partial index (a sequential scan and sort of the whole table before: 143 ms at
// 200,000 rows on the embedded store).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index if not exists booking_sessions_expires on booking_sessions (expires_at);
    create index if not exists booking_sessions_seatable on booking_sessions (created_at desc) where kind in ('verify', 'offer');
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists booking_sessions_seatable;
    drop index if exists booking_sessions_expires;
  `.execute(db);
}
