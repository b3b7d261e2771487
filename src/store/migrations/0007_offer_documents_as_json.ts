// An offer's request and quote are documents the service writes once and reads whole (refund.do by
// refundOfferId); nothing looks inside them in SQL. `json` stores the text as given, where `jsonb` parses
// it into its binary form on every write (issue 7 "speed": ~75 µs per offer of a quote's store time on
// PGlite). refund_orders.details stays jsonb: the lifecycle rewrites it and operators query it.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_offers
      alter column request type json using request::json,
      alter column quote type json using quote::json;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table refund_offers
      alter column request type jsonb using request::jsonb,
      alter column quote type jsonb using quote::jsonb;
  `.execute(db);
}
