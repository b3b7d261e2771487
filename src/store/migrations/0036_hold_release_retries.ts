// An expired order's hold is released at the airline until the airline answers (decisions 0023, 0046): the release
// job once, then the expiry sweep, backing off, while the airline does not answer. The job alone was retried by the
// job queue five times in a few minutes and then given up for good, its seats held at the airline (a review).
// `release_next_try_at` is when the sweep asks next (null: released, or nothing to release); orders expired before
// this migration are asked once more (a release is idempotent), since one whose job gave up cannot be told apart.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table booking_orders add column if not exists release_next_try_at timestamptz;
    alter table booking_orders add column if not exists release_tries integer not null default 0;
    update booking_orders set release_next_try_at = now() where pay_state = 'expired' and release_next_try_at is null;
    create index if not exists booking_orders_release_due on booking_orders (release_next_try_at) where release_next_try_at is not null;
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists booking_orders_release_due;
    alter table booking_orders drop column if exists release_tries;
    alter table booking_orders drop column if exists release_next_try_at;
  `.execute(db);
}
