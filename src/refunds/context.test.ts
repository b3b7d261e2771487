// The one-statement refund context (context.ts): what it loads, and how it scopes the order to the caller.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeTestApp, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { refundWorld } from '../test-support/refund-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { sql, type CompiledQuery } from 'kysely';
import { CONTEXT_BY_ORDER_NO_SQL, CONTEXTS_BY_ORDER_NO_CALL, loadContextForCaller, readContexts } from './context.js';

describe('loadContextForCaller', () => {
  let t: TestApp;
  let dep001: string;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    dep001 = await orderNoOfPnr(t.store.db, 'DEP001');
  });
  after(() => t.close());

  test('by orderNo and by PNR + carrier (any case) it loads the same context', async () => {
    const byNo = await loadContextForCaller(t.store.db, TEST_CLIENTS.alpha.id, { orderNo: dep001 });
    const byPnr = await loadContextForCaller(t.store.db, TEST_CLIENTS.alpha.id, { airlinePNR: 'dep001', carrier: 'xs' });
    assert.equal(byNo.kind, 'order');
    assert.deepEqual(byPnr, byNo);
    if (byNo.kind !== 'order') return;
    const { ctx } = byNo;
    assert.equal(ctx.order.order_no, dep001);
    assert.ok(ctx.order.created_at instanceof Date, 'order columns keep their types');
    assert.deepEqual(ctx.passengers.map((p) => p.paxIndex), [...ctx.passengers.keys()].map((i) => i + 1));
    assert.deepEqual(ctx.segments.map((s) => s.index), [...ctx.segments].map((s) => s.index).sort((a, b) => a - b));
    assert.ok(ctx.segments.every((s) => s.depAt instanceof Date && !Number.isNaN(s.depAt.getTime())));
    assert.ok(ctx.tickets.length > 0 && ctx.tickets.every((tk) => tk.coupons.length > 0 && typeof tk.fareMinor === 'number'));
    // the world's post-ticketing service of DEP001 (spec 2.5)
    assert.ok(ctx.ancillaries.some((a) => a.kind === 'post' && a.postOrderNo === 'PT-DEP1' && a.priceMinor === 4000));
    assert.equal(ctx.liveRefunds.size, 0);
  });

  // spec 7.1: 824 for the caller's own ancillary order number, 801 (none) for anyone else's
  test('an ancillary order number is "ancillary" for its owner and "none" for another client', async () => {
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.alpha.id, { orderNo: 'PT-DEP1' }), { kind: 'ancillary' });
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.beta.id, { orderNo: 'PT-DEP1' }), { kind: 'none' });
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.beta.id, { orderNo: dep001 }), { kind: 'none' });
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.beta.id, { airlinePNR: 'DEP001', carrier: 'XS' }), { kind: 'none' });
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.alpha.id, { orderNo: '1234567890123456' }), { kind: 'none' });
    assert.deepEqual(await loadContextForCaller(t.store.db, TEST_CLIENTS.alpha.id, { airlinePNR: 'PT-DEP1', carrier: 'XS' }), { kind: 'none' });
  });

  // decision 0031: concurrent lookups share one statement; each caller gets its own answer, scoped to its client
  test('concurrent lookups are read together and each answers its own caller', async () => {
    const lookups = [
      { clientId: TEST_CLIENTS.alpha.id, orderNo: dep001 },
      { clientId: TEST_CLIENTS.beta.id, orderNo: dep001 },
      { clientId: TEST_CLIENTS.alpha.id, orderNo: 'PT-DEP1' },
      { clientId: TEST_CLIENTS.alpha.id, airlinePNR: 'dep001', carrier: 'xs' },
      { clientId: TEST_CLIENTS.beta.id, airlinePNR: 'DEP001', carrier: 'XS' },
      { clientId: TEST_CLIENTS.alpha.id, orderNo: '1234567890123456' },
    ];
    const alone = [];
    for (const l of lookups) alone.push(await loadContextForCaller(t.store.db, l.clientId, l));
    assert.deepEqual(alone.map((a) => a.kind), ['order', 'none', 'ancillary', 'order', 'none', 'none']);
    // the same lookups as one batch (two statements: by orderNo, by PNR) and as concurrent callers
    assert.deepEqual(await readContexts(t.store.db, lookups), alone);
    const statements: string[] = [];
    const executeQuery = t.store.db.executeQuery.bind(t.store.db);
    t.store.db.executeQuery = ((q: CompiledQuery) => {
      statements.push(q.sql);
      return executeQuery(q);
    }) as typeof t.store.db.executeQuery;
    try {
      const together = await Promise.all(lookups.map((l) => loadContextForCaller(t.store.db, l.clientId, l)));
      assert.deepEqual(together, alone);
    } finally {
      t.store.db.executeQuery = executeQuery;
    }
    assert.equal(statements.length, 2, 'one statement by orderNo, one by PNR for all six callers');
    // decision 0036: the batch through the function that keeps the array form on its generic plan
    assert.ok(statements.includes(CONTEXTS_BY_ORDER_NO_CALL));
    // a lone lookup runs the one-row form directly, whose generic plan PostgreSQL keeps by itself
    statements.length = 0;
    t.store.db.executeQuery = ((q: CompiledQuery) => {
      statements.push(q.sql);
      return executeQuery(q);
    }) as typeof t.store.db.executeQuery;
    try {
      assert.deepEqual(await loadContextForCaller(t.store.db, lookups[0]!.clientId, lookups[0]!), alone[0]);
    } finally {
      t.store.db.executeQuery = executeQuery;
    }
    assert.deepEqual(statements, [CONTEXT_BY_ORDER_NO_SQL]);
  });

  // decision 0036: the batch forms are functions that hold their statement to its generic plan (PostgreSQL would
  // re-plan the array form at every execution) and read by key; their answers are the query's (the test above)
  test('the batch lookups run in functions set to a generic plan and to read by key', async () => {
    const { rows } = await sql<{ proname: string; proconfig: string[] }>`
      select proname, proconfig from pg_proc
      where oid in (to_regprocedure('refund_contexts_by_order_no(text[], text[])'), to_regprocedure('refund_contexts_by_pnr(text[], text[], text[])'))
      order by proname`.execute(t.store.db);
    assert.deepEqual(rows.map((r) => r.proname), ['refund_contexts_by_order_no', 'refund_contexts_by_pnr']);
    for (const r of rows) {
      for (const setting of ['plan_cache_mode=force_generic_plan', 'enable_seqscan=off', 'enable_hashjoin=off', 'enable_mergejoin=off']) {
        assert.ok(r.proconfig.includes(setting), `${r.proname}: ${setting} in ${r.proconfig.join(', ')}`);
      }
    }
  });

  test('inside a transaction the lookup runs on the transaction', async () => {
    const found = await t.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('orders').set({ contact_phone: '+10000000000' }).where('order_no', '=', dep001).execute();
      return loadContextForCaller(trx, TEST_CLIENTS.alpha.id, { orderNo: dep001 });
    });
    assert.equal(found.kind === 'order' && found.ctx.order.contact_phone, '+10000000000');
  });
});
