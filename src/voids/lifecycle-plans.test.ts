// A void's status change (VoidLifecycle.transition) finds the void by its voidCode however the planner's
// statistics describe the status it moves from (decision 0015 amended, src/store/unindexed.ts). void_orders has
// two indexes led by or holding status (the console's lists); statistics taken while every void was settled put
// a burst at 0 at nearly no row, and a status guard served by one of them walked the whole burst to move one.
// The refund lifecycle's statements have the same check (src/refunds/lifecycle-plans.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { inRolledBackTransaction, rowsRead } from '../test-support/rows-read.js';
import { plantOrders } from '../test-support/planted-refunds.js';
import { TEST_CLIENTS } from '../test-support/world.js';

/** Voids in the store, all settled when it is analyzed; then QUEUED of them go back to 0 (the burst). */
const SETTLED = 3000;
const QUEUED = 2000;

describe('void lifecycle: a status change reads its void, not its status', () => {
  let t: TestApp;
  const client = TEST_CLIENTS.alpha.id;
  before(async () => {
    t = await makeTestApp();
    await plantOrders(t.store.db, 'VP', SETTLED);
    const plant = [
      sql`insert into void_offers (offer_id, client_id, order_no, quote, expires_at, created_at, used_at)
            select 'vfo_vp' || g, ${client}, 'VP' || g, '{}', now(), now(), now() from generate_series(1, ${SETTLED}::int) g`,
      // settled: status 2 (voided, credited to the deposit)
      sql`insert into void_orders (void_code, client_id, order_no, offer_id, status, path, currency, void_amount_minor, ticket_nos, details, created_at, updated_at)
            select 'VPV' || g, ${client}, 'VP' || g, 'vfo_vp' || g, 2, 'deposit', 'EUR', 50000, array['VPT' || g], '{}', now(), now()
            from generate_series(1, ${SETTLED}::int) g`,
      sql`analyze void_orders`,
    ];
    for (const statement of plant) await statement.execute(t.store.db);
  });
  after(() => t.close());

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    test(`${mode}: moving one void behind ${QUEUED} at 0 reads that void`, async () => {
      const { read, moved, stale } = await inRolledBackTransaction(t.store.db, async (trx: Transaction<Database>) => {
        await sql`discard plans`.execute(trx);
        await sql`set local plan_cache_mode = ${sql.raw(mode)}`.execute(trx);
        await sql`update void_orders set status = 0 where void_code = any(array(select 'VPV' || g from generate_series(1, ${QUEUED}::int) g))`.execute(trx);
        const counted = async () => (await rowsRead(trx, ['void_orders'])).get('void_orders') ?? 0;
        const before = await counted();
        const moved = await t.workers.voids.transition(trx, 'VPV7', 0, 4, 'refused by the airline');
        const read = (await counted()) - before;
        // the guard still guards: a void no longer at 0 does not move
        const stale = await t.workers.voids.transition(trx, 'VPV7', 0, 1, 'submitted to the airline');
        return { read, moved, stale };
      });
      assert.equal(moved, true);
      assert.equal(stale, false);
      assert.ok(read <= 4, `rows of void_orders read: ${read} (walking the voids at 0 reads ${QUEUED})`);
    });
  }
});
