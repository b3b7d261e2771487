// The 0 → 1 batch read (RefundLifecycle.loadMany, once per batch of submissions) reads each refund and its order
// by key even on a plan made while the store was analyzed small (migration 0023). With `orders` analyzed at a
// handful of rows and grown since, the planner priced an `orders_pkey` probe at thousands and the generic plan
// read `orders` whole for every batch (the PostgreSQL bench's 10⁵ backlog at ~300 refunds/s instead of ~3,000).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { makeTestApp, type TestApp } from '../test-support/app.js';
import { inRolledBackTransaction, rowsRead } from '../test-support/rows-read.js';
import { plantRefunds } from '../test-support/planted-refunds.js';

const GROWN = 3000;
const BATCH = 25;

describe('refund lifecycle: the 0 → 1 batch read', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp();
    // analyzed while (nearly) empty: the statistics a fresh or emptied store has
    await sql`analyze orders`.execute(t.store.db);
    await sql`analyze refund_orders`.execute(t.store.db);
  });
  after(() => t.close());

  test(`a generic plan made on a store analyzed small reads each refund and its order by key once ${GROWN} have come`, async () => {
    const { read, found } = await inRolledBackTransaction(t.store.db, async (trx) => {
      await sql`discard plans`.execute(trx);
      await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
      await t.workers.lifecycle.loadMany(['LBR1'], trx);
      await plantRefunds(trx, 'LB', GROWN, 0);
      const counted = async () => {
        const n = await rowsRead(trx, ['orders', 'refund_orders']);
        return (n.get('orders') ?? 0) + (n.get('refund_orders') ?? 0);
      };
      const before = await counted();
      const rows = await t.workers.lifecycle.loadMany(Array.from({ length: BATCH }, (_, i) => `LBR${i * 100 + 1}`), trx);
      return { read: (await counted()) - before, found: rows };
    });
    assert.equal(found.length, BATCH);
    const first = found.find((r) => r.refund_code === 'LBR1')!;
    assert.deepEqual([first.carrier, first.airline_pnr, first.source, first.ticket_nos, Number(first.paid_minor)], ['XS', 'LBP1', 'booking', ['LBT1'], 50000]);
    // a refund and its order per element
    assert.ok(read <= 4 * BATCH, `rows of orders and refund_orders read: ${read} (a sequential scan of orders reads ${GROWN} per batch)`);
  });
});
