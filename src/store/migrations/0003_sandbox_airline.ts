// The sandbox airline's own books: the refunds it received, keyed by postbook's refundCode. A real airline
// keeps these in its own system; ours lives in the service's database so that it survives a crash (kill -9)
// exactly as the service's own records do, and a test can prove each refundCode reached the airline once.
// All times are written by the sandbox from the service clock (never now()), so a moved test clock counts.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table sandbox_refunds (
      refund_code text primary key,
      carrier text not null,
      pnr text not null,
      ticket_nos jsonb not null,
      reason text not null check (reason in ('0', '1', '4')),
      currency text not null,
      paid_minor bigint not null check (paid_minor >= 0),
      quoted_refund_minor bigint check (quoted_refund_minor >= 0),
      is_claim boolean not null,
      airline_refund_id text not null unique,
      -- how many times submitRefund was called with this refundCode (1 = once; more = retries)
      submit_calls int not null default 1 check (submit_calls >= 1),
      submitted_at timestamptz not null,
      last_submitted_at timestamptz not null,
      -- the airline's decision, taken when the refund arrived (a later world edit does not change it)
      decision text not null check (decision in ('accept', 'reject', 'withdraw')),
      cancel_reason text,
      processing_seconds int not null check (processing_seconds >= 0),
      -- what the airline pays when it accepts, minor units of currency
      refund_minor bigint check (refund_minor >= 0),
      voucher boolean not null default false,
      check ((decision = 'accept') = (refund_minor is not null)),
      check ((decision = 'accept') = (cancel_reason is null))
    );
    create index sandbox_refunds_booking on sandbox_refunds (carrier, pnr);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table sandbox_refunds;`.execute(db);
}
