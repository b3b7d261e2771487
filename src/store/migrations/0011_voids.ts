// The void path (docs/voids.md, decision 0025): void quotations (offers), void orders with their status
// history, kept apart from refunds so that no refund query can ever see a void. A trigger on the history
// writes the `order.void` webhook events into the outbox of migration 0009, in the same transaction as the
// change, exactly as refund_status_history's trigger does for `order.refund`.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- A voidQuotation.do answer. Only the newest quotation of an order can be submitted (seq orders them),
    -- and only once (used_at).
    create table void_offers (
      offer_id text primary key,
      seq bigint generated always as identity,
      client_id text not null references clients(client_id),
      order_no text not null references orders(order_no),
      quote jsonb not null,
      expires_at timestamptz not null,
      created_at timestamptz not null,
      used_at timestamptz
    );
    create index void_offers_order on void_offers (order_no, seq);

    -- status: voidStatus 0–6 (docs/voids.md). path: deposit 0 → 1 → 3 → 2; card 0 → 1 → 5; 0 or 1 → 4.
    create table void_orders (
      void_code text primary key,
      client_id text not null references clients(client_id),
      order_no text not null references orders(order_no),
      offer_id text not null unique references void_offers(offer_id),
      status int not null check (status between 0 and 6),
      path text not null check (path in ('deposit', 'card')),
      currency text not null,
      void_amount_minor bigint not null,
      actual_refund_minor bigint,
      ticket_nos text[] not null,
      details jsonb not null,
      cancel_reason text,
      airline_void_id text,
      completed_on text,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    -- One void per order, unless it ended rejected (4) or withdrawn (6): a second one is refused (803).
    create unique index void_orders_one_live on void_orders (order_no) where status not in (4, 6);
    create index void_orders_order on void_orders (order_no, created_at);

    create table void_status_history (
      id bigint generated always as identity primary key,
      void_code text not null references void_orders(void_code),
      from_status int,
      to_status int not null,
      at timestamptz not null,
      cause text not null
    );
    create index void_status_history_void on void_status_history (void_code, id);

    create function webhook_void_events() returns trigger language plpgsql as $fn$
    begin
      insert into webhook_events (client_id, type, subject, order_no, from_status, to_status, cancel_reason, data, occurred_at, next_attempt_at)
      select v.client_id, 'order.void', h.void_code, v.order_no, h.from_status, h.to_status, v.cancel_reason,
        jsonb_build_object(
          'currency', v.currency,
          'voidAmountMinor', v.void_amount_minor,
          'actualRefundMinor', v.actual_refund_minor,
          'ticketNos', to_jsonb(v.ticket_nos),
          'completedOn', v.completed_on,
          'cause', h.cause),
        h.at, h.at
      from new_rows h
      join void_orders v on v.void_code = h.void_code
      join clients c on c.client_id = v.client_id
      where c.webhook_url is not null
      order by h.id;
      return null;
    end
    $fn$;
    create trigger void_status_history_webhooks after insert on void_status_history
      referencing new table as new_rows for each statement execute function webhook_void_events();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger void_status_history_webhooks on void_status_history;
    drop function webhook_void_events();
    drop table void_status_history;
    drop table void_orders;
    drop table void_offers;
  `.execute(db);
}
