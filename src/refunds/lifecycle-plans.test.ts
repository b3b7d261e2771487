// The 0 → 1 statement (RefundLifecycle.recordAccepted, once per batch the airline accepted) finds each refund by
// its refundCode however the planner's statistics describe status 0. Refunds pile up at 0 in a burst (an airline
// slow or down) that statistics taken before it put at nearly no row; planned on them, the statement walked every
// refund at 0 through the status index for each batch: 30 ms a batch of 25 behind 5,000 queued refunds on PGlite.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { inRolledBackTransaction, rowsRead } from '../test-support/rows-read.js';
import { plantRefunds } from '../test-support/planted-refunds.js';

/** Refunds in the store, all settled when it is analyzed; then QUEUED of them go back to 0 (the burst). */
const SETTLED = 3000;
const QUEUED = 2000;
const BATCH = 25;

/** The first QUEUED refunds back at 0, unanalyzed: the burst the statistics never saw. */
async function queueBurst(trx: Transaction<Database>): Promise<void> {
  await sql`update refund_orders set status = 0 where refund_code = any(array(select 'LPR' || g from generate_series(1, ${QUEUED}::int) g))`.execute(trx);
}

/** Rows of refund_orders read in this transaction so far. */
async function refundOrdersRead(trx: Transaction<Database>): Promise<number> {
  return (await rowsRead(trx, ['refund_orders'])).get('refund_orders') ?? 0;
}

describe('refund lifecycle: the 0 → 1 statement reads by key', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
    // settled: status 5 (refunded), the state nearly every refund of a store is in
    await plantRefunds(t.store.db, 'LP', SETTLED, 5);
    await sql`analyze refund_orders`.execute(t.store.db);
  });
  after(() => t.close());

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    test(`${mode}: a batch behind ${QUEUED} queued refunds reads its ${BATCH} refunds, not the queue`, async () => {
      const { read, moved } = await inRolledBackTransaction(t.store.db, async (trx) => {
        await sql`discard plans`.execute(trx);
        await sql`set local plan_cache_mode = ${sql.raw(mode)}`.execute(trx);
        await queueBurst(trx);
        const accepted = Array.from({ length: BATCH }, (_, i) => ({ refundCode: `LPR${QUEUED - i}`, airlineRefundId: `XS-LP${i}`, cause: 'submitted to the airline' }));
        // one refund of the batch is no longer at 0 (moved meanwhile): the guard leaves it alone
        await sql`update refund_orders set status = 4 where refund_code = ${accepted[0]!.refundCode}`.execute(trx);
        const before = await refundOrdersRead(trx);
        const moved = await t.workers.lifecycle.recordAccepted(trx, accepted);
        return { read: (await refundOrdersRead(trx)) - before, moved };
      });
      assert.deepEqual(moved.sort(), Array.from({ length: BATCH - 1 }, (_, i) => `LPR${QUEUED - 1 - i}`).sort(), 'every accepted refund still at 0 moved, no other');
      // a lookup per refund of the batch, and the history rows' foreign-key checks: a few per refund
      assert.ok(read <= 4 * BATCH, `rows of refund_orders read: ${read} (walking the refunds at 0 reads ${QUEUED})`);
    });
  }

  test(`a single transition behind ${QUEUED} queued refunds reads its refund, not the queue`, async () => {
    const { read, movedOne } = await inRolledBackTransaction(t.store.db, async (trx) => {
      await queueBurst(trx);
      const before = await refundOrdersRead(trx);
      const movedOne = await t.workers.lifecycle.transition(trx, 'LPR7', 0, 4, 'refused by the airline');
      return { read: (await refundOrdersRead(trx)) - before, movedOne };
    });
    assert.equal(movedOne, true);
    assert.ok(read <= 4, `rows of refund_orders read: ${read} (walking the refunds at 0 reads ${QUEUED})`);
  });
});
