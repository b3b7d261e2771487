// Issue 12 part 3 (docs/console.md, decision 0029 "Part 3"): the sandbox airline records a refund withdrawn at
// postbook's request (AirlineConnector.withdrawRefund): from withdrawn_at on, the refund is withdrawn.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table sandbox_refunds add column withdrawn_at timestamptz;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table sandbox_refunds drop column withdrawn_at;
  `.execute(db);
}
