// Refunds: offers (quotes a caller may submit), refund orders with their tickets and status history.
// Also what the refund rules need from orders: the departure airport's zone and the booked schedule.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table order_segments add column dep_time_zone text;
    alter table order_segments add column booked_dep_local text;
    alter table tickets add column tax_status_confirmed boolean not null default true;

    create table refund_offers (
      offer_id text primary key,
      client_id text not null references clients(client_id),
      order_no text not null references orders(order_no),
      reason text not null check (reason in ('0', '1', '4')),
      ticket_nos text[] not null,
      request jsonb not null,
      quote jsonb not null,
      status text not null check (status in ('active', 'used', 'superseded')),
      expires_at timestamptz not null,
      created_at timestamptz not null,
      used_at timestamptz
    );
    create index refund_offers_order on refund_offers (order_no) where status = 'active';

    create table refund_orders (
      refund_code text primary key,
      client_id text not null references clients(client_id),
      order_no text not null references orders(order_no),
      -- single use of an offer, guaranteed by the database
      offer_id text not null unique references refund_offers(offer_id),
      reason text not null check (reason in ('0', '1', '4')),
      status int not null check (status between 0 and 6),
      path text not null check (path in ('deposit', 'card')),
      quote_type text not null check (quote_type in ('AccurateQuote', 'CannotQuote')),
      refund_method text not null check (refund_method in ('CashBackToOriginalPayment', 'Voucher')),
      currency text not null,
      estimated_refund_minor bigint not null,
      actual_refund_minor bigint,
      post_refund_minor bigint not null default 0,
      service_fee_currency text not null,
      service_fee_minor bigint not null,
      display_currency text,
      details jsonb not null,
      cancel_reason text,
      airline_refund_id text,
      completed_on text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index refund_orders_order on refund_orders (order_no, created_at desc);
    create index refund_orders_open on refund_orders (status) where status in (0, 1, 3);

    create table refund_tickets (
      refund_code text not null references refund_orders(refund_code) on delete cascade,
      ticket_no text not null,
      pax_index int not null,
      -- live: the ticket's refund is under way or done; false once rejected or withdrawn
      live boolean not null default true,
      primary key (refund_code, ticket_no)
    );
    -- one live refund per ticket: a second submission for the same passenger fails (803)
    create unique index refund_tickets_one_live on refund_tickets (ticket_no) where live;

    create table refund_status_history (
      id bigint generated always as identity primary key,
      refund_code text not null references refund_orders(refund_code) on delete cascade,
      from_status int,
      to_status int not null,
      at timestamptz not null,
      cause text not null
    );
    create index refund_status_history_code on refund_status_history (refund_code, id);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table refund_status_history;
    drop table refund_tickets;
    drop table refund_orders;
    drop table refund_offers;
    alter table tickets drop column tax_status_confirmed;
    alter table order_segments drop column booked_dep_local;
    alter table order_segments drop column dep_time_zone;
  `.execute(db);
}
