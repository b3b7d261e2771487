// refund.do's one-statement write (issue 7): 100 concurrent submissions of one offer still make exactly one
// refund with one history row and its submission due (spec 7.1: the others 813 or 814); a refused submission
// (803) leaves nothing behind, not even its offer; an expired offer answers 805 and stays unused. No job per
// refund: its submission is a due time in its row, which the lifecycle's sweep reads (decision 0035).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld, UTF_NAME } from '../test-support/refund-world.js';
import { submissionsSql, type NewSubmission } from './submit.js';
import { quoteAsWritten } from '../test-support/planted-refunds.js';
import type { OrderRow } from '../store/schema.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

describe(`refund.do writes a refund in one statement (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  const item = (last: string, first: string) => ({ lastName: last, firstName: first, refundReason: '1', segments: ['out', 'ret'].map(seg) });
  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const count = async (table: 'refund_orders' | 'refund_offers' | 'refund_status_history', orderNo: string) =>
    table === 'refund_status_history'
      ? (await t.store.db.selectFrom('refund_status_history').innerJoin('refund_orders', 'refund_orders.refund_code', 'refund_status_history.refund_code').select('id').where('order_no', '=', orderNo).execute()).length
      : (await t.store.db.selectFrom(table).select('order_no').where('order_no', '=', orderNo).execute()).length;
  /** The order's refunds at 0 with their submission due (these tests run no workers: nothing sends them). */
  const dueSubmissions = async (orderNo: string) =>
    (await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', orderNo).where('status', '=', 0).where('next_poll_at', '<=', new Date()).execute()).length;
  /** Jobs ever queued for submissions (builds before decision 0035 queued one per refund). */
  const submissionJobs = async () => {
    const s = (await t.workers.queue.stats()).queues['refund-submit']!;
    return s.created + s.active + s.completed + s.retry + s.failed;
  };

  test('100 concurrent refund.do with one refundOfferId → one refund, one history row, its submission due; the others 813/814', async (ctx) => {
    const orderNo = await orderNoOf('DEP001');
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item(lastA, firstA)] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const results = await Promise.all(Array.from({ length: 100 }, () => call(t.app, '/refund.do', { orderNo, refundOfferId: quote.body.refundOfferId })));
    const won = results.filter((r) => r.body.status === 0);
    assert.equal(won.length, 1);
    // spec 7.1: 813 illegal offer state (already used), 814 submission in progress
    const odd = results.filter((r) => !(r.http === 200 && [0, 813, 814].includes(r.body.status)));
    assert.ok(odd.length === 0, `unexpected answers: ${JSON.stringify([...new Set(odd.map((r) => `${r.http} ${r.body.status} ${r.body.msg}`))])}`);
    assert.equal(await count('refund_orders', orderNo), 1);
    assert.equal(await count('refund_status_history', orderNo), 1);
    assert.equal(await dueSubmissions(orderNo), 1, 'its submission due');
    assert.equal(await submissionJobs(), 0, 'no job');
    ctx.diagnostic(`100 × refund.do by one offer on ${t.store.kind}: ${[...new Set(results.map((r) => r.body.status))].join(', ')}`);
  });

  test('a refused submission (803: the passenger has a live refund) writes nothing', async () => {
    const orderNo = await orderNoOf('DEP001');
    const offersBefore = await count('refund_offers', orderNo);
    const again = await call(t.app, '/refund.do', { orderNo, refundRequestList: [item(lastA, firstA)] });
    assert.equal(again.body.status, 803); // spec 7.1: refund already submitted for this passenger
    assert.equal(await count('refund_offers', orderNo), offersBefore, 'no offer stored');
    assert.equal(await count('refund_orders', orderNo), 1);
    assert.equal(await dueSubmissions(orderNo), 1, 'only the first refund due');
  });

  test("refund.do by refundRequestList stores its request and quote byte for byte, a name beyond ASCII among them", async () => {
    const orderNo = await orderNoOf('UTF001');
    const request = [{ lastName: UTF_NAME, firstName: 'ANN', refundReason: '1', segments: [seg('out')] }];
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: request });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const refund = await call(t.app, '/refund.do', { orderNo, refundRequestList: request });
    assert.equal(refund.body.status, 0, String(refund.body.msg));
    const used = await t.store.db.selectFrom('refund_offers').select(['request', 'quote']).where('order_no', '=', orderNo).where('status', '=', 'used').executeTakeFirstOrThrow();
    assert.deepEqual(used.request, request);
    // decision 0053: the quote is stored once, as the used offer's; the refund keeps what it adds (nothing yet) and
    // the quote's two dates the console's queue reads
    const refundRow = await t.store.db.selectFrom('refund_orders').select(['details', 'offer_id', 'expected_confirmation_date', 'expected_refund_date']).where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    assert.deepEqual(refundRow.details, {}, "the refund's details hold no copy of the quote");
    const usedQuote = used.quote as { expectedConfirmationDate: string; expectedRefundDate: string };
    assert.deepEqual([refundRow.expected_confirmation_date, refundRow.expected_refund_date], [usedQuote.expectedConfirmationDate, usedQuote.expectedRefundDate]);
    assert.match(usedQuote.expectedRefundDate, /^\d{8}$/);
  });

  test('concurrent refund.do by refundRequestList share a statement; each gets its own refund, history row and due submission', async () => {
    // group commit (decision 0018): three orders submitted at once. The first write is held for 200 ms, so
    // submissions that reach the writer meanwhile must go together into the next statement whatever the timing.
    const orders = [await orderNoOf('OLD001'), await orderNoOf('TWO001'), await orderNoOf('ONE001')];
    const db = t.store.db;
    const statements: string[] = [];
    const original = db.executeQuery.bind(db);
    db.executeQuery = (async (q: { sql: string }) => {
      if (q.sql.includes('insert into refund_orders')) {
        statements.push(q.sql);
        if (statements.length === 1) await new Promise((r) => setTimeout(r, 200));
      }
      return original(q as never);
    }) as typeof db.executeQuery;
    let results;
    try {
      results = await Promise.all(
        [
          { lastName: 'OLDIE', firstName: 'OZ', refundReason: '1', segments: [seg('out')] },
          { lastName: 'TWOTICKETS', firstName: 'TIM', refundReason: '1', segments: [seg('out'), seg('ret')] },
          { lastName: 'ONCE', firstName: 'OTTO', refundReason: '1', segments: [seg('xo')] },
        ].map((one, i) => call(t.app, '/refund.do', { orderNo: orders[i], refundRequestList: [one] })),
      );
    } finally {
      db.executeQuery = original;
    }
    assert.deepEqual(results.map((r) => r.body.status), [0, 0, 0], JSON.stringify(results.map((r) => r.body.msg)));
    assert.ok(statements.length <= 2, `three refunds written by ${statements.length} statements`);
    const codes = results.map((r) => String(r.body.refundCode));
    assert.equal(new Set(codes).size, 3);
    const refunds = await db.selectFrom('refund_orders').select(['refund_code', 'offer_id', 'status', 'order_no']).where('refund_code', 'in', codes).execute();
    assert.deepEqual(refunds.map((r) => r.status), [0, 0, 0]);
    assert.deepEqual(refunds.map((r) => r.order_no).sort(), [...orders].sort());
    const offers = await db.selectFrom('refund_offers').select(['offer_id', 'status']).where('offer_id', 'in', refunds.map((r) => r.offer_id)).execute();
    assert.deepEqual(offers.map((o) => o.status), ['used', 'used', 'used']);
    for (const orderNo of orders) assert.equal(await count('refund_status_history', orderNo), 1);
    const tickets = await db.selectFrom('refund_tickets').select(['refund_code', 'ticket_no']).where('refund_code', 'in', codes).execute();
    assert.deepEqual(tickets.map((x) => x.ticket_no).sort(), ['1112000000111', '9992000000051', '9992000000121', '9992000000122']);
    for (const orderNo of orders) assert.equal(await dueSubmissions(orderNo), 1, 'its submission due');
    assert.equal(await submissionJobs(), 0, 'no job');
  });

  test('concurrent refund.do of the same passengers by refundRequestList: one refund, the others 803 and nothing left behind', async () => {
    const orderNo = await orderNoOf('FAM001');
    const offersBefore = await count('refund_offers', orderNo);
    const refundsBefore = await count('refund_orders', orderNo);
    const dueBefore = await dueSubmissions(orderNo);
    const results = await Promise.all(Array.from({ length: 6 }, () =>
        call(t.app, '/refund.do', { orderNo, refundRequestList: ['PAT', 'KIM'].map((first) => ({ lastName: 'PARENT', firstName: first, refundReason: '1', segments: [seg('out')] })) }),
      ),
    );
    // spec 7.1: 803 refund already submitted for this passenger
    assert.deepEqual(results.map((r) => r.body.status).sort(), [0, 803, 803, 803, 803, 803]);
    assert.equal(await count('refund_orders', orderNo), refundsBefore + 1);
    assert.equal(await count('refund_offers', orderNo), offersBefore + 1, 'only the winner stored its offer');
    assert.equal((await dueSubmissions(orderNo)) - dueBefore, 1);
  });

  test('an expired offer answers 805 and stays active, unused', async () => {
    const orderNo = await orderNoOf('DEP001');
    const quote = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [item(lastB, firstB)] });
    assert.equal(quote.body.status, 0, String(quote.body.msg));
    const offerId = String(quote.body.refundOfferId);
    await t.store.db.updateTable('refund_offers').set({ expires_at: new Date(t.clock.now().getTime() - 1000) }).where('offer_id', '=', offerId).execute();
    const res = await call(t.app, '/refund.do', { orderNo, refundOfferId: offerId });
    assert.equal(res.body.status, 805); // spec 7.1: refundOfferId expired
    const offer = await t.store.db.selectFrom('refund_offers').select(['status', 'used_at']).where('offer_id', '=', offerId).executeTakeFirstOrThrow();
    assert.equal(offer.status, 'active');
    assert.equal(offer.used_at, null);
    assert.equal(await count('refund_orders', orderNo), 1);
  });

  test("one statement of several submissions answers each: written, behind another of its order, or its order's version moved (decision 0039)", async () => {
    const orders = await t.store.db.selectFrom('orders').selectAll().where('airline_pnr', 'in', ['FAM001', 'DEP001']).orderBy('airline_pnr').execute();
    assert.deepEqual(orders.map((o) => o.airline_pnr), ['DEP001', 'FAM001']);
    const [dep, fam] = orders as [OrderRow, OrderRow];
    const now = new Date();
    const submission = (order: OrderRow, ctxVersion: number, n: number): NewSubmission => ({
      offerId: `rfo_stmt_${n}`,
      refundCode: `STMT${n}`,
      clientId: order.client_id,
      order,
      ctxVersion,
      // ticket numbers of their own, so that no refund of the world's is in the way
      priced: quoteAsWritten(`STMT-T${n}`),
      items: [],
      displayCurrency: null,
      now,
      expiresAt: now,
    });
    const batch = [submission(fam, fam.ctx_version, 0), submission(fam, fam.ctx_version, 1), submission(dep, dep.ctx_version - 1, 2), submission(dep, dep.ctx_version, 3)];
    const rolledBack = new Error('rolled back: the world stays as the other tests expect it');
    let answers: unknown[] = [];
    let written: string[] = [];
    let usedOffers: string[] = [];
    let historyRows: string[] = [];
    await assert.rejects(
      t.store.db.transaction().execute(async (trx) => {
        answers = (await submissionsSql(batch).execute(trx)).rows;
        written = (await trx.selectFrom('refund_orders').select('refund_code').where('refund_code', 'like', 'STMT%').orderBy('refund_code').execute()).map((r) => r.refund_code);
        usedOffers = (await trx.selectFrom('refund_offers').select('offer_id').where('offer_id', 'like', 'rfo_stmt_%').orderBy('offer_id').execute()).map((r) => r.offer_id);
        historyRows = (await trx.selectFrom('refund_status_history').select('refund_code').where('refund_code', 'like', 'STMT%').orderBy('refund_code').execute()).map((r) => r.refund_code);
        throw rolledBack;
      }),
      (err) => err === rolledBack,
    );
    assert.deepEqual(answers, [
      { written: true, behind: false },
      { written: false, behind: true },
      { written: false, behind: false },
      { written: true, behind: false },
    ]);
    assert.deepEqual(written, ['STMT0', 'STMT3']);
    assert.deepEqual(usedOffers, ['rfo_stmt_0', 'rfo_stmt_3'], 'a used offer for each written submission only');
    assert.deepEqual(historyRows, ['STMT0', 'STMT3']);
    // rolled back: nothing of it is left, and the orders' versions are as they were, for the tests of this world
    assert.equal((await t.store.db.selectFrom('refund_orders').select('refund_code').where('refund_code', 'like', 'STMT%').execute()).length, 0);
    assert.equal((await t.store.db.selectFrom('refund_offers').select('offer_id').where('offer_id', 'like', 'rfo_stmt_%').execute()).length, 0);
    const versions = await t.store.db.selectFrom('orders').select('ctx_version').where('airline_pnr', 'in', ['FAM001', 'DEP001']).orderBy('airline_pnr').execute();
    assert.deepEqual(versions.map((v) => v.ctx_version), orders.map((o) => o.ctx_version));
  });
});
