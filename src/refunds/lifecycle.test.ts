// DESIGN "Refund lifecycle": the workers carry refunds through their statuses by payment method, record
// every transition, and take the airline's actual amount. The sandbox airline decides per its world.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundWorld } from '../test-support/refund-world.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('refund lifecycle (workers running)', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld(), workers: true });
  });
  after(() => t.close());

  const seg = (flightId: string) => {
    const f = t.world.flights.get(flightId)!;
    return { depDate: f.current.dep.toFormat('yyyyMMdd'), flightNo: f.flightNumber, depAirport: f.from, arrAirport: f.to };
  };
  const orderNoOf = async (pnr: string) => (await t.store.db.selectFrom('orders').select('order_no').where('airline_pnr', '=', pnr).executeTakeFirstOrThrow()).order_no;
  const statusOf = async (orderNo: string, refundCode: string) => {
    const q = await call(t.app, '/queryRefundOrders.do', { orderNo, refundCode });
    return (q.body as any).refundOrders[0];
  };
  const historyOf = async (refundCode: string) =>
    (await t.store.db.selectFrom('refund_status_history').selectAll().where('refund_code', '=', refundCode).orderBy('id').execute()).map((h) => [h.from_status, h.to_status]);

  test('deposit: 0 → 1 → 3 → 2, each transition recorded; the airline saw the refundCode once', async () => {
    const orderNo = await orderNoOf('DEP001');
    const res = await call(t.app, '/refund.do', {
      orderNo,
      refundRequestList: [
        { lastName: lastA, firstName: firstA, refundReason: '1', segments: [seg('out'), seg('ret')] },
        { lastName: lastB, firstName: firstB, refundReason: '1', segments: [seg('out'), seg('ret')] },
      ],
    });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const code = String(res.body.refundCode);
    await waitFor('status 1', async () => (await statusOf(orderNo, code)).refundStatus === 1);
    t.clock.advance(40_000); // past processingSeconds (30 s), before twice that: the airline accepts, money under way
    await waitFor('status 3', async () => (await statusOf(orderNo, code)).refundStatus === 3);
    t.clock.advance(30_000);
    const done = await waitFor('status 2', async () => {
      const r = await statusOf(orderNo, code);
      return r.refundStatus === 2 ? r : null;
    });
    assert.deepEqual(await historyOf(code), [[null, 0], [0, 1], [1, 3], [3, 2]]);
    assert.equal(done.cancelReason, null);
    assert.equal(done.refundFareAmount.estimatedRefundAmount, 945.8); // 2 × (505.40 − 50) + A's in-flow bag 35; B's post-ticketing bag is its own object
    const airline = await t.store.db.selectFrom('sandbox_refunds').selectAll().where('refund_code', '=', code).execute();
    assert.equal(airline.length, 1);
    assert.equal(airline[0]!.submit_calls, 1);
    // extract now shows the airline's coupons refunded
    const ex = await call(t.app, '/extractPnr.do', {
      airlinePnr: 'DEP001',
      carrier: 'XS',
      passengers: [{ firstName: firstA, lastName: lastA }],
      contact: { email: PLANTED.emails[0] },
      routing: { fromSegments: [] },
    });
    assert.equal((ex.body as any).paxTicketInfos[0].ticketStatus, 'REFUND');
  });
});
