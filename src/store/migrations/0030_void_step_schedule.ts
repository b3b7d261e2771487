// A void's airline calls are due times in its row (decision 0045), as a refund's are (decisions 0034, 0035):
// `next_step_at` is when the lifecycle's sweep next sends the void (status 0) or looks at it (1, 3), null once it
// is final; `step_failures` and `step_error` its failed calls in a row. The sweep reads the due ones on
// `void_orders_step_due`. The column's default, '-infinity' (due at once whatever the clock), covers the voids an
// older build still writes during a rollout, and the live voids already written are set to it: the sweep takes
// each of them up, and the void jobs such a build queued still run (the lifecycle keeps their worker, which makes
// the void due now). The final voids keep null: nothing is written to them.
//
// Those columns change every poll interval of a live void, and are no part of its order's refund context (which
// reads a void's code and status: src/refunds/context.ts). The update trigger that moved the order's context
// version on any update of void_orders (migrations 0016, 0022) becomes a row-level one limited to the columns the
// context reads, as refund_orders' since migration 0020, moving the order once per transaction (0022's rule).
import { sql, type Kysely } from 'kysely';
import { BY_KEY } from './0019_triggers_read_by_key.js';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
    drop trigger void_orders_ctx_update on void_orders;
    create function void_orders_ctx_bump_row() returns trigger language plpgsql ${BY_KEY} as $fn$
    begin
      update orders set ctx_version = ctx_version + 1
        where (order_no = new.order_no or order_no = old.order_no) and xmin <> pg_current_xact_id()::xid;
      return null;
    end
    $fn$;
    create trigger void_orders_ctx_update after update of void_code, order_no, status on void_orders for each row
      when ((old.void_code, old.order_no, old.status) is distinct from (new.void_code, new.order_no, new.status))
      execute function void_orders_ctx_bump_row();`,
    )
    .execute(db);
  // Added without a default (no value to write into the final voids), then the live ones set, then the default.
  await sql`
    alter table void_orders
      add column if not exists next_step_at timestamptz,
      add column if not exists step_failures int not null default 0,
      add column if not exists step_error text`.execute(db);
  await sql`update void_orders set next_step_at = '-infinity' where status in (0, 1, 3) and next_step_at is null`.execute(db);
  await sql`alter table void_orders alter column next_step_at set default '-infinity'`.execute(db);
  await sql`create index if not exists void_orders_step_due on void_orders (next_step_at, void_code) where status in (0, 1, 3)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists void_orders_step_due`.execute(db);
  await sql`alter table void_orders drop column if exists next_step_at, drop column if exists step_failures, drop column if exists step_error`.execute(db);
  await sql
    .raw(
      `
    drop trigger void_orders_ctx_update on void_orders;
    drop function void_orders_ctx_bump_row();
    create trigger void_orders_ctx_update after update on void_orders
      referencing new table as changed_rows for each statement execute function void_orders_ctx_bump();`,
    )
    .execute(db);
}
