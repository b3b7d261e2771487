// order.do, pay.do and queryOrderDetails.do on the original interface's shapes (docs/decisions/0023):
// postbook's own booking reference (the wire's pnrCode) per booked order, and unpaid orders that lapse at their
// payment deadline ('expired', then orders.status '-3'), found by the expiry sweep through a partial index.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table booking_orders add column booking_ref text;
    -- orders booked before this migration get a reference derived from their order number (unique as it is)
    update booking_orders set booking_ref = 'Z' || upper(substr(md5(order_no), 1, 9)) where booking_ref is null;
    alter table booking_orders alter column booking_ref set not null;
    alter table booking_orders add constraint booking_orders_booking_ref_key unique (booking_ref);
    alter table booking_orders drop constraint booking_orders_pay_state_check;
    -- expired: the payment deadline passed unpaid; the order is cancelled (-3) and the airline hold released
    alter table booking_orders add constraint booking_orders_pay_state_check check (pay_state in ('unpaid', 'paying', 'paid', 'expired'));
    create index booking_orders_unpaid_deadline on booking_orders (payment_deadline) where pay_state = 'unpaid';
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index booking_orders_unpaid_deadline;
    alter table booking_orders drop constraint booking_orders_pay_state_check;
    update booking_orders set pay_state = 'unpaid' where pay_state = 'expired';
    alter table booking_orders add constraint booking_orders_pay_state_check check (pay_state in ('unpaid', 'paying', 'paid'));
    alter table booking_orders drop column booking_ref;
  `.execute(db);
}
