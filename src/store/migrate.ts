// One set of migrations for PGlite and PostgreSQL, run at start and by `postbook migrate`.
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely';
import * as m0001 from './migrations/0001_foundation.js';
import * as m0002 from './migrations/0002_refunds.js';
import * as m0003 from './migrations/0003_sandbox_airline.js';
import * as m0004 from './migrations/0004_booking.js';
import * as m0005 from './migrations/0005_hot_path_indexes.js';
import * as m0006 from './migrations/0006_seat_inventory.js';
import * as m0007 from './migrations/0007_offer_documents_as_json.js';
import * as m0008 from './migrations/0008_offers_insert_only.js';
import * as m0009 from './migrations/0009_webhooks.js';
import * as m0010 from './migrations/0010_order_expiry.js';
import * as m0011 from './migrations/0011_voids.js';
import * as m0013 from './migrations/0013_sandbox_clock.js';
import * as m0014 from './migrations/0014_idempotency_expiry.js';
import * as m0015 from './migrations/0015_console.js';
import * as m0016 from './migrations/0016_order_context_version.js';
import * as m0017 from './migrations/0017_console_login_failures.js';
import * as m0018 from './migrations/0018_console_part3.js';
import * as m0019 from './migrations/0019_triggers_read_by_key.js';
import * as m0020 from './migrations/0020_refund_status_outside_context.js';
import * as m0021 from './migrations/0021_sandbox_books_by_key.js';
import * as m0022 from './migrations/0022_context_version_once_per_transaction.js';
import * as m0023 from './migrations/0023_refund_batch_read_by_key.js';
import * as m0024 from './migrations/0024_refund_open_index_dropped.js';
import * as m0025 from './migrations/0025_counts_by_carrier.js';
import * as m0026 from './migrations/0026_row_triggers_read_by_key.js';
import * as m0027 from './migrations/0027_refund_poll_schedule.js';
import * as m0028 from './migrations/0028_refund_submission_schedule.js';
import * as m0029 from './migrations/0029_refund_contexts_on_generic_plans.js';
import * as m0030 from './migrations/0030_void_step_schedule.js';
import * as m0031 from './migrations/0031_booking_paying_since.js';
import * as m0032 from './migrations/0032_booking_attempts.js';
import * as m0033 from './migrations/0033_webhook_events_undelivered.js';
import * as m0034 from './migrations/0034_webhook_events_settled.js';
import * as m0035 from './migrations/0035_sandbox_ticket_numbers.js';
import * as m0036 from './migrations/0036_hold_release_retries.js';
import * as m0037 from './migrations/0037_booking_session_retention.js';
import * as m0038 from './migrations/0038_console_case_by_refund.js';
import * as m0039 from './migrations/0039_orders_paid_by_client.js';
import * as m0040 from './migrations/0040_idempotency_resumed_from.js';
import * as m0041 from './migrations/0041_claimed_orders_by_pnr.js';
import * as m0042 from './migrations/0042_offers_checked_by_their_statements.js';
import * as m0043 from './migrations/0043_refund_quote_stored_once.js';
import * as m0044 from './migrations/0044_offer_documents_lz4.js';
import * as m0045 from './migrations/0045_void_quote_stored_once.js';
import * as m0046 from './migrations/0046_sandbox_refund_ids_in_order.js';
import * as m0047 from './migrations/0047_refund_rows_checked_by_their_statements.js';
import * as m0048 from './migrations/0048_orders_read_by_key.js';

/** Every migration by name, in order (exported for the tests of an upgrade from an older schema). */
export const MIGRATIONS: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_refunds': m0002,
  '0003_sandbox_airline': m0003,
  '0004_booking': m0004,
  '0005_hot_path_indexes': m0005,
  '0006_seat_inventory': m0006,
  '0007_offer_documents_as_json': m0007,
  '0008_offers_insert_only': m0008,
  '0009_webhooks': m0009,
  '0010_order_expiry': m0010,
  '0011_voids': m0011,
  '0013_sandbox_clock': m0013,
  '0014_idempotency_expiry': m0014,
  '0015_console': m0015,
  '0016_order_context_version': m0016,
  '0017_console_login_failures': m0017,
  '0018_console_part3': m0018,
  '0019_triggers_read_by_key': m0019,
  '0020_refund_status_outside_context': m0020,
  '0021_sandbox_books_by_key': m0021,
  '0022_context_version_once_per_transaction': m0022,
  '0023_refund_batch_read_by_key': m0023,
  '0024_refund_open_index_dropped': m0024,
  '0025_counts_by_carrier': m0025,
  '0026_row_triggers_read_by_key': m0026,
  '0027_refund_poll_schedule': m0027,
  '0028_refund_submission_schedule': m0028,
  '0029_refund_contexts_on_generic_plans': m0029,
  '0030_void_step_schedule': m0030,
  '0031_booking_paying_since': m0031,
  '0032_booking_attempts': m0032,
  '0033_webhook_events_undelivered': m0033,
  '0034_webhook_events_settled': m0034,
  '0035_sandbox_ticket_numbers': m0035,
  '0036_hold_release_retries': m0036,
  '0037_booking_session_retention': m0037,
  '0038_console_case_by_refund': m0038,
  '0039_orders_paid_by_client': m0039,
  '0040_idempotency_resumed_from': m0040,
  '0041_claimed_orders_by_pnr': m0041,
  '0042_offers_checked_by_their_statements': m0042,
  '0043_refund_quote_stored_once': m0043,
  '0044_offer_documents_lz4': m0044,
  '0045_void_quote_stored_once': m0045,
  '0046_sandbox_refund_ids_in_order': m0046,
  '0047_refund_rows_checked_by_their_statements': m0047,
  '0048_orders_read_by_key': m0048,
};

class StaticProvider implements MigrationProvider {
  getMigrations(): Promise<Record<string, Migration>> {
    return Promise.resolve(MIGRATIONS);
  }
}

export class MigrationError extends Error {}

export async function migrateToLatest(db: Kysely<unknown>): Promise<string[]> {
  // Kysely looks for its bookkeeping tables by name across all schemas unless told which one: pin it to
  // the connection's own schema so another schema's tables (another app, another test) are not mistaken.
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const migrator = new Migrator({ db, provider: new StaticProvider(), migrationTableSchema: rows[0]?.schema ?? 'public' });
  for (let attempt = 1; ; attempt++) {
    const result: MigrationResultSet = await migrator.migrateToLatest();
    if (!result.error) return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    // Before any migration runs, Kysely lists the tables of every schema to find its own, calling
    // pg_get_serial_sequence on each; a schema another process drops meanwhile fails that listing with
    // "schema … does not exist". Nothing was written: look again. A failing migration is never retried.
    if (failed === undefined && attempt < 4) {
      await new Promise((r) => setTimeout(r, 50 * attempt));
      continue;
    }
    throw new MigrationError(`migration ${failed ?? 'unknown'} failed: ${String((result.error as Error).message ?? result.error)}`);
  }
}

/**
 * The migrations this build knows but the store has not applied (`pending`), and those the store has applied
 * but this build does not know (`unknown`: a newer build migrated it). Both empty: the schema is current.
 */
export async function migrationState<DB>(db: Kysely<DB>): Promise<{ pending: string[]; unknown: string[] }> {
  let applied: string[];
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = rows.map((r) => r.name);
  } catch (err) {
    if (/kysely_migration/.test((err as Error).message)) applied = []; // never migrated
    else throw err;
  }
  const known = Object.keys(MIGRATIONS);
  const done = new Set(applied);
  return { pending: known.filter((n) => !done.has(n)), unknown: applied.filter((n) => !(n in MIGRATIONS)) };
}

/** Stable fingerprint of the migration set (names), used to key cached test templates. */
export function migrationsFingerprint(): string {
  return Object.keys(MIGRATIONS).join(',');
}
