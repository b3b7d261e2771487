// Kept refund contexts (decision 0030): a quote may price from the context an earlier quote of the same order
// read, but never answers for an order that changed since — whether the change came through this service or
// straight into the store (another process, a worker, an operator): orders.ctx_version decides.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { contextCacheFor, OrderContextCache } from './context-cache.js';
import { REFUND_STATUS as S } from './statuses.js';
import { waitFor } from '../test-support/wait.js';

const [lastA, firstA] = PLANTED.names;

describe(`kept refund contexts (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let orderNo: string;
  let body: object;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    orderNo = await orderNoOfPnr(t.store.db, 'DEP001');
    body = { orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }] };
  });
  after(() => t.close());

  const quote = async () => (await call(t.app, '/refundQuotation.do', body)).body as { status: number; msg: string; refundOfferId: string };
  const coupons = (status: string) =>
    sql`update ticket_coupons set status = ${status} where ticket_no in (select ticket_no from tickets where order_no = ${orderNo})`.execute(t.store.db);

  test('a second quote of an unchanged order prices from the kept context', async () => {
    const cache = contextCacheFor(t.store.db);
    assert.equal((await quote()).status, 0);
    const hits = cache.hits;
    const again = await quote();
    assert.equal(again.status, 0, again.msg);
    assert.equal(cache.hits, hits + 1, 'the kept context was used');
  });

  test('spec 7.1 820: a coupon flown behind the service’s back is seen by the next quote', async () => {
    assert.equal((await quote()).status, 0);
    await coupons('USED'); // straight into the store: this process learns of it only through the version
    const refused = await quote();
    assert.equal(refused.status, S.TICKET_USED, refused.msg);
  });

  test('and the other way round: a refusal priced from a kept context is read again before it is answered', async () => {
    // the kept context now says USED (read by the refused quote above); the store says open again
    await coupons('OPEN_FOR_USE');
    const again = await quote();
    assert.equal(again.status, 0, again.msg);
  });

  test('spec 7.1 803: a refund submitted after a quote makes the next quote refuse, not answer from the kept context', async () => {
    const offer = await quote();
    assert.equal(offer.status, 0, offer.msg);
    const submitted = (await call(t.app, '/refund.do', { orderNo, refundOfferId: offer.refundOfferId })).body as { status: number; msg: string };
    assert.equal(submitted.status, 0, submitted.msg);
    const after = await quote();
    assert.notEqual(after.status, 0, 'the ticket has a live refund now');
    assert.equal(after.status, S.ALREADY_SUBMITTED, after.msg);
  });

  test('another client naming the same order never reads a context kept for the owner (801)', async () => {
    await quote(); // the owner's context is kept
    const other = (await call(t.app, '/refundQuotation.do', body, { client: TEST_CLIENTS.beta })).body as { status: number };
    assert.equal(other.status, S.ORDER_NOT_FOUND);
  });

  test('the cache keeps at most its capacity, dropping the least recently used', () => {
    const cache = new OrderContextCache(2);
    const ctx = (n: number) => ({ n, order: { order_no: `o${n}` } }) as never;
    cache.set('a', ctx(1));
    cache.set('b', ctx(2));
    cache.get('a');
    cache.set('c', ctx(3));
    assert.equal(cache.size, 2);
    assert.equal(cache.get('b'), undefined, 'b was the least recently used');
    assert.ok(cache.get('a') && cache.get('c'));
    assert.ok(Object.isFrozen(cache.get('a')), 'a kept context cannot be changed by one request under another');
  });

  test('a written order drops its every kept context (each client’s, by orderNo and by PNR), and only its own', () => {
    const cache = new OrderContextCache(10);
    const ctx = (orderNo: string) => ({ order: { order_no: orderNo } }) as never;
    const owner = OrderContextCache.key('c1', { orderNo: 'A' })!;
    const byPnr = OrderContextCache.key('c1', { airlinePNR: 'pnr001', carrier: 'xs' })!;
    const other = OrderContextCache.key('c2', { orderNo: 'A' })!;
    const elsewhere = OrderContextCache.key('c1', { orderNo: 'B' })!;
    for (const [key, orderNo] of [[owner, 'A'], [byPnr, 'A'], [other, 'A'], [elsewhere, 'B']] as const) cache.set(key, ctx(orderNo));
    cache.forgetOrder('A');
    assert.equal(cache.size, 1);
    assert.ok(cache.get(elsewhere));
    assert.equal(cache.get(owner) ?? cache.get(byPnr) ?? cache.get(other), undefined);
    // a key kept again for another order (a PNR reused) is dropped with that order, not its former one
    cache.set(byPnr, ctx('A'));
    cache.set(byPnr, ctx('C'));
    cache.forgetOrder('A');
    assert.ok(cache.get(byPnr));
    cache.forgetOrder('C');
    assert.equal(cache.size, 1);
  });
});

// refund.do by refundRequestList after a quote of the same order in this process: priced from the kept context,
// written only at its version (decision 0039's statement); a stale copy or a refusal priced from it is read again.
describe(`refund.do by refundRequestList on a kept context (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  const [, , lastB, firstB] = PLANTED.names;
  let t: TestApp;
  let orderNo: string;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    orderNo = await orderNoOfPnr(t.store.db, 'DEP001');
  });
  after(() => t.close());

  const list = (lastName: string, firstName: string) => ({
    orderNo,
    refundRequestList: [{ lastName, firstName, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }],
  });
  const quote = async (body: object) => (await call(t.app, '/refundQuotation.do', body)).body as { status: number; msg: string };
  const submit = async (body: object) => (await call(t.app, '/refund.do', body)).body as { status: number; msg: string; refundCode?: string };
  const couponsOfB = (status: string) => sql`update ticket_coupons set status = ${status} where ticket_no = '9992000000002'`.execute(t.store.db);

  test('spec 4.2: quoted, then submitted by list — priced from the kept context, the refund written as from a read', async () => {
    const cache = contextCacheFor(t.store.db);
    assert.equal((await quote(list(lastA, firstA))).status, 0);
    const { hits, misses } = cache;
    const s = await submit(list(lastA, firstA));
    assert.equal(s.status, 0, s.msg);
    assert.equal(cache.hits, hits + 1, 'priced from the kept context');
    assert.equal(cache.misses, misses);
    const refund = await t.store.db.selectFrom('refund_orders').select(['order_no', 'status']).where('refund_code', '=', s.refundCode!).executeTakeFirstOrThrow();
    assert.deepEqual(refund, { order_no: orderNo, status: 0 });
    const tickets = await t.store.db.selectFrom('refund_tickets').select('ticket_no').where('refund_code', '=', s.refundCode!).execute();
    assert.deepEqual(tickets.map((r) => r.ticket_no), ['9992000000001']);
  });

  test('spec 7.1 820: a coupon flown behind the service’s back after the quote is seen by the submission by list', async () => {
    const cache = contextCacheFor(t.store.db);
    assert.equal((await quote(list(lastB, firstB))).status, 0); // the context read (the refund above dropped it) and kept
    await couponsOfB('USED'); // straight into the store: the kept copy still says open
    const hits = cache.hits;
    const refused = await submit(list(lastB, firstB));
    assert.equal(refused.status, S.TICKET_USED, refused.msg);
    assert.equal(cache.hits, hits + 1, 'priced from the kept copy first, whose write found the order moved');
  });

  test('and the other way round: a refusal priced from the kept context is read again before it is answered', async () => {
    const cache = contextCacheFor(t.store.db);
    assert.equal((await quote(list(lastB, firstB))).status, S.TICKET_USED); // the context read again (flown) and kept
    await couponsOfB('OPEN_FOR_USE');
    const hits = cache.hits;
    const s = await submit(list(lastB, firstB));
    assert.equal(s.status, 0, s.msg);
    assert.equal(cache.hits, hits + 1);
    assert.equal(cache.size, 0, 'the written order’s context kept no longer');
  });
});

// A refund the workers move to rejected frees its tickets, which moves its order's version: the order's kept
// context is dropped once that move commits, so the next quote in this process reads the order at once instead
// of pricing a refusal from the stale copy first (decision 0038, amendment of 2026-11-30).
describe(`kept refund contexts and the workers' moves (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld(), workers: true });
  });
  after(() => t.close());

  test('spec 7.1 803: a refund the airline rejects frees its tickets, and the next quote reads the order at once', async () => {
    const f = t.world.flights.get('out')!;
    const claimed = await call(t.app, '/pnr/claim.do', {
      mmb: { airlinePnr: 'REJ001', email: PLANTED.emails[0] },
      passengers: [{ name: `${lastA}/${firstA}` }],
      fromSegments: [{ carrier: f.carrier, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.scheduled.dep.toFormat('yyyyMMddHHmm') }],
    });
    assert.equal(claimed.body.status, 0, String(claimed.body.msg));
    const body = { orderNo: String(claimed.body.orderNo), refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [refundSegment(t.world, 'out')] }] };
    const quote = async () => (await call(t.app, '/refundQuotation.do', body)).body as { status: number; msg: string };
    const submitted = (await call(t.app, '/refund.do', body)).body as { status: number; msg: string; refundCode: string };
    assert.equal(submitted.status, 0, submitted.msg);
    const live = await quote(); // read (the submission dropped the order's context) and kept: the ticket is taken
    assert.equal(live.status, S.ALREADY_SUBMITTED, live.msg);

    const statusOf = async () => (await t.store.db.selectFrom('refund_orders').select('status').where('refund_code', '=', submitted.refundCode).executeTakeFirstOrThrow()).status;
    await waitFor('submitted to the airline', async () => (await statusOf()) === 1);
    t.clock.advance(40_000); // past the airline's processingSeconds (30 s): it rejects
    await waitFor('rejected', async () => (await statusOf()) === 4);

    const cache = contextCacheFor(t.store.db);
    const { hits, misses } = cache;
    const again = await quote();
    assert.equal(again.status, 0, again.msg);
    assert.equal(cache.hits, hits, 'no stale copy priced first');
    assert.equal(cache.misses, misses + 1, 'the order read at once');
  });
});
