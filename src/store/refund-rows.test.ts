// A refund's rows are checked by the statements that write them, not by foreign keys (decision 0064, migration 0047):
// every refund the service's paths write names an order, client and offer that are there and agree, every ticket and
// history row a refund that is there; and deleting a refund still takes its tickets and history with it (the
// `on delete cascade`s, kept by a trigger).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';

const [lastA, firstA] = PLANTED.names;

describe('a refund\'s rows, checked by their statements', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);

  /** Rows naming a parent that is not there (or, for a refund, an order, client and offer that do not agree). */
  async function strays() {
    const { rows } = await sql<Record<string, number>>`select
        (select count(*) from refund_orders r where not exists (
          select 1 from orders o where o.order_no = r.order_no and o.client_id = r.client_id))::int as refund_without_order,
        (select count(*) from refund_orders r where not exists (select 1 from clients c where c.client_id = r.client_id))::int as refund_without_client,
        (select count(*) from refund_orders r where not exists (
          select 1 from refund_offers f where f.offer_id = r.offer_id and f.order_no = r.order_no and f.client_id = r.client_id and f.status = 'used'))::int as refund_without_offer,
        (select count(*) from refund_tickets x where not exists (select 1 from refund_orders r where r.refund_code = x.refund_code))::int as ticket_without_refund,
        (select count(*) from refund_status_history h where not exists (select 1 from refund_orders r where r.refund_code = h.refund_code))::int as history_without_refund`.execute(t.store.db);
    return rows[0];
  }

  const countOf = async (table: 'refund_tickets' | 'refund_status_history', refundCode: string) =>
    Number((await t.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('refund_code', '=', refundCode).executeTakeFirstOrThrow()).n);

  test('refunds by list and by refundOfferId, and their status moves, write no row without its parent', async () => {
    // by refundRequestList: the used offer, the refund, its tickets and first history row in one statement
    const byList = await call(t.app, '/refund.do', {
      orderNo: await orderNoOf('DEP001'),
      refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [refundSegment(t.world, 'out'), refundSegment(t.world, 'ret')] }],
    });
    assert.equal(byList.body.status, 0, String(byList.body.msg));
    // by refundOfferId, after its quote: the offer held, the refund beside it
    const orderNo = await orderNoOf('TWO001');
    const request = { orderNo, refundRequestList: [{ lastName: 'TWOTICKETS', firstName: 'TIM', refundReason: '1', segments: [refundSegment(t.world, 'out'), refundSegment(t.world, 'ret')] }] };
    const quote = await call(t.app, '/refundQuotation.do', request);
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const byOffer = await call(t.app, '/refund.do', { orderNo, refundOfferId: quote.body.refundOfferId });
    assert.equal(byOffer.body.status, 0, String(byOffer.body.msg));
    const codes = [String(byList.body.refundCode), String(byOffer.body.refundCode)];

    // the sweep submits them to the sandbox airline: 0 → 1, a history row each from the statement's update
    await t.workers.lifecycle.sweep();
    for (const code of codes) {
      assert.ok((await countOf('refund_tickets', code)) >= 1, `${code}: its tickets`);
      assert.equal(await countOf('refund_status_history', code), 2, `${code}: submitted, then taken by the airline`);
    }
    assert.deepEqual(await strays(), { refund_without_order: 0, refund_without_client: 0, refund_without_offer: 0, ticket_without_refund: 0, history_without_refund: 0 });
  });

  test('a refund deleted takes its tickets and history with it, and only its own', async () => {
    // a refund that stays, made here so that the test holds run alone (by name) as after the one above
    const stays = await call(t.app, '/refund.do', {
      orderNo: await orderNoOf('FAM001'),
      refundRequestList: ['PAT', 'KIM'].map((firstName) => ({ lastName: 'PARENT', firstName, refundReason: '1', segments: [refundSegment(t.world, 'out')] })),
    });
    assert.equal(stays.body.status, 0, String(stays.body.msg));
    const gone = await call(t.app, '/refund.do', {
      orderNo: await orderNoOf('ONE001'),
      refundRequestList: [{ lastName: 'ONCE', firstName: 'OTTO', refundReason: '1', segments: [refundSegment(t.world, 'xo')] }],
    });
    assert.equal(gone.body.status, 0, String(gone.body.msg));
    const goneCode = String(gone.body.refundCode);
    assert.equal(await countOf('refund_tickets', goneCode), 1);
    assert.equal(await countOf('refund_status_history', goneCode), 1);
    // the other refunds' rows (the one made above, and any earlier test's)
    const others = async () =>
      (
        await sql<{ tickets: number; history: number }>`select
          (select count(*) from refund_tickets where refund_code <> ${goneCode})::int as tickets,
          (select count(*) from refund_status_history where refund_code <> ${goneCode})::int as history`.execute(t.store.db)
      ).rows[0];
    const before = await others();
    assert.ok(before!.tickets > 0 && before!.history > 0, 'other refunds are there');

    await sql`delete from refund_orders where refund_code = ${goneCode}`.execute(t.store.db);
    assert.equal(await countOf('refund_tickets', goneCode), 0, 'its tickets went with it');
    assert.equal(await countOf('refund_status_history', goneCode), 0, 'its history went with it');
    assert.deepEqual(await others(), before, 'the other refunds keep theirs');
    assert.deepEqual(await strays(), { refund_without_order: 0, refund_without_client: 0, refund_without_offer: 0, ticket_without_refund: 0, history_without_refund: 0 });
  });
});
