// A void's quote is stored once, as its used offer's (decision 0058, migration 0045): a void stored since keeps `{}` in
// `details` and the quote's two dates as columns; a void stored before — its whole quote in `details`, no columns —
// answers as it did. queryVoidOrders.do (docs/voids.md) and the console's queue read a void of either kind alike.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { voidWorld, voidWorldClock } from '../test-support/void-world.js';
import { refundQueue } from '../console/queue.js';
import type { VoidQuote } from './quote.js';

describe("a void's quote stored once", () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: voidWorld(), clock: voidWorldClock() });
  });
  after(() => t.close());

  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  /** voidQuotation.do then void.do: the void.do answer. */
  const voidOf = async (pnr: string) => {
    const orderNo = await orderNoOf(pnr);
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const s = await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId });
    assert.equal(s.body.status, 0, String(s.body.msg));
    return s.body;
  };
  /** The fields of a void's answer that come from its quote. */
  const quoted = (v: Record<string, unknown>) => {
    const { orderNo, voidMethod, currency, voidAmount, ticketNos, expectedConfirmationDate, expectedRefundDate, voidWindow } = v;
    return { orderNo, voidMethod, currency, voidAmount, ticketNos, expectedConfirmationDate, expectedRefundDate, voidWindow };
  };
  const queueItem = async (code: string, now: Date) => (await refundQueue(t.store.db, { limit: 200, kind: 'void' }, { now, submitTargetMinutes: 10_000 })).items.find((i) => i.code === code);
  /** Noon UTC of the day after a yyyyMMdd date. */
  const dayAfter = (d: string) => new Date(Date.UTC(Number(d.slice(0, 4)), Number(d.slice(4, 6)) - 1, Number(d.slice(6)) + 1, 12));

  test('a void stored since: no copy of the quote; answered from its offer, queued and flagged late from its columns', async () => {
    const submitted = await voidOf('VQRY01');
    const code = String(submitted.voidCode);
    const row = await t.store.db.selectFrom('void_orders').selectAll().where('void_code', '=', code).executeTakeFirstOrThrow();
    const offer = await t.store.db.selectFrom('void_offers').select('quote').where('offer_id', '=', row.offer_id).executeTakeFirstOrThrow();
    const quote = offer.quote as VoidQuote;
    assert.deepEqual(row.details, {}, 'no copy of the quote');
    assert.equal(row.expected_confirmation_date, quote.expectedConfirmationDate);
    assert.equal(row.expected_refund_date, quote.expectedRefundDate);

    const answered = (await call(t.app, '/queryVoidOrders.do', { voidCode: code })).body;
    assert.equal(answered.status, 0, String(answered.msg));
    const [v] = answered.voidOrders as Array<Record<string, unknown>>;
    assert.deepEqual(quoted(v!), quoted(submitted), 'the quote as void.do answered it');

    const item = await queueItem(code, dayAfter(quote.expectedRefundDate));
    assert.equal(item?.expectedRefundDate, quote.expectedRefundDate);
    assert.ok(item?.sla.includes('refund-late'), 'flagged late from its column the day after');
  });

  test('a void stored before (its whole quote in details, no date columns) answers and is queued as it did', async () => {
    const submitted = await voidOf('VOFR01');
    const code = String(submitted.voidCode);
    // stored as before decision 0058
    const row = await t.store.db.selectFrom('void_orders').select('offer_id').where('void_code', '=', code).executeTakeFirstOrThrow();
    const offer = await t.store.db.selectFrom('void_offers').select('quote').where('offer_id', '=', row.offer_id).executeTakeFirstOrThrow();
    const quote = offer.quote as VoidQuote;
    await t.store.db
      .updateTable('void_orders')
      .set({ details: JSON.stringify(quote), expected_confirmation_date: null, expected_refund_date: null })
      .where('void_code', '=', code)
      .execute();
    // and its offer's quote no longer the same (it is not read for such a void)
    await t.store.db.updateTable('void_offers').set({ quote: JSON.stringify({ ...quote, voidAmountMinor: 1 }) }).where('offer_id', '=', row.offer_id).execute();

    const answered = (await call(t.app, '/queryVoidOrders.do', { orderNo: await orderNoOf('VOFR01') })).body;
    assert.equal(answered.status, 0, String(answered.msg));
    const [v] = answered.voidOrders as Array<Record<string, unknown>>;
    assert.equal(v!.voidCode, code);
    assert.deepEqual(quoted(v!), quoted(submitted), 'answered from its own details');

    const item = await queueItem(code, dayAfter(quote.expectedRefundDate));
    assert.equal(item?.expectedRefundDate, quote.expectedRefundDate, 'the date out of its details');
    assert.ok(item?.sla.includes('refund-late'), 'flagged late from its details the day after');
  });
});
