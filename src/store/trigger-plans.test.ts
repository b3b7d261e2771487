// The statement-level triggers (order context versions, decision 0030; the webhook outbox, decisions 0022 and 0025;
// the console's queue counts) read the tables they look into by key, whatever plan they got on their first run
// (migration 0019). A trigger's statements are planned once per connection, when it first fires; those plans
// must stay right as the tables grow, so every trigger is fired on small tables first, the tables are then grown
// (no ANALYZE, as on a store whose statistics lag), and the same triggers fired again must not scan a growing
// table, neither by a sequential scan nor by a walk of a whole index: PostgreSQL's own per-transaction counters
// (pg_stat_xact_user_tables: rows read by scans and fetched through indexes) tell.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Transaction } from 'kysely';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import type { Database } from './schema.js';
import { BY_KEY } from './migrations/0019_triggers_read_by_key.js';
import { inRolledBackTransaction, rowsRead } from '../test-support/rows-read.js';

const GROWING = ['orders', 'order_passengers', 'tickets', 'ticket_coupons', 'order_segments', 'order_ancillaries', 'refund_offers', 'refund_orders', 'refund_tickets', 'refund_status_history', 'void_offers', 'void_orders', 'void_status_history', 'webhook_events'];
const GROWN = 3000;

describe('statement-level triggers read growing tables by key', () => {
  let t: TestApp;
  const client = TEST_CLIENTS.alpha.id;
  before(async () => {
    t = await makeTestApp();
  });
  after(() => t.close());

  /**
   * Orders `${p}1` … `${p}n` with everything the triggers watch, one statement per table as the service writes
   * batches: passengers, segments, tickets and coupons (then a coupon update), ancillaries, offers, refund
   * orders with their tickets and history, a 0 → 1 move with its history row, a void with its history row.
   */
  async function fire(trx: Transaction<Database>, p: string, n: number): Promise<void> {
    const g = sql`generate_series(1, ${n}::int) g`;
    const statements = [
      sql`insert into orders (order_no, client_id, source, status, carrier, airline_pnr, payment_method, currency, total_minor)
            select ${p} || g, ${client}, 'booking', '2', 'XS', ${p} || 'P' || g, 'deposit', 'EUR', 50000 from ${g}`,
      sql`insert into order_passengers (order_no, pax_index, passenger_type, last_name, first_name) select ${p} || g, 1, 'ADT', 'PLANTED', 'PAX' from ${g}`,
      sql`insert into order_segments (order_no, segment_index, direction, carrier, flight_number, dep_airport, arr_airport, dep_local, arr_local, dep_at, arr_at, dep_time_zone)
            select ${p} || g, 1, 'out', 'XS', 'XS101', 'HND', 'SGN', '2027-01-01 10:00', '2027-01-01 15:00', now(), now(), 'Asia/Tokyo' from ${g}`,
      sql`insert into tickets (ticket_no, order_no, pax_index, currency, fare_minor, tax_minor) select ${p} || 'T' || g, ${p} || g, 1, 'EUR', 40000, 5000 from ${g}`,
      sql`insert into ticket_coupons (ticket_no, segment_index, status) select ${p} || 'T' || g, 1, 'OPEN_FOR_USE' from ${g}`,
      sql`update ticket_coupons set status = 'USED' where ticket_no = any(${keys(p, 'T', n)})`,
      sql`insert into order_ancillaries (order_no, pax_index, segment_index, kind, category, post_order_no, currency, price_minor)
            select ${p} || g, 1, null, 'inflow', 'StandardCheckInBaggage', null, 'EUR', 3000 from ${g}`,
      sql`insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
            select ${p} || 'O' || g, ${client}, ${p} || g, '1', array[${p} || 'T' || g], '[]', '{}', 'used', now(), now() from ${g}`,
      sql`insert into refund_orders (refund_code, client_id, order_no, offer_id, reason, status, path, quote_type, refund_method, currency,
                                     estimated_refund_minor, service_fee_currency, service_fee_minor, details, created_at, updated_at)
            select ${p} || 'R' || g, ${client}, ${p} || g, ${p} || 'O' || g, '1', 0, 'deposit', 'AccurateQuote', 'CashBackToOriginalPayment', 'EUR', 1, 'EUR', 0, '{}', now(), now() from ${g}`,
      sql`insert into refund_tickets (refund_code, ticket_no, pax_index) select ${p} || 'R' || g, ${p} || 'T' || g, 1 from ${g}`,
      sql`insert into refund_status_history (refund_code, from_status, to_status, at, cause) select ${p} || 'R' || g, null, 0, now(), 'planted' from ${g}`,
      sql`with moved as (update refund_orders set status = 1 where refund_code = any(${keys(p, 'R', n)}) returning refund_code)
          insert into refund_status_history (refund_code, from_status, to_status, at, cause) select refund_code, 0, 1, now(), 'planted' from moved`,
      sql`insert into void_offers (offer_id, client_id, order_no, quote, expires_at, created_at) select ${p} || 'VO' || g, ${client}, ${p} || g, '{}', now(), now() from ${g}`,
      sql`insert into void_orders (void_code, client_id, order_no, offer_id, status, path, currency, void_amount_minor, ticket_nos, details, created_at, updated_at)
            select ${p} || 'V' || g, ${client}, ${p} || g, ${p} || 'VO' || g, 0, 'deposit', 'EUR', 1, array[${p} || 'T' || g], '{}', now(), now() from ${g}`,
      sql`insert into void_status_history (void_code, from_status, to_status, at, cause) select ${p} || 'V' || g, null, 0, now(), 'planted' from ${g}`,
    ];
    for (const statement of statements) await statement.execute(trx);
  }

  /** The keys as one array parameter: the statements that fire the triggers read by key themselves. */
  const keys = (p: string, kind: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${kind}${i + 1}`);

  /**
   * Fires every trigger on small tables, grows the tables, fires them again for ten orders: the tables that gave up
   * more than a tenth of their rows the second time (a whole-table read, by a sequential scan or a full index scan).
   */
  async function scannedWhenGrown(firstRound: 'small' | 'bulk'): Promise<{ scanned: string[]; events: number; versions: number }> {
    // One transaction: one connection, whose trigger plans are made by the first round (rolled back at the end).
    return inRolledBackTransaction(t.store.db, async (trx) => {
      // The plans are made by the first firing: ten rows on small tables, or a bulk load's thousands (the first
      // writes of a connection that loads data, the embedded store's one connection after an import). The
      // connection may have fired the triggers already (the test world's seeding): its plans are dropped first.
      await sql`discard plans`.execute(trx);
      if (firstRound === 'small') await fire(trx, 'S', 10);
      await fire(trx, 'G', GROWN);
      const before = await rowsRead(trx, GROWING);
      // Under a savepoint: the orders it inserts carry the subtransaction's id, so the version bumps, which skip
      // orders this (top-level) transaction wrote itself (migration 0022), still move them and their plans run.
      await sql`savepoint last_round`.execute(trx);
      await fire(trx, 'L', 10);
      const after = await rowsRead(trx, GROWING);
      const scanned = GROWING.filter((table) => (after.get(table) ?? 0) - (before.get(table) ?? 0) > GROWN / 10);
      // The triggers did their work: every order's version moved, every status change has its event when a URL is set.
      const events = await sql<{ n: number }>`select count(*)::int as n from webhook_events where order_no like 'L%'`.execute(trx);
      const versions = await sql<{ n: number }>`select count(*)::int as n from orders where order_no like 'L%' and ctx_version > 0`.execute(trx);
      return { scanned, events: events.rows[0]!.n, versions: versions.rows[0]!.n };
    });
  }

  /**
   * Trigger functions that read no table of the service: `orders_ctx_bump` sets the new row's own version, and
   * `console_queue_counted` reads its transition tables and upserts a few dozen rows on their primary key.
   */
  const READ_NO_TABLE = ['console_queue_counted', 'orders_ctx_bump'];
  /** BY_KEY's `set name = value` clauses as pg_proc.proconfig lists them (`name=value`). */
  const BY_KEY_SETTINGS = [...BY_KEY.matchAll(/set (\w+) = (\w+)/g)].map(([, name, value]) => `${name}=${value}`);

  test('every trigger function that reads a table runs with the by-key settings (migrations 0019, 0026)', async () => {
    // Row-level functions that fire only on paths the service does not take (carrier_of_order: a refund or
    // void inserted without its airline) are not caught by the growing-table rounds below when the plan made
    // on the test world's orders table happens to be an index scan; the settings make it one on any table.
    const { rows } = await sql<{ fn: string; config: string[] | null }>`
      select distinct p.proname as fn, p.proconfig as config from pg_trigger t join pg_proc p on p.oid = t.tgfoid
      join pg_namespace n on n.oid = p.pronamespace
      where not t.tgisinternal and n.nspname = current_schema() order by 1`.execute(t.store.db);
    assert.ok(rows.some((r) => r.fn === 'carrier_of_order'), 'the trigger functions were listed');
    assert.ok(BY_KEY_SETTINGS.length >= 3, 'the settings were read from BY_KEY');
    const missing = rows
      .filter((r) => !READ_NO_TABLE.includes(r.fn))
      .filter((r) => !BY_KEY_SETTINGS.every((s) => (r.config ?? []).includes(s)))
      .map((r) => r.fn);
    assert.deepEqual(missing, []);
  });

  for (const firstRound of ['small', 'bulk'] as const) {
    test(`planned on a ${firstRound} first write, with no client taking webhooks: no trigger reads a grown table whole`, async () => {
      const { scanned, events, versions } = await scannedWhenGrown(firstRound);
      assert.deepEqual(scanned, [], `read whole: ${scanned.join(', ')}`);
      assert.equal(events, 0);
      assert.equal(versions, 10);
    });

    test(`planned on a ${firstRound} first write, with a client taking webhooks: the outbox triggers read refunds and voids by key too`, async () => {
      await sql`update clients set webhook_url = 'https://hooks.example.invalid/postbook' where client_id = ${client}`.execute(t.store.db);
      try {
        const { scanned, events, versions } = await scannedWhenGrown(firstRound);
        assert.deepEqual(scanned, [], `read whole: ${scanned.join(', ')}`);
        // three status changes per order: refund 0, refund 0 → 1, void 0
        assert.equal(events, 30);
        assert.equal(versions, 10);
      } finally {
        await sql`update clients set webhook_url = null where client_id = ${client}`.execute(t.store.db);
      }
    });
  }
});

