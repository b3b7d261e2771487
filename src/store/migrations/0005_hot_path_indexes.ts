// Indexes the refund quote's statement needs beyond those of 0001/0002 (docs/architecture.md "Performance targets":
// quote latency flat as the store grows). src/store/hot-path-indexes.test.ts checks every hot-path plan.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- spec 7.1 824: an orderNo that is no order of the caller may be one of its post-ticketing service
    -- orders; without this index that check read every ancillary of every order.
    create index order_ancillaries_post_order on order_ancillaries (post_order_no) where post_order_no is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index order_ancillaries_post_order;`.execute(db);
}
