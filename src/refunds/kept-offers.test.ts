// refund.do by a refundOfferId this process quoted (decision 0038): written without reading the offer or the
// order again, from the kept offer and the context it was priced from — yet it answers exactly as the reading
// path: a change made since the quote, through the service or straight into the store, is found by the
// statement's version check and answered by the reading path. And submissions of one order sent at once, by
// kept offers, by offers read or by refundRequestList, answer as if sent one after the other (decision 0039).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { atOnce, holdOrder } from '../test-support/order-hold.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import type { ApiError } from '../errors.js';
import { contextCacheFor } from './context-cache.js';
import { KeptOffers, keptOffersFor } from './kept-offers.js';
import { readUntilWritten, type Attempt } from './until-written.js';
import { REFUND_ORDER_STATUS as RS, REFUND_STATUS as S } from './statuses.js';
import { moveRefund } from './transition.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

interface Answer {
  status: number;
  msg: string;
  refundOfferId?: string;
  refundCode?: string;
  [field: string]: unknown;
}

const STORE = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite';

/** The calls the tests make to the test app `app()` (one per describe: each its own refund world). */
function calls(app: () => TestApp) {
  const db = () => app().store.db;
  const orderNoOf = (pnr: string) => orderNoOfPnr(db(), pnr);
  const item = (lastName: string, firstName: string, flights: string[]) => ({ lastName, firstName, refundReason: '1', segments: flights.map((f) => refundSegment(app().world, f)) });
  const quote = async (orderNo: string, items: object[], client: { id: string; secret: string } = TEST_CLIENTS.alpha) => {
    const q = (await call(app().app, '/refundQuotation.do', { orderNo, refundRequestList: items }, { client })).body as Answer;
    assert.equal(q.status, 0, q.msg);
    return q;
  };
  const submit = async (body: object, client: { id: string; secret: string } = TEST_CLIENTS.alpha) => (await call(app().app, '/refund.do', body, { client })).body as Answer;
  const refundRow = (refundCode: string) => db().selectFrom('refund_orders').selectAll().where('refund_code', '=', refundCode).executeTakeFirstOrThrow();
  const offerRow = (offerId: string) => db().selectFrom('refund_offers').selectAll().where('offer_id', '=', offerId).executeTakeFirstOrThrow();
  const refundsOf = async (orderNo: string) => (await sql<{ n: number }>`select count(*)::int as n from refund_orders where order_no = ${orderNo}`.execute(db())).rows[0]!.n;
  return { orderNoOf, item, quote, submit, refundRow, offerRow, refundsOf };
}

describe(`refund.do by a kept refundOfferId (${STORE})`, () => {
  let t: TestApp;
  let kept: KeptOffers;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    kept = keptOffersFor(t.store.db);
  });
  after(() => t.close());
  const { orderNoOf, item, quote, submit, refundRow, offerRow } = calls(() => t);

  test('spec 4.2: quote, then submit by its refundOfferId — written from the kept offer, with every row the reading path writes', async () => {
    const orderNo = await orderNoOf('DEP001');
    const q = await quote(orderNo, [item(lastA, firstA, ['out', 'ret'])]);
    const written = kept.written;
    const s = await submit({ orderNo, refundOfferId: q.refundOfferId, displayCurrency: 'usd' });
    assert.equal(s.status, 0, s.msg);
    assert.equal(kept.written, written + 1, 'written from the kept offer');
    assert.equal(s.displayCurrency, 'USD');
    // the answer carries the quote's amounts, and the same fields as a submission by the reading path
    for (const field of ['currency', 'refundFeeAmount', 'refundAmount', 'refundTicketAmounts', 'refundPostTicketingServiceAmounts']) {
      if (field in q) assert.deepEqual(s[field], q[field], field);
    }
    const qB = await quote(orderNo, [item(lastB, firstB, ['out', 'ret'])]);
    const viaReads = await submit({ airlinePNR: 'DEP001', carrier: 'XS', refundOfferId: qB.refundOfferId, displayCurrency: 'usd' }); // named by PNR: the reading path
    assert.equal(viaReads.status, 0, viaReads.msg);
    assert.equal(kept.written, written + 1, 'an order named by PNR is read');
    assert.equal(kept.claim(qB.refundOfferId!, TEST_CLIENTS.alpha.id), null, 'used by the reading path: kept no longer');
    const twice = await submit({ orderNo, refundOfferId: qB.refundOfferId });
    assert.equal(twice.status, S.OFFER_ILLEGAL_STATE, twice.msg);
    assert.deepEqual(Object.keys(s).sort(), Object.keys(viaReads).sort());
    // display amounts through the configured rate, as the reading path shows them
    assert.deepEqual(s.serviceFee, viaReads.serviceFee);
    assert.equal(typeof (s.refundFareAmount as { displayEstimatedRefundAmount: unknown }).displayEstimatedRefundAmount, 'number');

    const refund = await refundRow(s.refundCode!);
    const offer = await offerRow(q.refundOfferId!);
    assert.equal(offer.status, 'used');
    assert.ok(offer.used_at);
    assert.equal(refund.offer_id, q.refundOfferId);
    assert.equal(refund.status, 0);
    assert.equal(refund.display_currency, 'USD');
    // decision 0053: the refund's quote is the offer's stored one, not copied into the refund
    assert.deepEqual(refund.details, {}, 'the refund holds no copy of the offer’s stored quote');
    assert.equal(refund.expected_refund_date, (offer.quote as { expectedRefundDate: string }).expectedRefundDate);
    assert.equal(refund.next_poll_at?.getTime(), refund.created_at.getTime(), 'its submission to the airline is due at once');
    const tickets = await t.store.db.selectFrom('refund_tickets').select(['ticket_no', 'live']).where('refund_code', '=', s.refundCode!).execute();
    assert.deepEqual(tickets.map((r) => r.ticket_no), ['9992000000001']);
    const history = await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status', 'cause']).where('refund_code', '=', s.refundCode!).execute();
    assert.deepEqual(history, [{ from_status: null, to_status: 0, cause: 'submitted by the client' }]);
    // the same columns as the reading path's refund, but for what differs by passenger
    const other = await refundRow(viaReads.refundCode!);
    const same = (r: typeof refund) => ({ ...r, refund_code: null, offer_id: null, details: null, estimated_refund_minor: null, post_refund_minor: null, ticket_nos: null, paid_minor: null, created_at: null, updated_at: null, next_poll_at: null });
    assert.deepEqual(same(refund), same(other));
  });

  test('spec 7.1 813: the same offer submitted again is used', async () => {
    const orderNo = await orderNoOf('TWO001');
    const q = await quote(orderNo, [item('TWOTICKETS', 'TIM', ['out', 'ret'])]);
    assert.equal((await submit({ orderNo, refundOfferId: q.refundOfferId })).status, 0);
    const again = await submit({ orderNo, refundOfferId: q.refundOfferId });
    assert.equal(again.status, S.OFFER_ILLEGAL_STATE);
    assert.match(again.msg, /already submitted/);
  });

  test('spec 7.1 820: a coupon flown behind the service’s back after the quote is seen by the submission', async () => {
    const orderNo = await orderNoOf('OLD001');
    const q = await quote(orderNo, [item('OLDIE', 'OZ', ['out'])]);
    const coupons = (status: string) => sql`update ticket_coupons set status = ${status} where ticket_no = '9992000000051'`.execute(t.store.db);
    await coupons('USED'); // straight into the store: this process learns of it only through the order's version
    const written = kept.written;
    const refused = await submit({ orderNo, refundOfferId: q.refundOfferId });
    assert.equal(refused.status, S.TICKET_USED, refused.msg);
    assert.equal(kept.written, written, 'nothing written from the kept offer');
    assert.equal((await offerRow(q.refundOfferId!)).status, 'active', 'the offer is untouched');
    await coupons('OPEN_FOR_USE');
    const s = await submit({ orderNo, refundOfferId: q.refundOfferId });
    assert.equal(s.status, 0, s.msg);
  });

  test('spec 7.1 813: an offer superseded by a newer quote of its tickets is refused; the newer one is submitted', async () => {
    const orderNo = await orderNoOf('VOID01');
    const older = await quote(orderNo, [item('VOIDER', 'VAL', ['out'])]);
    const newer = await quote(orderNo, [item('VOIDER', 'VAL', ['out'])]);
    const before = kept.refused;
    const refused = await submit({ orderNo, refundOfferId: older.refundOfferId });
    assert.equal(refused.status, S.OFFER_ILLEGAL_STATE);
    assert.match(refused.msg, /newer quote/);
    assert.equal(kept.refused, before + 1, 'answered from the kept-offer statement');
    assert.equal((await submit({ orderNo, refundOfferId: newer.refundOfferId })).status, 0);
  });

  test('another client sending the id is answered as for an unknown offer; the owner’s submission still needs no read', async () => {
    const orderNo = await orderNoOf('VOID01');
    const q = await quote(orderNo, [item('VOIDER', 'VIC', ['out'])]);
    const other = await submit({ orderNo, refundOfferId: q.refundOfferId }, TEST_CLIENTS.beta);
    assert.equal(other.status, S.OFFER_ILLEGAL_STATE, other.msg);
    assert.match(other.msg, /unknown refundOfferId/);
    // spec 7.1 810: the owner naming another order is answered by the reading path; the offer stays kept
    const mismatch = await submit({ orderNo: await orderNoOf('DEP001'), refundOfferId: q.refundOfferId });
    assert.equal(mismatch.status, S.INVALID, mismatch.msg);
    assert.match(mismatch.msg, /another order/);
    const written = kept.written;
    const s = await submit({ orderNo, refundOfferId: q.refundOfferId });
    assert.equal(s.status, 0, s.msg);
    assert.equal(kept.written, written + 1);
  });

  test('concurrent submissions of kept offers share statements, each answer and refund its own offer’s', async () => {
    const cases = [
      { pnr: 'RFD001', items: [item('ELSEWHERE', 'EVA', ['out'])], tickets: ['9992000000142'] },
      { pnr: 'FAM001', items: [item('PARENT', 'PAT', ['out']), item('PARENT', 'KIM', ['out'])], tickets: ['9992000000011', '9992000000012'] },
      { pnr: 'ONE001', items: [item('ONCE', 'OTTO', ['xo'])], tickets: ['1112000000111'] },
    ];
    // and among them, first, an offer the cases' newer quote supersedes: its refusal is its own caller's answer
    const supersededOrder = await orderNoOf(cases[0]!.pnr);
    const superseded = await quote(supersededOrder, cases[0]!.items);
    const quotes = await Promise.all(cases.map(async (c) => ({ orderNo: await orderNoOf(c.pnr), q: await quote(await orderNoOf(c.pnr), c.items) })));
    const written = kept.written;
    const [refused, ...answers] = await Promise.all([
      submit({ orderNo: supersededOrder, refundOfferId: superseded.refundOfferId }),
      ...quotes.map(({ orderNo, q }) => submit({ orderNo, refundOfferId: q.refundOfferId })),
    ]);
    assert.equal(refused.status, S.OFFER_ILLEGAL_STATE, refused.msg);
    assert.deepEqual(answers.map((a) => a.status), cases.map(() => 0), answers.map((a) => a.msg).join('; '));
    assert.equal(kept.written, written + cases.length);
    for (const [i, a] of answers.entries()) {
      const refund = await refundRow(a.refundCode!);
      assert.equal(refund.order_no, quotes[i]!.orderNo);
      assert.equal(refund.offer_id, quotes[i]!.q.refundOfferId);
      assert.deepEqual(refund.details, {});
      assert.equal(refund.expected_confirmation_date, ((await offerRow(quotes[i]!.q.refundOfferId!)).quote as { expectedConfirmationDate: string }).expectedConfirmationDate);
      const tickets = await t.store.db.selectFrom('refund_tickets').select('ticket_no').where('refund_code', '=', a.refundCode!).orderBy('ticket_no').execute();
      assert.deepEqual(tickets.map((r) => r.ticket_no), cases[i]!.tickets);
    }
  });

  test('the kept offers hold at most their capacity, the oldest quote going first, expired ones purged; a claimed offer is not claimed twice', () => {
    const offers = new KeptOffers(2);
    const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 0, 0, s));
    const offer = (clientId: string, expiresAt = at(60), orderNo = 'o1') => ({ clientId, expiresAt, ctx: { order: { order_no: orderNo } } }) as never;
    offers.keep('a', offer('c1'), at(0));
    offers.keep('b', offer('c1'), at(0));
    offers.keep('c', offer('c1'), at(0));
    assert.equal(offers.size, 2);
    assert.equal(offers.claim('a', 'c1'), null, 'the oldest was dropped');
    assert.equal(offers.claim('b', 'c2'), null, 'another client never claims it');
    assert.ok(offers.claim('b', 'c1'));
    assert.equal(offers.claim('b', 'c1'), null, 'being submitted');
    offers.release('b');
    assert.equal(offers.claim('b', 'c1'), null, 'used or refused: no longer kept');
    assert.ok(offers.claim('c', 'c1'));
    offers.release('c', true);
    assert.ok(offers.claim('c', 'c1'), 'declined for what its request named: still kept');
    offers.release('c', true);

    const purged = new KeptOffers(10);
    purged.keep('x', offer('c1', at(10)), at(0));
    purged.keep('y', offer('c1', at(20)), at(0));
    purged.keep('z', offer('c1', at(30)), at(0));
    assert.ok(purged.claim('y', 'c1'));
    purged.keep('w', offer('c1', at(90)), at(25)); // x and y expired; y is being submitted and stays until released
    assert.equal(purged.size, 3);
    assert.equal(purged.claim('x', 'c1'), null, 'expired: purged');
    purged.release('y');
    assert.equal(purged.size, 2);
  });

  test('kept long after capacity (the queue of keeps let go of as it goes): the newest stay; expired ones go, one being submitted after its submission', () => {
    const offers = new KeptOffers(100);
    const at = (s: number) => new Date(Date.UTC(2026, 11, 5, 0, 0, s));
    const offer = (expiresAt: Date) => ({ clientId: 'c1', expiresAt, ctx: { order: { order_no: 'o1' } } }) as never;
    for (let i = 0; i < 5_000; i++) offers.keep(`k${i}`, offer(at(600 + i)), at(0));
    assert.equal(offers.size, 100);
    assert.equal(offers.claim('k4899', 'c1'), null, 'older than the newest 100: dropped');
    assert.ok(offers.claim('k4900', 'c1'), 'the oldest of the newest 100, now being submitted');
    assert.ok(offers.claim('k4950', 'c1'));
    offers.release('k4950', true);
    // at 5600 s every one of them has expired: all go but k4900, being submitted
    offers.keep('late', offer(at(9000)), at(5600));
    assert.equal(offers.size, 2);
    assert.equal(offers.claim('k4950', 'c1'), null, 'expired: purged');
    offers.release('k4900', true);
    offers.keep('later', offer(at(9001)), at(5601));
    assert.equal(offers.size, 2, 'the expired one goes at the next keep once its submission ended');
    assert.ok(offers.claim('late', 'c1'));
    assert.ok(offers.claim('later', 'c1'));
  });

  test('a written order drops its kept offers, whoever quoted them and whether or not one is being submitted; other orders keep theirs', () => {
    const offers = new KeptOffers(10);
    const at = new Date(Date.UTC(2026, 10, 29));
    const offer = (clientId: string, orderNo: string) => ({ clientId, expiresAt: new Date(at.getTime() + 60_000), ctx: { order: { order_no: orderNo } } }) as never;
    offers.keep('a1', offer('c1', 'A'), at);
    offers.keep('a2', offer('c2', 'A'), at);
    offers.keep('a3', offer('c1', 'A'), at);
    offers.keep('b1', offer('c1', 'B'), at);
    assert.ok(offers.claim('a3', 'c1'));
    offers.forgetOrder('A');
    assert.equal(offers.size, 1);
    assert.equal(offers.claim('a1', 'c1'), null);
    assert.equal(offers.claim('a2', 'c2'), null);
    offers.release('a3', true);
    assert.equal(offers.claim('a3', 'c1'), null, 'dropped while being submitted: not kept after it either');
    assert.ok(offers.claim('b1', 'c1'), 'another order’s offer stays');
    offers.release('b1', true);
    offers.forgetOrder('A'); // nothing kept of it: nothing happens
    offers.keep('a4', offer('c1', 'A'), at);
    offers.forgetOrder('A');
    assert.equal(offers.size, 1, 'an offer kept after the order was forgotten is dropped by its next write');
  });
});

/** The refund world with more XO (one refund per booking) bookings like ONE001: ONE002 to ONE005 (tickets 111-2000000g11 and g12). */
function withXoBookings() {
  const world = refundWorld();
  const one = world.bookings.find((b) => b.pnr === 'ONE001')!;
  for (const g of [2, 3, 4, 5]) world.bookings.push({ ...one, pnr: `ONE00${g}`, tickets: one.tickets!.map((tk, i) => ({ ...tk, ticketNo: `111-2000000${g}1${i + 1}` })) });
  // and SIX001: six adults on XS (refunds per passenger), tickets 999-2000000901…906
  const dep = world.bookings.find((b) => b.pnr === 'DEP001')!;
  const six = [1, 2, 3, 4, 5, 6];
  world.bookings.push({
    ...dep,
    pnr: 'SIX001',
    passengers: six.map((i) => ({ ref: `p${i}`, type: 'ADT', lastName: 'SIXER', firstName: `PAX${'ABCDEF'[i - 1]}` })),
    tickets: six.map((i) => ({ ticketNo: `999-200000090${i}`, passenger: `p${i}`, currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] })),
    postTicketingServices: [],
  });
  // and KID001: three passengers on XS, tickets 999-2000000911…913
  world.bookings.push({
    ...dep,
    pnr: 'KID001',
    passengers: [1, 2, 3].map((i) => ({ ref: `p${i}`, type: 'ADT', lastName: 'FAMILY', firstName: `KID${'ABC'[i - 1]}` })),
    tickets: [1, 2, 3].map((i) => ({ ticketNo: `999-200000091${i}`, passenger: `p${i}`, currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] })),
    postTicketingServices: [],
  });
  return world;
}

describe(`refund.do by kept refundOfferIds, on an order of their own (${STORE})`, () => {
  let t: TestApp;
  let kept: KeptOffers;
  before(async () => {
    t = await makeTestApp({ world: withXoBookings() });
    kept = keptOffersFor(t.store.db);
  });
  after(() => t.close());
  const { orderNoOf, item, quote, submit, refundsOf } = calls(() => t);

  test('spec 7.1 813 and 805 from the statement: an offer used or expired in the store while kept here is refused without the reading path', async () => {
    const orderNo = await orderNoOf('DEP001');
    const lap = [item(lastA, firstA, ['out', 'ret'])];
    const offer = (id: string, set: string) => sql`update refund_offers set ${sql.raw(set)} where offer_id = ${id}`.execute(t.store.db);
    // used by another process (the order's version unchanged: nothing else of the order moved)
    const used = await quote(orderNo, lap);
    await offer(used.refundOfferId!, "status = 'used', used_at = now()");
    const refused = kept.refused;
    const a = await submit({ orderNo, refundOfferId: used.refundOfferId });
    assert.equal(a.status, S.OFFER_ILLEGAL_STATE, a.msg);
    assert.match(a.msg, /already submitted/);
    assert.equal(kept.refused, refused + 1, 'answered from the kept-offer statement');
    // its expiry moved into the past in the store (spec 7.1: 805)
    const expired = await quote(orderNo, lap);
    await offer(expired.refundOfferId!, "expires_at = now() - interval '1 second'");
    const b = await submit({ orderNo, refundOfferId: expired.refundOfferId });
    assert.equal(b.status, S.OFFER_EXPIRED, b.msg);
    assert.equal(kept.refused, refused + 2);
    assert.equal(await refundsOf(orderNo), 0);
  });

  // spec 7.1 816: two submissions of one XO (one refund per booking) order sent at once make one refund, the
  // other answered as if sent after it — by kept offers, by offers read (the order named by PNR), by lists
  // (each checked to fail on the code before the fix)
  const xoCases: Array<{ how: string; pnr: string; viaKept: number; send: (orderNo: string, pax: 'OTTO' | 'OLGA') => Promise<Answer> }> = [
    { how: 'by kept offers', pnr: 'ONE001', viaKept: 1, send: async (orderNo, pax) => submit({ orderNo, refundOfferId: (await quote(orderNo, [item('ONCE', pax, ['xo'])])).refundOfferId }) },
    {
      how: 'by offers read (the order named by PNR)',
      pnr: 'ONE002',
      viaKept: 0,
      send: async (orderNo, pax) => submit({ airlinePNR: 'ONE002', carrier: 'XO', refundOfferId: (await quote(orderNo, [item('ONCE', pax, ['xo'])])).refundOfferId }),
    },
    { how: 'by refundRequestList', pnr: 'ONE003', viaKept: 0, send: (orderNo, pax) => submit({ orderNo, refundRequestList: [item('ONCE', pax, ['xo'])] }) },
  ];
  for (const { how, pnr, viaKept, send } of xoCases) {
    test(`spec 7.1 816: two submissions of one XO order at once ${how} make one refund; the other is answered as after it`, async () => {
      const orderNo = await orderNoOf(pnr);
      const written = kept.written;
      // both quoted first when by offer, then sent in one turn of the event loop: they reach one statement's batch
      const answers = await Promise.all([send(orderNo, 'OTTO'), send(orderNo, 'OLGA')]);
      assert.deepEqual(answers.map((a) => a.status).sort(), [0, S.ORDER_DUPLICATE], answers.map((a) => a.msg).join('; '));
      assert.equal(kept.written, written + viaKept);
      assert.equal(await refundsOf(orderNo), 1);
    });
  }

  test('spec 4.2: six passengers of one order submitted each at once, by kept offers and by lists, are all written (one per batch and round)', async () => {
    const orderNo = await orderNoOf('SIX001');
    const pax = ['PAXA', 'PAXB', 'PAXC', 'PAXD', 'PAXE', 'PAXF'];
    const offers = await Promise.all(pax.slice(0, 3).map((first) => quote(orderNo, [item('SIXER', first, ['out', 'ret'])])));
    const answers = await Promise.all([
      ...offers.map((q) => submit({ orderNo, refundOfferId: q.refundOfferId })),
      ...pax.slice(3).map((first) => submit({ orderNo, refundRequestList: [item('SIXER', first, ['out', 'ret'])] })),
    ]);
    assert.deepEqual(answers.map((a) => a.status), pax.map(() => 0), answers.map((a) => a.msg).join('; '));
    assert.equal(await refundsOf(orderNo), 6);
  });

  test('spec 4.2: a family quoted one passenger at a time, then submitted one by one: each refund drops the order’s other kept offers and kept context, the next go straight to the reads', async () => {
    const orderNo = await orderNoOf('KID001');
    const cache = contextCacheFor(t.store.db);
    const kid = (first: string) => [item('FAMILY', first, ['out', 'ret'])];
    const [qA, qB] = [await quote(orderNo, kid('KIDA')), await quote(orderNo, kid('KIDB'))];
    const keptBefore = kept.size;
    const written = kept.written;
    const a = await submit({ orderNo, refundOfferId: qA.refundOfferId });
    assert.equal(a.status, 0, a.msg);
    assert.equal(kept.written, written + 1, 'the first written from its kept offer');
    assert.equal(kept.size, keptBefore - 2, 'the order’s other offer dropped with the used one');
    // the next quote of the order reads its context: the kept one is stale (the refund moved the version)
    const { hits, misses } = cache;
    const qC = await quote(orderNo, kid('KIDC'));
    assert.equal(cache.misses, misses + 1, 'read, not priced from the stale kept context');
    assert.equal(cache.hits, hits);
    assert.equal(kept.size, keptBefore - 1, 'an offer quoted after the refund is kept');
    const b = await submit({ orderNo, refundOfferId: qB.refundOfferId });
    assert.equal(b.status, 0, b.msg);
    assert.equal(kept.size, keptBefore - 2, 'written by the reading path, which drops the order’s offer quoted since');
    const c = await submit({ orderNo, refundOfferId: qC.refundOfferId });
    assert.equal(c.status, 0, c.msg);
    assert.equal(kept.written, written + 1, 'the second and third by the reading path');
    assert.equal(await refundsOf(orderNo), 3);
  });

  test('spec 7.1 814: one offer submitted twice at once (the order named by PNR): one refund, the other in progress; after it, 813', async () => {
    const orderNo = await orderNoOf('DEP001');
    const q = await quote(orderNo, [item(lastB, firstB, ['out', 'ret'])]);
    const byPnr = () => submit({ airlinePNR: 'DEP001', carrier: 'XS', refundOfferId: q.refundOfferId });
    const answers = await Promise.all([byPnr(), byPnr()]);
    // DESIGN: a concurrent submit of the same offer → 814 (in one process as across two)
    assert.deepEqual(answers.map((a) => a.status).sort(), [0, S.SUBMISSION_IN_PROGRESS], answers.map((a) => a.msg).join('; '));
    assert.equal((await byPnr()).status, S.OFFER_ILLEGAL_STATE);
    const done = answers.find((a) => a.status === 0)!;
    assert.equal((await t.store.db.selectFrom('refund_orders').select('offer_id').where('refund_code', '=', done.refundCode!).executeTakeFirst())?.offer_id, q.refundOfferId, 'the answered refund exists');
  });

  // spec 7.1 816 across statements: the list writer and the kept offers' writer are two statements on two
  // connections (as are two API processes). Each holds the order's row before reading its version, so the
  // second reads the version the first wrote. The order is held here first so that both statements are
  // running, each past its read of the order, before either writes.
  const acrossStatements: Array<{ first: string; pnr: string }> = [
    { first: 'by kept offer, then by list', pnr: 'ONE004' },
    { first: 'by list, then by kept offer', pnr: 'ONE005' },
  ];
  for (const { first, pnr } of acrossStatements) {
    test(`spec 7.1 816: two submissions of one XO order in two statements at once (${first}) make one refund`, async (ctx) => {
      if (!process.env.DATABASE_URL) return ctx.skip('PGlite has one connection: its statements run one after the other');
      const orderNo = await orderNoOf(pnr);
      const kept = await quote(orderNo, [item('ONCE', 'OTTO', ['xo'])]);
      const byKept = () => submit({ orderNo, refundOfferId: kept.refundOfferId });
      const byList = () => submit({ orderNo, refundRequestList: [item('ONCE', 'OLGA', ['xo'])] });
      const [one, two] = first.startsWith('by kept') ? [byKept, byList] : [byList, byKept];
      const done = await atOnce(t.store.db, orderNo, ctx, one, two);
      assert.deepEqual(done.map((a) => a.status).sort(), [0, S.ORDER_DUPLICATE], done.map((a) => a.msg).join('; '));
      assert.equal(await refundsOf(orderNo), 1);
    });
  }

  // A refund moving to rejected frees its tickets, which moves the order's version and so holds the order. It
  // holds the order before the console's status counts (whose rows its status update holds), in the order the
  // submission statements take them: held the other way round, the two could wait on each other in a circle.
  test('a refund moving to rejected holds its order before the console’s status counts, as submissions do', async (ctx) => {
    if (!process.env.DATABASE_URL) return ctx.skip('PGlite has one connection: nothing waits');
    const orderNo = await orderNoOf('DEP001');
    const s = await submit({ orderNo, refundRequestList: [item(lastA, firstA, ['out', 'ret'])] });
    assert.equal(s.status, 0, s.msg);
    const hold = await holdOrder(t.store.db, orderNo, ctx);
    const moving = t.store.db.transaction().execute((trx) => moveRefund(trx, new Date(), s.refundCode!, RS.PROCESSING, RS.REJECTED, 'refused by the airline'));
    await hold.waiting(1);
    // the status counts not yet written (a write would lock their table until the mover's transaction ends)
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_locks where relation = 'console_queue_counts'::regclass and pid <> pg_backend_pid()`.execute(t.store.db);
    assert.equal(rows[0]!.n, 0, 'no status count written while it waits for the order');
    await hold.release();
    assert.ok(await moving, 'the refund moved');
  });

  test('spec 7.1 814: a kept offer held by a submission elsewhere is answered 814 at once; the batch’s other submission is still written', async (ctx) => {
    if (!process.env.DATABASE_URL) return ctx.skip('PGlite has one connection: nothing else can hold the offer');
    const orderNo = await orderNoOf('VOID01');
    const val = await quote(orderNo, [item('VOIDER', 'VAL', ['out'])]);
    const vic = await quote(orderNo, [item('VOIDER', 'VIC', ['out'])]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    // another API process's submission of VAL's offer, its transaction open
    const elsewhere = t.store.db.transaction().execute(async (trx) => {
      await sql`select 1 from refund_offers where offer_id = ${val.refundOfferId} for update`.execute(trx);
      held();
      await released;
    });
    await holding;
    const written = kept.written;
    const [a, b] = await Promise.all([submit({ orderNo, refundOfferId: val.refundOfferId }), submit({ orderNo, refundOfferId: vic.refundOfferId })]);
    release();
    await elsewhere;
    assert.equal(a.status, S.SUBMISSION_IN_PROGRESS, a.msg);
    assert.equal(b.status, 0, b.msg);
    assert.equal(kept.written, written + 1);
    // the lock gone, the offer is submitted (by the reading path: it is no longer kept)
    const again = await submit({ orderNo, refundOfferId: val.refundOfferId });
    assert.equal(again.status, 0, again.msg);
    assert.equal(kept.written, written + 1);
  });
});

describe('a submission read again until written (decision 0039)', () => {
  const attempts = (outcomes: Array<Attempt<string>>) => {
    let n = 0;
    return { attempt: async () => outcomes[Math.min(n++, outcomes.length - 1)]!, calls: () => n };
  };

  test('spec 7.1 814: an order that moved before each of five writes answers 814, never a write on stale checks', async () => {
    const a = attempts(['moved']);
    await assert.rejects(readUntilWritten(a.attempt), (err: ApiError) => err.status === S.SUBMISSION_IN_PROGRESS && /kept changing/.test(err.message));
    assert.equal(a.calls(), 5);
    const b = attempts(['moved', 'moved', 'moved', 'moved', 'written']);
    assert.equal(await readUntilWritten(b.attempt), 'written', 'written at the fifth read');
  });

  test('behind others of its order: one round each, not counted as moves; 814 after 40 attempts in all', async () => {
    const a = attempts([...Array<Attempt<string>>(10).fill('behind'), 'moved', 'moved', 'moved', 'moved', 'written']);
    assert.equal(await readUntilWritten(a.attempt), 'written');
    assert.equal(a.calls(), 15);
    const b = attempts(['behind']);
    await assert.rejects(readUntilWritten(b.attempt), (err: ApiError) => err.status === S.SUBMISSION_IN_PROGRESS && /already in progress/.test(err.message));
    assert.equal(b.calls(), 40);
  });

  test('spec 7.1 814: void.do reads again by the same rule, its msg naming the void', async () => {
    await assert.rejects(readUntilWritten(attempts(['moved']).attempt, 'void'), (err: ApiError) => err.status === S.SUBMISSION_IN_PROGRESS && /this void was checked/.test(err.message));
    await assert.rejects(readUntilWritten(attempts(['behind']).attempt, 'void'), (err: ApiError) => /^void submission already in progress/.test(err.message));
  });
});
