// The sandbox airline's ticket numbers from a sequence (a review: ten random digits a ticket, so two tickets of one
// number became likely past ~10⁵ issued, and tickets.ticket_no is a key — the second payment failed to record and
// its order stayed "ticketing"). Prefix 997: numbers made before (998 and ten random digits) cannot meet these.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create sequence if not exists sandbox_ticket_numbers`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop sequence if exists sandbox_ticket_numbers`.execute(db);
}
