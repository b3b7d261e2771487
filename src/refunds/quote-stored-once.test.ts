// A refund's quote is stored once, as its used offer's (decision 0053, migration 0043): a refund stored since keeps in
// `details` only what it adds, and refunds stored before — their whole quote in `details` — answer as they did. The
// status answer (spec 4.3), the 0 → 1 batch read and the console's queue read a refund of either kind alike.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { refundQueue } from '../console/queue.js';
import { refundQuote, type PricedQuote } from './pricing.js';

const [lastA, firstA] = PLANTED.names;

describe('a refund\'s quote stored once', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const status = (orderNo: string, refundCode: string) => call(t.app, '/queryRefundOrders.do', { orderNo, refundCode, displayCurrency: 'USD' });
  const queueItem = async (refundCode: string, now: Date) => {
    const page = await refundQueue(t.store.db, { limit: 200 }, { now, submitTargetMinutes: 10_000 });
    return page.items.find((i) => i.code === refundCode);
  };
  const batchRead = async (refundCode: string) => {
    const [row] = await t.workers.lifecycle.loadMany([refundCode]);
    return row;
  };

  test('a refund stored before (its whole quote in details) answers, is read and queued as one stored since', async () => {
    const orderNo = await orderNoOf('DEP001');
    const body = { orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [refundSegment(t.world, 'out'), refundSegment(t.world, 'ret')] }] };
    const submitted = await call(t.app, '/refund.do', body);
    assert.equal(submitted.body.status, 0, String(submitted.body.msg));
    const code = String(submitted.body.refundCode);
    const row = await t.store.db.selectFrom('refund_orders').selectAll().where('refund_code', '=', code).executeTakeFirstOrThrow();
    const offer = await t.store.db.selectFrom('refund_offers').select('quote').where('offer_id', '=', row.offer_id).executeTakeFirstOrThrow();
    assert.deepEqual(row.details, {}, 'stored since: no copy of the quote');
    const quote = offer.quote as PricedQuote;
    assert.ok(quote.tickets.length > 0);
    const ticketNos = quote.tickets.map((x) => x.ticketNo);
    const paidMinor = quote.tickets.reduce((a, x) => a + x.paidMinor, 0);
    // the columns the readers of many refunds read instead of a document
    assert.deepEqual(row.ticket_nos, ticketNos);
    assert.equal(Number(row.paid_minor), paidMinor);

    // spec 4.3: answered from the offer's quote
    const since = await status(orderNo, code);
    assert.equal(since.body.status, 0, String(since.body.msg));
    const [answered] = since.body.refundOrders as Array<Record<string, unknown>>;
    assert.equal(answered!.refundCode, code);
    assert.equal(answered!.expectedRefundDate, quote.expectedRefundDate);
    const now = new Date(`${quote.expectedRefundDate.slice(0, 4)}-${quote.expectedRefundDate.slice(4, 6)}-${quote.expectedRefundDate.slice(6)}T12:00:00Z`);
    const queuedSince = await queueItem(code, new Date(now.getTime() + 86_400_000));
    assert.equal(queuedSince?.expectedRefundDate, quote.expectedRefundDate);
    assert.ok(queuedSince?.sla.includes('refund-late'), 'flagged late from its column the day after');
    const readSince = await batchRead(code);
    assert.deepEqual(readSince?.ticket_nos, ticketNos);
    assert.equal(Number(readSince?.paid_minor), paidMinor);

    // The same refund as a build before decision 0053 stored it: the quote whole in details, none of the columns. The
    // offer's document is then spoiled, so that an answer read from it would differ.
    await sql`update refund_orders set details = ${JSON.stringify(quote)}::jsonb, expected_confirmation_date = null, expected_refund_date = null,
        ticket_nos = null, paid_minor = null
      where refund_code = ${code}`.execute(t.store.db);
    await sql`update refund_offers set quote = '{"tickets": []}' where offer_id = ${row.offer_id}`.execute(t.store.db);
    const before0053 = await status(orderNo, code);
    assert.equal(before0053.raw, since.raw, 'the status answer byte for byte');
    const queuedBefore = await queueItem(code, new Date(now.getTime() + 86_400_000));
    assert.deepEqual(queuedBefore, queuedSince, 'the queue reads the dates from details');
    assert.deepEqual(await batchRead(code), readSince, 'the batch read takes the tickets and their total from details');
  });

  test('refundQuote: the details when they hold the quote, else the offer\'s', () => {
    const whole = { tickets: [{ ticketNo: 'T1' }], outcome: { voucherCode: 'V' } };
    const offers = { tickets: [{ ticketNo: 'T2' }] };
    assert.equal(refundQuote(whole, offers), whole);
    assert.equal(refundQuote({}, offers), offers);
    assert.equal(refundQuote({ outcome: { voucherCode: null } }, offers), offers);
    assert.throws(() => refundQuote({}, null), /no quote/);
  });
});
