// A refund's status is not part of its order's refund context (decision 0030, amended 2026-11-26; issue 7).
//
// The context (src/refunds/context.ts) holds, of each refund of the order, its refundCode, its reason and its
// live tickets: what the checks read (803, one refund per booking, 818 for a void). Whether a refund is live
// is refund_tickets.live, written whenever a refund is rejected or withdrawn, and that table's triggers move
// the version. A refund's status as such (0 → 1 → 3 → 2 …) decides nothing, yet every lifecycle move updated
// its order's row for the version: in the backlog's 0 → 1 statement, 25 orders rows per batch, ~1.0 ms of its
// ~3.4 ms on PostgreSQL (pg_stat_statements, BENCHMARKS.md).
//
// Now an UPDATE of refund_orders moves the version only when it changes a column the context reads about a
// refund (refund_code, order_no, reason): a row-level trigger limited to those columns, with a WHEN clause
// (checked in C, no PL/pgSQL entered otherwise). The insert and delete triggers stay as migration 0016 made them.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
    drop trigger refund_orders_ctx_update on refund_orders;
    create function refund_orders_ctx_bump_row() returns trigger language plpgsql as $fn$
    begin
      update orders set ctx_version = ctx_version + 1 where order_no = new.order_no or order_no = old.order_no;
      return null;
    end
    $fn$;
    create trigger refund_orders_ctx_update after update of refund_code, order_no, reason on refund_orders for each row
      when ((old.refund_code, old.order_no, old.reason) is distinct from (new.refund_code, new.order_no, new.reason))
      execute function refund_orders_ctx_bump_row();`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
    drop trigger refund_orders_ctx_update on refund_orders;
    drop function refund_orders_ctx_bump_row();
    create trigger refund_orders_ctx_update after update on refund_orders
      referencing new table as changed_rows for each statement execute function refund_orders_ctx_bump();`,
    )
    .execute(db);
}
