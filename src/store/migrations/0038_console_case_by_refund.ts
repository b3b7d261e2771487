// A refund's page in the console reads its case by the refund's code (src/console/detail.ts): console_cases had no
// index on it, so every page open scanned the table, which only grows (a review).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists console_cases_refund_code on console_cases (refund_code) where refund_code is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists console_cases_refund_code`.execute(db);
}
