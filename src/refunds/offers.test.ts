// Offers of concurrent quotes written together (decision 0016): their states are those of writing the offers
// one after the other (a later quote of a ticket supersedes the earlier ones, spec 7.1 813; decision 0019:
// read from the write order, nothing rewritten), and one offer's failure is not its neighbours'.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { CompiledQuery, sql } from 'kysely';
import { offerStateSql, OfferRecorder, offersParameters, RECORD_OFFERS_SQL, type NewOffer, type OfferState } from './offers.js';
import { newOfferId } from './quote.js';
import type { PricedQuote } from './pricing.js';
import { serverHasLz4 } from '../store/migrations/0044_offer_documents_lz4.js';

const [lastA, firstA] = PLANTED.names;

const offer = (orderNo: string, ticketNos: string[], over: Partial<NewOffer> = {}): NewOffer => ({
  offerId: newOfferId(),
  clientId: TEST_CLIENTS.alpha.id,
  orderNo,
  reason: '1',
  ticketNos,
  request: [],
  quote: { orderNo } as PricedQuote,
  expiresAt: new Date(Date.now() + 60_000),
  createdAt: new Date(),
  ctxVersion: null,
  ...over,
});

describe(`offers of concurrent quotes (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
  });
  after(() => t.close());

  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const ticketsOf = async (orderNo: string) => (await t.store.db.selectFrom('tickets').select('ticket_no').where('order_no', '=', orderNo).orderBy('ticket_no').execute()).map((r) => r.ticket_no);
  /** Each offer's state as refund.do reads it (offerStateSql). */
  const statusOf = async (offerIds: string[]) => {
    const rows = await t.store.db
      .selectFrom('refund_offers as o')
      .select(['o.offer_id', sql<OfferState>`${sql.raw(offerStateSql('o'))}`.as('state')])
      .where('o.offer_id', 'in', offerIds)
      .execute();
    const byId = new Map(rows.map((r) => [r.offer_id, r.state]));
    return offerIds.map((id) => byId.get(id) ?? 'missing');
  };

  test('a later offer of the same order sharing a ticket supersedes an earlier one, in one batch as one by one', async () => {
    const orderNo = await orderNoOf('FAM001');
    const other = await orderNoOf('DEP001');
    const [t1, t2] = await ticketsOf(orderNo);
    const [u1] = await ticketsOf(other);
    const recorder = new OfferRecorder(t.store.db);
    // in one batch: T1 then the other order's ticket, T2 alone, T1+T2, then a disjoint offer of T2 again
    const batch = [offer(orderNo, [t1!]), offer(other, [u1!]), offer(orderNo, [t2!]), offer(orderNo, [t1!, t2!]), offer(other, [u1!])];
    await Promise.all(batch.map((o) => recorder.record(o)));
    assert.deepEqual(await statusOf(batch.map((o) => o.offerId)), ['superseded', 'superseded', 'superseded', 'active', 'active']);
    // one by one, the same rule: a later offer of T2 alone supersedes the T1+T2 offer (it shares T2)
    const later = offer(orderNo, [t2!]);
    await recorder.record(later);
    assert.deepEqual(await statusOf([batch[3]!.offerId, later.offerId]), ['superseded', 'active']);
    // a quote of the same order on other tickets supersedes nothing
    const [t3] = (await ticketsOf(orderNo)).filter((x) => x !== t1 && x !== t2);
    if (t3) {
      const disjoint = offer(orderNo, [t3]);
      await recorder.record(disjoint);
      assert.deepEqual(await statusOf([later.offerId, disjoint.offerId]), ['active', 'active']);
    }
  });

  test('quotes rewrite no stored offer (decision 0019): a hot order leaves no dead rows behind', async () => {
    const orderNo = await orderNoOf('FAM001');
    const [t1] = await ticketsOf(orderNo);
    const recorder = new OfferRecorder(t.store.db);
    const first = offer(orderNo, [t1!]);
    await recorder.record(first);
    const before = await t.store.db.selectFrom('refund_offers').select(['status', 'used_at']).where('offer_id', '=', first.offerId).executeTakeFirstOrThrow();
    for (let i = 0; i < 5; i++) await recorder.record(offer(orderNo, [t1!]));
    const after = await t.store.db.selectFrom('refund_offers').select(['status', 'used_at']).where('offer_id', '=', first.offerId).executeTakeFirstOrThrow();
    assert.deepEqual(after, before, 'the older offer row is as it was written');
    assert.deepEqual(await statusOf([first.offerId]), ['superseded']);
  });

  test('offers recorded in one turn are written by one statement with the statuses of one-by-one writes', async () => {
    const orderNo = await orderNoOf('FAM001');
    const [t1, t2] = await ticketsOf(orderNo);
    assert.ok(t1 && t2, 'FAM001 has two tickets');
    const recorder = new OfferRecorder(t.store.db);
    // an older active offer of t1, stored before the batch
    const older = offer(orderNo, [t1]);
    await recorder.record(older);
    const statements: string[] = [];
    const spy = { executeQuery: (q: { sql: string }) => (statements.push(q.sql), t.store.db.executeQuery(q as never)) };
    const batched = new OfferRecorder(spy as unknown as typeof t.store.db);
    const offers = [offer(orderNo, [t1, t2]), offer(orderNo, [t2]), offer(orderNo, [t1])];
    await Promise.all(offers.map((o) => batched.record(o)));
    assert.equal(statements.length, 1, 'one statement for the three offers');
    assert.deepEqual(await statusOf([older.offerId, ...offers.map((o) => o.offerId)]), ['superseded', 'superseded', 'active', 'active']);
  });

  test('a batch stores each offer\'s own request and quote, byte for byte: names and amounts beyond ASCII, documents of every size', async () => {
    const orderNo = await orderNoOf('FAM001');
    const [t1] = await ticketsOf(orderNo);
    const recorder = new OfferRecorder(t.store.db);
    const names = [['MÜLLER', 'JOSÉ'], ['ŁĄCKA', 'ŻANETA'], ['O\'BRIEN "JR"', 'A\\B'], ['王', '小明 🙂']];
    const batch = names.map(([lastName, firstName], i) =>
      offer(orderNo, [t1!], {
        request: [{ lastName: lastName!, firstName: firstName!, refundReason: '1', segments: Array.from({ length: i * 3 }, () => ({ depAirport: 'PEK', arrAirport: 'SHA', depDate: '20261206', flightNo: 'XS701' })) }],
        quote: { orderNo, note: 'é'.repeat(i * 200), n: i } as unknown as PricedQuote,
      }),
    );
    assert.deepEqual(await Promise.all(batch.map((o) => recorder.record(o))), [true, true, true, true]);
    const rows = await t.store.db.selectFrom('refund_offers').select(['offer_id', 'request', 'quote']).where('offer_id', 'in', batch.map((o) => o.offerId)).execute();
    const byId = new Map(rows.map((r) => [r.offer_id, r]));
    for (const o of batch) {
      assert.deepEqual(byId.get(o.offerId)?.request, o.request);
      assert.deepEqual(byId.get(o.offerId)?.quote, o.quote);
    }
  });

  test("a failing offer in a batch fails alone: its neighbours are stored", async () => {
    const orderNo = await orderNoOf('DEP001');
    const [t1] = await ticketsOf(orderNo);
    const recorder = new OfferRecorder(t.store.db);
    const good = [offer(orderNo, [t1!]), offer(orderNo, [t1!], { reason: '0' })];
    const bad = offer(orderNo, [t1!], { reason: '9' }); // refund_offers_reason_check
    const outcomes = await Promise.allSettled([recorder.record(good[0]!), recorder.record(bad), recorder.record(good[1]!)]);
    assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(await statusOf([good[0]!.offerId, bad.offerId, good[1]!.offerId]), ['superseded', 'missing', 'active']);
  });

  test("decision 0051: an offer is stored only for an order that is there and is its client's; its batch neighbours are", async () => {
    const orderNo = await orderNoOf('FAM001');
    const [t1] = await ticketsOf(orderNo);
    const recorder = new OfferRecorder(t.store.db);
    const batch = [
      offer(orderNo, [t1!]),
      offer('no-such-order', [t1!]),
      offer(orderNo, [t1!], { clientId: TEST_CLIENTS.beta.id }), // another client's order
      offer(orderNo, [t1!], { clientId: 'no-such-client' }),
      offer(orderNo, [t1!], { reason: '0' }),
    ];
    assert.deepEqual(await Promise.all(batch.map((o) => recorder.record(o))), [true, false, false, false, true]);
    assert.deepEqual(await statusOf(batch.map((o) => o.offerId)), ['superseded', 'missing', 'missing', 'missing', 'active']);
    assert.equal(await recorder.record(offer('no-such-order', [t1!])), false, 'alone as in a batch');
  });

  test('decision 0030: an offer priced from a stale context version is not stored; its batch neighbours are', async () => {
    const orderNo = await orderNoOf('FAM001');
    const [t1] = await ticketsOf(orderNo);
    const version = (await t.store.db.selectFrom('orders').select('ctx_version').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).ctx_version;
    const recorder = new OfferRecorder(t.store.db);
    const batch = [offer(orderNo, [t1!], { ctxVersion: version }), offer(orderNo, [t1!], { ctxVersion: version - 1 }), offer(orderNo, [t1!], { ctxVersion: null })];
    assert.deepEqual(await Promise.all(batch.map((o) => recorder.record(o))), [true, false, true]);
    assert.deepEqual(await statusOf(batch.map((o) => o.offerId)), ['superseded', 'missing', 'active']);
    assert.equal(await recorder.record(offer(orderNo, [t1!], { ctxVersion: version + 1 })), false, 'alone as in a batch');
  });

  test("decision 0049: the offers' statement commits without waiting for the WAL's flush, its own transaction alone", async () => {
    const orderNo = await orderNoOf('DEP001');
    const [t1] = await ticketsOf(orderNo);
    const row: NewOffer = { offerId: newOfferId(), clientId: TEST_CLIENTS.alpha.id, orderNo, reason: '1', ticketNos: [t1!], request: [], quote: {} as NewOffer['quote'], expiresAt: new Date(), createdAt: new Date(), ctxVersion: null };
    const setting = sql<{ v: string }>`select current_setting('synchronous_commit') as v`;
    // one connection throughout: the setting is a connection's
    await t.store.db.connection().execute(async (conn) => {
      assert.equal((await setting.execute(conn)).rows[0]!.v, 'on', 'the default before');
      const inside = await conn.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw(RECORD_OFFERS_SQL, offersParameters([row])));
        return (await setting.execute(trx)).rows[0]!.v;
      });
      assert.equal(inside, 'off', 'off for the transaction that wrote the offers');
      assert.equal((await setting.execute(conn)).rows[0]!.v, 'on', 'and for no later one on the connection');
    });
    assert.deepEqual(await statusOf([row.offerId]), ['active']);
  });

  test('decision 0055: an offer\'s documents are compressed with lz4 where the server has it, and read back whole', async () => {
    const orderNo = await orderNoOf('DEP001');
    const [t1] = await ticketsOf(orderNo);
    // a quote document well past the row's 2 KB threshold, so that it is compressed
    const rules = Array.from({ length: 40 }, (_, i) => ({ airline: 'XS', ruleType: '1', penaltyAmount: `EUR ${i}.00`, startMinute: i * 60, endMinute: i * 60 - 60 }));
    const quote = { orderNo, refundRules: rules } as unknown as PricedQuote;
    const o = offer(orderNo, [t1!], { quote, request: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [] }] as unknown as NewOffer['request'] });
    assert.equal(await new OfferRecorder(t.store.db).record(o), true);
    const { rows } = await sql<{ method: string | null; quote: unknown; request: unknown }>`
      select pg_column_compression(quote) as method, quote, request from refund_offers where offer_id = ${o.offerId}
    `.execute(t.store.db);
    // Debian's PostgreSQL (CI's) is built with lz4; PGlite is not
    const lz4 = await serverHasLz4(t.store.db);
    assert.equal(rows[0]!.method, lz4 ? 'lz4' : 'pglz');
    assert.deepEqual(rows[0]!.quote, quote);
    assert.deepEqual(rows[0]!.request, o.request);
  });

  test('concurrent quotes of the same tickets: one offer stays usable, every other answers 813 (spec 7.1)', async () => {
    const orderNo = await orderNoOf('DEP001');
    const body = { orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: ['out', 'ret'].map((f) => refundSegment(t.world, f)) }] };
    const quotes = await Promise.all(Array.from({ length: 8 }, () => call(t.app, '/refundQuotation.do', body)));
    assert.ok(quotes.every((q) => q.body.status === 0), 'every quote succeeds');
    const ids = quotes.map((q) => String(q.body.refundOfferId));
    const statuses = await statusOf(ids);
    assert.equal(statuses.filter((s) => s === 'active').length, 1, `one active offer: ${statuses.join(', ')}`);
    assert.equal(statuses.filter((s) => s === 'superseded').length, 7);
    const latest = ids[statuses.indexOf('active')]!;
    for (const id of ids.filter((x) => x !== latest)) {
      const res = await call(t.app, '/refund.do', { orderNo, refundOfferId: id });
      assert.equal(res.body.status, 813);
      assert.match(String(res.body.msg), /newer quote/);
    }
    const submitted = await call(t.app, '/refund.do', { orderNo, refundOfferId: latest });
    assert.equal(submitted.body.status, 0, String(submitted.body.msg));
  });
});
