// Failed console logins in the store (docs/console.md "Security", decision 0029): every API process on one
// database counts the same failures, so a login or an address cannot get five tries per process. The key is a
// SHA-256 digest of `login:<name>` or `ip:<address>` (a password typed into the login field is not kept).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table console_login_failures (
      id bigint generated always as identity primary key,
      key_hash text not null,
      at timestamptz not null
    );
    create index console_login_failures_key on console_login_failures (key_hash, at desc);
    create index console_login_failures_at on console_login_failures (at);
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table console_login_failures`.execute(db);
}
