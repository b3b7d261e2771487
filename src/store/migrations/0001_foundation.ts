// Foundation tables: API clients, orders with passengers, segments, tickets, coupons and ancillaries,
// and idempotency keys. Later migrations (refunds, booking chain) extend these.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table clients (
      client_id text primary key,
      name text not null,
      secret_hash text not null,
      previous_secret_hash text,
      previous_secret_expires_at timestamptz,
      status text not null default 'active' check (status in ('active', 'disabled')),
      settings jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table orders (
      order_no text primary key,
      client_id text not null references clients(client_id),
      source text not null check (source in ('claim', 'booking')),
      status text not null check (status in ('0', '1', '2', '-3')),
      carrier text not null,
      airline_pnr text,
      contact_email text,
      contact_phone text,
      payment_method text check (payment_method in ('deposit', 'virtualCard', 'ownAccount', 'merchant')),
      currency text not null,
      total_minor bigint not null,
      ticketed_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    -- One owner per airline record: a second claim of the same PNR finds the first order.
    create unique index orders_airline_record on orders (carrier, airline_pnr);
    create index orders_client on orders (client_id, created_at desc);

    create table order_passengers (
      order_no text not null references orders(order_no) on delete cascade,
      pax_index int not null,
      passenger_type text not null check (passenger_type in ('ADT', 'CHD', 'INF')),
      last_name text not null,
      first_name text not null,
      birthday text,
      gender text,
      document_type text,
      document_number text,
      document_expiry text,
      document_issue_place text,
      nationality text,
      primary key (order_no, pax_index)
    );

    create table order_segments (
      order_no text not null references orders(order_no) on delete cascade,
      segment_index int not null,
      direction text not null check (direction in ('out', 'ret')),
      carrier text not null,
      flight_number text not null,
      dep_airport text not null,
      arr_airport text not null,
      dep_local text not null,
      arr_local text not null,
      dep_at timestamptz not null,
      arr_at timestamptz not null,
      cabin_class int,
      fare_family text,
      operating_carrier text,
      operating_flight_number text,
      primary key (order_no, segment_index)
    );

    create table tickets (
      ticket_no text primary key,
      order_no text not null references orders(order_no) on delete cascade,
      pax_index int not null,
      currency text not null,
      fare_minor bigint not null check (fare_minor >= 0),
      tax_minor bigint not null check (tax_minor >= 0),
      issued_at timestamptz,
      foreign key (order_no, pax_index) references order_passengers(order_no, pax_index)
    );
    create index tickets_order on tickets (order_no);

    create table ticket_coupons (
      ticket_no text not null references tickets(ticket_no) on delete cascade,
      segment_index int not null,
      status text not null check (status in ('OPEN_FOR_USE', 'USED', 'REFUND', 'NOSHOW', 'UNKNOWN')),
      primary key (ticket_no, segment_index)
    );

    create table order_ancillaries (
      id bigint generated always as identity primary key,
      order_no text not null references orders(order_no) on delete cascade,
      pax_index int not null,
      segment_index int,
      kind text not null check (kind in ('inflow', 'post')),
      category text not null,
      product_code text,
      post_order_no text,
      currency text not null,
      price_minor bigint not null check (price_minor >= 0),
      details jsonb not null default '{}'
    );
    create index order_ancillaries_order on order_ancillaries (order_no);

    create table idempotency_keys (
      client_id text not null references clients(client_id),
      endpoint text not null,
      idem_key text not null,
      request_hash text not null,
      http_status int not null,
      response jsonb not null,
      created_at timestamptz not null default now(),
      primary key (client_id, endpoint, idem_key)
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table idempotency_keys;
    drop table order_ancillaries;
    drop table ticket_coupons;
    drop table tickets;
    drop table order_segments;
    drop table order_passengers;
    drop table orders;
    drop table clients;
  `.execute(db);
}
