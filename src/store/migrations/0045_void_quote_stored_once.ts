// A void's quote is stored once, as its used offer's `quote` (decision 0058, as a refund's since decision 0053): void.do
// wrote it twice, as the offer's document and again as the void's `details`. A void stored from now on keeps `{}` in
// `details`; one stored before keeps its whole quote there, and readers take the quote from `details` when it holds
// one (`orderNo`), from the offer otherwise.
//
// The quote's two expected dates, which the console's queue reads for every void it counts and flags, become columns
// so that it reads no document: null for voids stored before, whose `details` still hold them (the queue falls back).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table void_orders
      add column if not exists expected_confirmation_date text,
      add column if not exists expected_refund_date text;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // A void written since keeps its quote in its offer; an older build reads `details`: the quote copied back first.
  await sql`
    update void_orders v set details = o.quote from void_offers o
    where o.offer_id = v.offer_id and not (v.details ? 'orderNo');
  `.execute(db);
  await sql`
    alter table void_orders
      drop column if exists expected_confirmation_date,
      drop column if exists expected_refund_date;
  `.execute(db);
}
