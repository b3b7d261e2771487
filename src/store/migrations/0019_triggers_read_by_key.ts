// The statement-level triggers read the tables they look into one key at a time (issue 7, docs/architecture.md
// "Performance targets").
//
// A trigger's statements are planned once per connection, on their first run, and that plan serves the
// connection for as long as no ANALYZE of their tables invalidates it. The order-context-version triggers of
// migration 0016 (for refund_tickets and ticket_coupons) and the webhook outbox triggers of 0009 and 0011 joined
// their transition table to a growing table (refund_orders, tickets, void_orders) in one statement, so the
// planner was free to hash-join: planned on a young store (or a store whose statistics lag, as on a PostgreSQL
// run with autovacuum off), it read the growing table whole on every later submission — 6–7 ms per statement
// with 5,750 refunds, growing with the store. Now:
// - the context-version bump updates each order it touched by its primary key, in order_no order (concurrent
//   transactions lock the orders they share in one order), after finding the orders through per-key lookups;
// - the webhook triggers return at once while no client has a webhook URL (one probe of a partial index), and
//   read each changed refund or void by its key.
// src/store/trigger-plans.test.ts plans every trigger on small tables, grows them and checks that no trigger
// then reads a growing table sequentially.
import { sql, type Kysely } from 'kysely';

/** Tables carrying order_no, and how the others reach it (one lookup by key per changed row). */
const DIRECT = ['order_passengers', 'order_segments', 'tickets', 'order_ancillaries', 'refund_orders', 'void_orders'] as const;
const VIA = {
  ticket_coupons: 'select t.order_no from changed_rows c cross join lateral (select t.order_no from tickets t where t.ticket_no = c.ticket_no offset 0) t',
  refund_tickets: 'select r.order_no from changed_rows c cross join lateral (select r.order_no from refund_orders r where r.refund_code = c.refund_code offset 0) r',
} as const;

function bumpByKey(table: string, orderNos: string): string {
  return `
    create or replace function ${table}_ctx_bump() returns trigger language plpgsql as $fn$
    declare
      o text;
    begin
      for o in select distinct n.order_no from (${orderNos}) n order by 1 loop
        update orders set ctx_version = ctx_version + 1 where order_no = o;
      end loop;
      return null;
    end
    $fn$;`;
}

/** The form of migration 0016, for down(). */
function bumpByJoin(table: string, orderNos: string): string {
  return `
    create or replace function ${table}_ctx_bump() returns trigger language plpgsql as $fn$
    begin
      update orders set ctx_version = ctx_version + 1 where order_no in (${orderNos});
      return null;
    end
    $fn$;`;
}
const JOINED_VIA = {
  ticket_coupons: 'select t.order_no from tickets t where t.ticket_no in (select ticket_no from changed_rows)',
  refund_tickets: 'select r.order_no from refund_orders r where r.refund_code in (select refund_code from changed_rows)',
} as const;

function refundEvents(byKey: boolean): string {
  return `
    create or replace function webhook_refund_events() returns trigger language plpgsql as $fn$
    begin
      ${byKey ? 'if not exists (select 1 from clients where webhook_url is not null) then return null; end if;' : ''}
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
      ${byKey ? 'cross join lateral (select * from refund_orders r where r.refund_code = h.refund_code offset 0) r' : 'join refund_orders r on r.refund_code = h.refund_code'}
      join clients c on c.client_id = r.client_id
      where c.webhook_url is not null
      order by h.id;
      return null;
    end
    $fn$;`;
}

function voidEvents(byKey: boolean): string {
  return `
    create or replace function webhook_void_events() returns trigger language plpgsql as $fn$
    begin
      ${byKey ? 'if not exists (select 1 from clients where webhook_url is not null) then return null; end if;' : ''}
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
      ${byKey ? 'cross join lateral (select * from void_orders v where v.void_code = h.void_code offset 0) v' : 'join void_orders v on v.void_code = h.void_code'}
      join clients c on c.client_id = v.client_id
      where c.webhook_url is not null
      order by h.id;
      return null;
    end
    $fn$;`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const parts = [
    ...DIRECT.map((t) => bumpByKey(t, 'select order_no from changed_rows')),
    ...Object.entries(VIA).map(([t, orderNos]) => bumpByKey(t, orderNos)),
    // "Does any client take webhooks?" — one index probe, for every status change of every refund and void.
    `create index clients_with_webhook on clients (client_id) where webhook_url is not null;`,
    refundEvents(true),
    voidEvents(true),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const parts = [
    ...DIRECT.map((t) => bumpByJoin(t, 'select order_no from changed_rows')),
    ...Object.entries(JOINED_VIA).map(([t, orderNos]) => bumpByJoin(t, orderNos)),
    `drop index clients_with_webhook;`,
    refundEvents(false),
    voidEvents(false),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}
