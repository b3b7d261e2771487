// The order's context version (decision 0030): `orders.ctx_version` moves on every committed write to anything a
// refund decision reads about the order (src/refunds/context.ts): the order row itself, its passengers,
// segments, tickets, coupons, ancillaries, refunds and their tickets, and its voids. Triggers do it, in the
// writing statement's own transaction, so no code path can forget it. A quote priced from a copy of the
// context kept in the API process stores its offer only if the version is still the one it priced from
// (src/refunds/offers.ts), so a kept copy never answers for a changed order, on one process or several.
//
// One statement-level trigger per table and event, over its transition table: a statement writing many rows
// (a batch of submissions, a bulk load) bumps each order it touched once, in one UPDATE.
import { sql, type Kysely } from 'kysely';

/** Tables carrying order_no, and how the others reach it. */
const DIRECT = ['order_passengers', 'order_segments', 'tickets', 'order_ancillaries', 'refund_orders', 'void_orders'] as const;
const VIA = {
  ticket_coupons: 'select t.order_no from tickets t where t.ticket_no in (select ticket_no from changed_rows)',
  refund_tickets: 'select r.order_no from refund_orders r where r.refund_code in (select refund_code from changed_rows)',
} as const;

const EVENTS = [
  ['insert', 'new'],
  ['update', 'new'],
  ['delete', 'old'],
] as const;

function bumpFunction(table: string, orderNos: string): string {
  return `
    create function ${table}_ctx_bump() returns trigger language plpgsql as $fn$
    begin
      update orders set ctx_version = ctx_version + 1 where order_no in (${orderNos});
      return null;
    end
    $fn$;`;
}

function triggers(table: string): string {
  return EVENTS.map(
    ([event, side]) => `
    create trigger ${table}_ctx_${event} after ${event} on ${table}
      referencing ${side} table as changed_rows for each statement execute function ${table}_ctx_bump();`,
  ).join('');
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const parts = [
    `alter table orders add column ctx_version bigint not null default 0;`,
    // Any update of the order row moves it too (status, payment, contact…), unless the update moves it itself.
    `create function orders_ctx_bump() returns trigger language plpgsql as $fn$
     begin
       if new.ctx_version = old.ctx_version then new.ctx_version := old.ctx_version + 1; end if;
       return new;
     end
     $fn$;
     create trigger orders_ctx_version before update on orders for each row execute function orders_ctx_bump();`,
    ...DIRECT.map((t) => bumpFunction(t, 'select order_no from changed_rows') + triggers(t)),
    ...Object.entries(VIA).map(([t, orderNos]) => bumpFunction(t, orderNos) + triggers(t)),
  ];
  await sql.raw(parts.join('\n')).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const tables = [...DIRECT, ...Object.keys(VIA)];
  const parts = [
    ...tables.flatMap((t) => [...EVENTS.map(([event]) => `drop trigger ${t}_ctx_${event} on ${t};`), `drop function ${t}_ctx_bump();`]),
    `drop trigger orders_ctx_version on orders; drop function orders_ctx_bump();`,
    `alter table orders drop column ctx_version;`,
  ];
  await sql.raw(parts.join('\n')).execute(db);
}
