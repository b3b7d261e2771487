// The statement-level triggers read the tables they look into by key (issue 7, docs/architecture.md "Performance
// targets", decision 0015's amendment).
//
// A trigger's statements are planned once per connection, on their first run, and that plan serves the
// connection for as long as no ANALYZE of their tables invalidates it. The order-context-version triggers of
// migration 0016 and the webhook outbox triggers of 0009 and 0011 join their transition table to a growing table
// (orders, tickets, refund_orders, void_orders), so the planner was free to hash-join: planned on a young store
// (or a store whose statistics lag, as on a PostgreSQL run with autovacuum off), the join read the growing table
// whole on every later write — 6–7 ms per submission statement with 5,750 refunds, growing with the store. Now:
// - the version bump updates orders where order_no = any(array(…)) of the changed rows' orders (found the same
//   way in tickets or refund_orders), the webhook triggers read each changed refund or void in a fenced lateral
//   sub-select, and each trigger function runs with sequential scans, hash and merge joins disabled by its own
//   SET clause (only its statements, only while it runs): a lookup per key, whatever the statistics said when
//   the plan was made. Tried and dropped: a loop of one UPDATE per order (~50 µs per order), and the joins under
//   the SET clause alone (the embedded backlog fell 5×; a nested loop walking a whole index is still allowed);
// - the webhook triggers return at once while no client has a webhook URL (a partial index on clients);
// - the orders row trigger that moves ctx_version on any other update of an order is skipped, in C, for the
//   triggers' own bump (a WHEN clause), instead of entering PL/pgSQL for every bumped order.
// src/store/trigger-plans.test.ts plans every trigger on small tables, grows them and checks that no trigger then
// reads a growing table whole.
import { sql, type Kysely } from 'kysely';

/** Tables carrying order_no, and how the others reach it: the keys as one array, each looked up by itself. */
export const DIRECT = ['order_passengers', 'order_segments', 'tickets', 'order_ancillaries', 'refund_orders', 'void_orders'] as const;
export const VIA = {
  ticket_coupons: 'select t.order_no from tickets t where t.ticket_no = any(array(select ticket_no from changed_rows))',
  refund_tickets: 'select r.order_no from refund_orders r where r.refund_code = any(array(select refund_code from changed_rows))',
} as const;
const JOINED_VIA = {
  ticket_coupons: 'select t.order_no from tickets t where t.ticket_no in (select ticket_no from changed_rows)',
  refund_tickets: 'select r.order_no from refund_orders r where r.refund_code in (select refund_code from changed_rows)',
} as const;

/**
 * A trigger function's own settings: a table it reads is read through an index. With keys given as an array
 * (`= any(array(…))`) or one outer row at a time (a fenced lateral sub-select), that is a lookup per key.
 */
export const BY_KEY = 'set enable_seqscan = off set enable_hashjoin = off set enable_mergejoin = off';

/** `extra`: a further condition on the orders rows to bump (migration 0022). */
export function bump(table: string, orderNos: string, byKey: boolean, extra = ''): string {
  return `
    create or replace function ${table}_ctx_bump() returns trigger language plpgsql ${byKey ? BY_KEY : ''} as $fn$
    begin
      update orders set ctx_version = ctx_version + 1 where order_no ${byKey ? `= any(array(${orderNos}))` : `in (${orderNos})`}${extra};
      return null;
    end
    $fn$;`;
}

/** The two webhook outbox triggers of migrations 0009 and 0011: one event per status-history row. */
const OUTBOX = {
  refund: {
    fn: 'webhook_refund_events',
    type: 'order.refund',
    table: 'refund_orders',
    alias: 'r',
    key: 'refund_code',
    data: `
          'reason', r.reason,
          'refundMethod', r.refund_method,
          'quoteType', r.quote_type,
          'currency', r.currency,
          'estimatedRefundMinor', r.estimated_refund_minor,
          'actualRefundMinor', r.actual_refund_minor,
          'serviceFeeCurrency', r.service_fee_currency,
          'serviceFeeMinor', r.service_fee_minor,
          'completedOn', r.completed_on,
          'ticketNos', (select coalesce(jsonb_agg(t.ticket_no order by t.ticket_no), '[]'::jsonb) from refund_tickets t where t.refund_code = h.refund_code),`,
  },
  void: {
    fn: 'webhook_void_events',
    type: 'order.void',
    table: 'void_orders',
    alias: 'v',
    key: 'void_code',
    data: `
          'currency', v.currency,
          'voidAmountMinor', v.void_amount_minor,
          'actualRefundMinor', v.actual_refund_minor,
          'ticketNos', to_jsonb(v.ticket_nos),
          'completedOn', v.completed_on,`,
  },
} as const;

function outboxEvents({ fn, type, table, alias: a, key, data }: (typeof OUTBOX)[keyof typeof OUTBOX], byKey: boolean): string {
  const subjects = byKey
    ? `cross join lateral (select * from ${table} ${a} where ${a}.${key} = h.${key} offset 0) ${a}`
    : `join ${table} ${a} on ${a}.${key} = h.${key}`;
  return `
    create or replace function ${fn}() returns trigger language plpgsql ${byKey ? BY_KEY : ''} as $fn$
    begin
      ${byKey ? 'if not exists (select 1 from clients where webhook_url is not null) then return null; end if;' : ''}
      insert into webhook_events (client_id, type, subject, order_no, from_status, to_status, cancel_reason, data, occurred_at, next_attempt_at)
      select ${a}.client_id, '${type}', h.${key}, ${a}.order_no, h.from_status, h.to_status, ${a}.cancel_reason,
        jsonb_build_object(${data}
          'cause', h.cause),
        h.at, h.at
      from new_rows h
      ${subjects}
      join clients c on c.client_id = ${a}.client_id
      where c.webhook_url is not null
      order by h.id;
      return null;
    end
    $fn$;`;
}

const ORDERS_ROW_TRIGGER = (when: string) => `
    drop trigger orders_ctx_version on orders;
    create trigger orders_ctx_version before update on orders for each row ${when} execute function orders_ctx_bump();`;

export async function up(db: Kysely<unknown>): Promise<void> {
  const parts = [
    ...DIRECT.map((t) => bump(t, 'select order_no from changed_rows', true)),
    ...Object.entries(VIA).map(([t, orderNos]) => bump(t, orderNos, true)),
    // orders_ctx_bump moves the version only when an update leaves it as it was: the same test, without the call.
    ORDERS_ROW_TRIGGER('when (new.ctx_version = old.ctx_version)'),
    // "Does any client take webhooks?" — one index probe, for every status change of every refund and void.
    `create index clients_with_webhook on clients (client_id) where webhook_url is not null;`,
    outboxEvents(OUTBOX.refund, true),
    outboxEvents(OUTBOX.void, true),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const parts = [
    ...DIRECT.map((t) => bump(t, 'select order_no from changed_rows', false)),
    ...Object.entries(JOINED_VIA).map(([t, orderNos]) => bump(t, orderNos, false)),
    ORDERS_ROW_TRIGGER(''),
    `drop index clients_with_webhook;`,
    outboxEvents(OUTBOX.refund, false),
    outboxEvents(OUTBOX.void, false),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}
