// Webhooks (docs/webhooks.md, decision 0022): a client's webhook URL and signing secret, the outbox of events
// and the record of every delivery attempt. A trigger on refund_status_history writes the events, so every
// status change, wherever it is written, has its event in the same transaction.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table clients add column webhook_url text;
    -- the signing secret, encrypted (src/webhooks/secret.ts); null until a URL is first registered
    alter table clients add column webhook_secret text;

    -- The outbox: one row per status change of a client with a webhook URL at that moment. type is the
    -- event type ('order.refund'; 'order.void' later), subject the refundCode (later the voidCode): events
    -- of one subject are delivered in id order.
    create table webhook_events (
      id bigint generated always as identity primary key,
      event_id uuid not null unique default gen_random_uuid(),
      client_id text not null references clients(client_id),
      type text not null,
      subject text not null,
      order_no text not null,
      from_status int,
      to_status int not null,
      cancel_reason text,
      data jsonb not null,
      occurred_at timestamptz not null,
      state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
      attempts int not null default 0,
      -- due time of the next attempt; while an attempt is under way, the end of its lease
      next_attempt_at timestamptz not null,
      delivered_at timestamptz,
      last_error text
    );
    create index webhook_events_due on webhook_events (next_attempt_at) where state = 'pending';
    create index webhook_events_subject on webhook_events (type, subject, id) where state = 'pending';

    create table webhook_attempts (
      id bigint generated always as identity primary key,
      event_id bigint not null references webhook_events(id) on delete cascade,
      attempt int not null,
      url text not null,
      started_at timestamptz not null,
      duration_ms int not null,
      http_status int,
      error text,
      -- at most 200 characters of the receiver's answer
      response_excerpt text
    );
    create index webhook_attempts_event on webhook_attempts (event_id, id);

    create function webhook_refund_events() returns trigger language plpgsql as $fn$
    begin
      insert into webhook_events (client_id, type, subject, order_no, from_status, to_status, cancel_reason, data, occurred_at, next_attempt_at)
      select r.client_id, 'order.refund', h.refund_code, r.order_no, h.from_status, h.to_status, r.cancel_reason,
        jsonb_build_object(
          'reason', r.reason,
          'refundMethod', r.refund_method,
          'quoteType', r.quote_type,
          'currency', r.currency,
          'estimatedRefundMinor', r.estimated_refund_minor,
          'actualRefundMinor', r.actual_refund_minor,
          'serviceFeeCurrency', r.service_fee_currency,
          'serviceFeeMinor', r.service_fee_minor,
          'completedOn', r.completed_on,
          'ticketNos', (select coalesce(jsonb_agg(t.ticket_no order by t.ticket_no), '[]'::jsonb) from refund_tickets t where t.refund_code = h.refund_code),
          'cause', h.cause),
        h.at, h.at
      from new_rows h
      join refund_orders r on r.refund_code = h.refund_code
      join clients c on c.client_id = r.client_id
      where c.webhook_url is not null
      order by h.id;
      return null;
    end
    $fn$;
    create trigger refund_status_history_webhooks after insert on refund_status_history
      referencing new table as new_rows for each statement execute function webhook_refund_events();
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop trigger refund_status_history_webhooks on refund_status_history;
    drop function webhook_refund_events();
    drop table webhook_attempts;
    drop table webhook_events;
    alter table clients drop column webhook_secret;
    alter table clients drop column webhook_url;
  `.execute(db);
}
