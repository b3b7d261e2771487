// The booking chain (issue 4): search routings, verify sessions and offers, the payment side of booked
// orders, and the sandbox airline's own bookings and seat sales (durable, so extractPnr.do and refunds see
// them after a restart). Times are written from the service clock, never now().
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table booking_sessions (
      id text primary key,
      client_id text not null references clients(client_id),
      -- search: a routingIdentifier; verify: a sessionId; offer: an offerId
      kind text not null check (kind in ('search', 'verify', 'offer')),
      carrier text not null,
      -- flights of the itinerary, "XS101/20260105|XS102/20260112" (flight-only seat requests match on it)
      flight_key text not null,
      itinerary jsonb not null,
      pax jsonb not null,
      expires_at timestamptz not null,
      created_at timestamptz not null
    );
    create index booking_sessions_client on booking_sessions (client_id, kind, flight_key, created_at desc);

    create table booking_orders (
      order_no text primary key references orders(order_no),
      client_id text not null references clients(client_id),
      session_id text not null,
      payment_deadline timestamptz not null,
      -- unpaid → paying (the airline is issuing) → paid; paying falls back to unpaid when issuing fails
      pay_state text not null check (pay_state in ('unpaid', 'paying', 'paid')),
      payment_method text,
      -- pass-through card: the last four digits only, never more
      card_last4 text check (card_last4 ~ '^[0-9]{4}$'),
      fee_minor bigint not null check (fee_minor >= 0),
      details jsonb not null,
      created_at timestamptz not null,
      paid_at timestamptz
    );
    create index booking_orders_client on booking_orders (client_id, created_at desc);

    create table sandbox_bookings (
      carrier text not null,
      pnr text not null,
      -- the order number postbook sent (idempotency key of the booking)
      booking_key text not null unique,
      status text not null check (status in ('OnHold', 'Ticketed', 'Cancelled')),
      booking jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      primary key (carrier, pnr)
    );

    create table sandbox_seat_sales (
      -- "XS101/20260105"
      flight_key text not null,
      seat text not null,
      carrier text not null,
      pnr text not null,
      sold_at timestamptz not null,
      primary key (flight_key, seat)
    );
    create index sandbox_seat_sales_booking on sandbox_seat_sales (carrier, pnr);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sandbox_seat_sales; drop table sandbox_bookings; drop table booking_orders; drop table booking_sessions;`.execute(db);
}
