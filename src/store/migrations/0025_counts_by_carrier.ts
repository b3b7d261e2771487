// The refunds (and voids) per status and airline, maintained instead of counted at every /metrics scrape
// (issue 7, decision 0026 amended). `postbook_refunds{status,carrier}` joined every stored refund to its order
// and counted them: ~0.1 s of PostgreSQL per scrape at 4·10⁵ refunds, every process, every scrape, growing
// with the history. Now:
// - refund_orders and void_orders carry their order's airline (`carrier`, written by the writers from the
//   order they already hold; a row inserted without it — an older build's process still finishing its
//   requests during an upgrade, an operator's SQL — takes it from its order in a BEFORE INSERT trigger whose
//   WHEN clause PostgreSQL checks in C, so the writers that give it pay nothing);
// - console_queue_counts (migration 0018) is kept per (kind, status, carrier, slot) by the same statement-level
//   triggers, grouped by the carrier of the transition tables' rows (no read of orders); the console sums
//   over the airlines as before, /metrics reads a few dozen rows.
import { sql, type Kysely } from 'kysely';
import { COUNTED_PER_STATUS } from './0018_console_part3.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- The airline of the existing rows. The old counting function sees no status move here: nothing counted.
    alter table refund_orders add column carrier text;
    update refund_orders r set carrier = o.carrier from orders o where o.order_no = r.order_no;
    alter table refund_orders alter column carrier set not null;
    alter table void_orders add column carrier text;
    update void_orders v set carrier = o.carrier from orders o where o.order_no = v.order_no;
    alter table void_orders alter column carrier set not null;

    create function carrier_of_order() returns trigger language plpgsql as $$
    begin
      select o.carrier into new.carrier from orders o where o.order_no = new.order_no;
      return new;
    end $$;
    create trigger refund_orders_carrier before insert on refund_orders for each row when (new.carrier is null)
      execute function carrier_of_order();
    create trigger void_orders_carrier before insert on void_orders for each row when (new.carrier is null)
      execute function carrier_of_order();

    -- The counts again, per airline (the writers wait on the ALTERs' locks until this transaction commits).
    delete from console_queue_counts;
    alter table console_queue_counts add column carrier text not null;
    alter table console_queue_counts drop constraint console_queue_counts_pkey;
    alter table console_queue_counts add primary key (kind, status, carrier, slot);
    insert into console_queue_counts (kind, status, carrier, slot, n)
    select 'refund', status, carrier, 0, count(*) from refund_orders group by status, carrier
    union all
    select 'void', status, carrier, 0, count(*) from void_orders group by status, carrier;

    create or replace function console_queue_counted() returns trigger language plpgsql as $$
    begin
      -- TG_ARGV[0]: the kind. Transition tables: new_rows (insert, update), old_rows (update, delete).
      if tg_op = 'INSERT' then
        insert into console_queue_counts as c (kind, status, carrier, slot, n)
        select tg_argv[0], status, carrier, pg_backend_pid() % 16, count(*) from new_rows group by status, carrier
        on conflict (kind, status, carrier, slot) do update set n = c.n + excluded.n;
      elsif tg_op = 'UPDATE' then
        insert into console_queue_counts as c (kind, status, carrier, slot, n)
        select tg_argv[0], d.status, d.carrier, pg_backend_pid() % 16, sum(d.n) from (
          select status, carrier, count(*) as n from new_rows group by status, carrier
          union all
          select status, carrier, -count(*) from old_rows group by status, carrier
        ) d group by d.status, d.carrier having sum(d.n) <> 0
        on conflict (kind, status, carrier, slot) do update set n = c.n + excluded.n;
      else
        insert into console_queue_counts as c (kind, status, carrier, slot, n)
        select tg_argv[0], status, carrier, pg_backend_pid() % 16, -count(*) from old_rows group by status, carrier
        on conflict (kind, status, carrier, slot) do update set n = c.n + excluded.n;
      end if;
      return null;
    end $$;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    ${sql.raw(COUNTED_PER_STATUS)}
    delete from console_queue_counts;
    alter table console_queue_counts drop constraint console_queue_counts_pkey;
    alter table console_queue_counts drop column carrier;
    alter table console_queue_counts add primary key (kind, status, slot);
    insert into console_queue_counts (kind, status, slot, n)
    select 'refund', status, 0, count(*) from refund_orders group by status
    union all
    select 'void', status, 0, count(*) from void_orders group by status;
    drop trigger void_orders_carrier on void_orders;
    drop trigger refund_orders_carrier on refund_orders;
    drop function carrier_of_order();
    alter table void_orders drop column carrier;
    alter table refund_orders drop column carrier;
  `.execute(db);
}
