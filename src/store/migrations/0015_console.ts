// The operator console (docs/console.md, decision 0029): operator accounts (separate from API clients), their
// server-side sessions, the audit log of every console action, the cases refund.do sends to the console (825)
// and the indexes of the refund queue's filters and sorts.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table operators (
      operator_id text primary key,
      login text not null unique check (login = lower(login)),
      password_hash text not null,
      role text not null check (role in ('viewer', 'agent', 'admin')),
      disabled boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      last_login_at timestamptz
    );

    -- The cookie holds a random token; the table holds only its SHA-256 (a leaked table opens no session).
    create table console_sessions (
      token_hash text primary key,
      operator_id text not null references operators (operator_id) on delete cascade,
      csrf_token text not null,
      created_at timestamptz not null,
      expires_at timestamptz not null
    );
    create index console_sessions_operator on console_sessions (operator_id);
    create index console_sessions_expiry on console_sessions (expires_at);

    create table audit_log (
      id bigint generated always as identity primary key,
      operator_id text not null,
      operator_login text not null,
      at timestamptz not null,
      action text not null,
      target text not null,
      before jsonb,
      after jsonb
    );
    create index audit_log_target on audit_log (target, id);
    create index audit_log_at on audit_log (at desc);

    -- refund.do answers 825 (voluntary refund after departure) and records the request here for an agent.
    create table console_cases (
      case_id text primary key,
      client_id text not null references clients (client_id),
      order_no text not null references orders (order_no),
      request jsonb not null,
      request_hash text not null,
      status text not null default 'pending' check (status in ('pending', 'approved', 'rejected')),
      refund_code text,
      cancel_reason text,
      decided_by text,
      decided_at timestamptz,
      created_at timestamptz not null
    );
    -- The same request sent again while its case waits is one case.
    create unique index console_cases_one_pending on console_cases (client_id, order_no, request_hash) where status = 'pending';
    create index console_cases_status on console_cases (status, created_at);

    -- The refund queue: newest first, by status, and the open refunds by age.
    create index refund_orders_created on refund_orders (created_at desc);
    create index refund_orders_status_created on refund_orders (status, created_at desc);
    create index void_orders_created on void_orders (created_at desc);
    create index webhook_events_subject_all on webhook_events (subject, id);
    -- The charts: status changes by day.
    create index refund_status_history_at on refund_status_history (at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index refund_status_history_at;
    drop index webhook_events_subject_all;
    drop index void_orders_created;
    drop index refund_orders_status_created;
    drop index refund_orders_created;
    drop table console_cases;
    drop table audit_log;
    drop table console_sessions;
    drop table operators;
  `.execute(db);
}
