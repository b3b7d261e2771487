// Issue 12 part 3 (docs/console.md, decision 0029 "Part 3"):
// - the sandbox airline records a refund withdrawn at postbook's request (AirlineConnector.withdrawRefund): from
//   withdrawn_at on, the refund is withdrawn;
// - the console queue's counts per status, maintained by statement-level triggers on refund_orders and
//   void_orders (one grouped upsert per statement, whatever its rows), so the queue reads a few dozen rows
//   instead of counting every refund and void. Rows are spread over 16 slots by backend: concurrent writers on
//   different connections do not wait on one counter row. A count is the sum of its slots;
// - the sandbox world last reloaded from the console (src/airline/sandbox/world-share.ts): every process on the
//   store follows its version (the data without the secrets, and the time its relative times were resolved at).
import { sql, type Kysely } from 'kysely';

/** The counting function of the statement-level triggers (also restored by migration 0025's down). */
export const COUNTED_PER_STATUS = `
create or replace function console_queue_counted() returns trigger language plpgsql as $$
begin
  -- TG_ARGV[0]: the kind. Transition tables: new_rows (insert, update), old_rows (update, delete).
  if tg_op = 'INSERT' then
    insert into console_queue_counts as c (kind, status, slot, n)
    select tg_argv[0], status, pg_backend_pid() % 16, count(*) from new_rows group by status
    on conflict (kind, status, slot) do update set n = c.n + excluded.n;
  elsif tg_op = 'UPDATE' then
    insert into console_queue_counts as c (kind, status, slot, n)
    select tg_argv[0], d.status, pg_backend_pid() % 16, sum(d.n) from (
      select status, count(*) as n from new_rows group by status
      union all
      select status, -count(*) from old_rows group by status
    ) d group by d.status having sum(d.n) <> 0
    on conflict (kind, status, slot) do update set n = c.n + excluded.n;
  else
    insert into console_queue_counts as c (kind, status, slot, n)
    select tg_argv[0], status, pg_backend_pid() % 16, -count(*) from old_rows group by status
    on conflict (kind, status, slot) do update set n = c.n + excluded.n;
  end if;
  return null;
end $$;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table sandbox_refunds add column withdrawn_at timestamptz;

    create table sandbox_world (
      one boolean primary key default true check (one),
      version bigint not null,
      origin text not null,
      file text not null,
      data jsonb not null,
      loaded_at timestamptz not null,
      reloaded_at timestamptz not null
    );

    create table console_queue_counts (
      kind text not null check (kind in ('refund', 'void')),
      status integer not null,
      slot integer not null,
      n bigint not null,
      primary key (kind, status, slot)
    );

    ${sql.raw(COUNTED_PER_STATUS)}

    create trigger refund_orders_counted_insert after insert on refund_orders referencing new table as new_rows
      for each statement execute function console_queue_counted('refund');
    create trigger refund_orders_counted_update after update on refund_orders referencing old table as old_rows new table as new_rows
      for each statement execute function console_queue_counted('refund');
    create trigger refund_orders_counted_delete after delete on refund_orders referencing old table as old_rows
      for each statement execute function console_queue_counted('refund');
    create trigger void_orders_counted_insert after insert on void_orders referencing new table as new_rows
      for each statement execute function console_queue_counted('void');
    create trigger void_orders_counted_update after update on void_orders referencing old table as old_rows new table as new_rows
      for each statement execute function console_queue_counted('void');
    create trigger void_orders_counted_delete after delete on void_orders referencing old table as old_rows
      for each statement execute function console_queue_counted('void');

    -- What is there already (the triggers count from here on; the migration runs in one transaction).
    insert into console_queue_counts (kind, status, slot, n)
    select 'refund', status, 0, count(*) from refund_orders group by status
    union all
    select 'void', status, 0, count(*) from void_orders group by status;

    -- Counts of one client without the join of the other filters (index-only where the visibility map allows).
    create index refund_orders_client_status on refund_orders (client_id, status, created_at);
    create index void_orders_client_status on void_orders (client_id, status, created_at);
    create index void_orders_status_created on void_orders (status, created_at desc);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index void_orders_status_created;
    drop index void_orders_client_status;
    drop index refund_orders_client_status;
    drop trigger void_orders_counted_delete on void_orders;
    drop trigger void_orders_counted_update on void_orders;
    drop trigger void_orders_counted_insert on void_orders;
    drop trigger refund_orders_counted_delete on refund_orders;
    drop trigger refund_orders_counted_update on refund_orders;
    drop trigger refund_orders_counted_insert on refund_orders;
    drop function console_queue_counted();
    drop table console_queue_counts;
    drop table sandbox_world;
    alter table sandbox_refunds drop column withdrawn_at;
  `.execute(db);
}
