// refund.do's refund codes (decision 0061): a code that grows with time, and a drawn code another refund holds
// drawn again on every path of refund.do (by list, by a kept offer, by an offer read), the other refund untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { PLANTED } from '../test-support/planted.js';
import { createAirlines } from '../service.js';
import { worldRates } from './pricing.js';
import { quoteRefund } from './quote.js';
import { submitRefund } from './submit.js';
import type { RefundDeps, RefundScheduler } from './deps.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

const item = (t: TestApp, lastName: string, firstName: string, flights: string[]) => ({
  lastName,
  firstName,
  refundReason: '1',
  segments: flights.map((id) => refundSegment(t.world, id)),
});

test('spec 4.2: refund codes are 24 digits that grow with time; refund.do whose drawn code another refund holds draws another', async () => {
  const t = await makeTestApp({ world: refundWorld() });
  try {
    const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
    const two = await orderNoOf('TWO001');
    const fam = await orderNoOf('FAM001');
    const dep = await orderNoOf('DEP001');
    const first = await call(t.app, '/refund.do', { orderNo: two, refundRequestList: [item(t, 'TWOTICKETS', 'TIM', ['out', 'ret'])] });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const taken = String(first.body.refundCode);
    assert.match(taken, /^\d{24}$/);

    // refund.do as the route runs it, with a code generator whose first draw of each submission is the code taken
    let draws: string[] = [];
    const deps: RefundDeps = {
      db: t.store.db,
      airlines: createAirlines(t.world, t.store, t.clock),
      clock: t.clock,
      rates: worldRates(t.world),
      offerTtlMs: 15 * 60_000,
      // the submissions only tell the scheduler they wrote (nothing else of it is used by refund.do)
      scheduler: { submitted: () => undefined } as unknown as RefundScheduler,
      newRefundCode: () => draws.shift() ?? assert.fail('a third code drawn'),
    };
    const caller = { clientId: TEST_CLIENTS.alpha.id, settings: {} };

    // by refundRequestList
    draws = [taken, '000000000000000000000001'];
    const byList = await submitRefund(deps, caller, { orderNo: fam, refundRequestList: [item(t, 'PARENT', 'PAT', ['out']), item(t, 'PARENT', 'KIM', ['out'])] });
    assert.equal(byList.status, 0, byList.msg ?? '');
    assert.equal(byList.refundCode, '000000000000000000000001');

    // by a refundOfferId this process keeps (its statement finds the code taken; the offer read then draws again)
    const quoteA = await quoteRefund(deps, caller, { orderNo: dep, refundRequestList: [item(t, lastA, firstA, ['out', 'ret'])] });
    assert.equal(quoteA.status, 0, quoteA.msg ?? '');
    draws = [taken, '000000000000000000000002'];
    const byKept = await submitRefund(deps, caller, { orderNo: dep, refundOfferId: quoteA.refundOfferId, refundRequestList: null });
    assert.equal(byKept.status, 0, byKept.msg ?? '');
    assert.equal(byKept.refundCode, '000000000000000000000002');

    // by a refundOfferId read from the store (the order named by its PNR: the reading path from the start)
    const quoteB = await quoteRefund(deps, caller, { orderNo: dep, refundRequestList: [item(t, lastB, firstB, ['out', 'ret'])] });
    assert.equal(quoteB.status, 0, quoteB.msg ?? '');
    draws = [taken, '000000000000000000000003'];
    const byRead = await submitRefund(deps, caller, { airlinePNR: 'DEP001', carrier: 'XS', refundOfferId: quoteB.refundOfferId, refundRequestList: null });
    assert.equal(byRead.status, 0, byRead.msg ?? '');
    assert.equal(byRead.refundCode, '000000000000000000000003');

    const refunds = await t.store.db.selectFrom('refund_orders').select(['refund_code', 'order_no', 'ticket_nos']).orderBy('refund_code').execute();
    assert.deepEqual(
      refunds.map((r) => [r.refund_code, r.order_no, r.ticket_nos]),
      [
        ['000000000000000000000001', fam, ['9992000000011', '9992000000012']],
        ['000000000000000000000002', dep, ['9992000000001']],
        ['000000000000000000000003', dep, ['9992000000002']],
        [taken, two, ['9992000000121', '9992000000122']],
      ],
    );
    const history = await t.store.db.selectFrom('refund_status_history').select('refund_code').where('refund_code', '=', taken).execute();
    assert.equal(history.length, 1, 'the refund holding the code keeps its one history row');
  } finally {
    await t.close();
  }
});
