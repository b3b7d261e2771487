// docs/voids.md: voidQuotation.do → void.do → queryVoidOrders.do, every status code of the void path, the
// lifecycle to its final status with the sandbox clock, the interplay with refunds (818/803, never mixed in
// queries), one void per order under concurrent submissions, Idempotency-Key, seats released and tickets
// shown REFUND, and the order.void webhook events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, openTestStore, type CallResult, type TestApp } from '../test-support/app.js';
import { voidWorld, voidWorldClock } from '../test-support/void-world.js';
import { refundSegment } from '../test-support/refund-world.js';
import { WebhookReceiver } from '../test-support/webhook-receiver.js';
import { assertAuthenticationRequired } from '../test-support/security.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { VOID_ORDER_STATUS as VS } from './statuses.js';
import { JOB_VOID_SUBMIT } from './lifecycle.js';
import { waitFor } from '../test-support/wait.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { ConnectorError } from '../airline/connector.js';
import { atOnce } from '../test-support/order-hold.js';
import { contextCacheFor } from '../refunds/context-cache.js';
import { keptOffersFor } from '../refunds/kept-offers.js';
import { createAirlines } from '../service.js';
import type { VoidDeps } from './deps.js';
import { submitVoid } from './submit.js';

/** A void's due time as read (a Date; the number -Infinity for '-infinity'), in milliseconds. */
const dueMs = (at: Date | number | null) => (at === null ? NaN : new Date(at).getTime());

describe('void path', () => {
  let t: TestApp;
  const hooks = new WebhookReceiver();
  before(async () => {
    await hooks.up();
    t = await makeTestApp({ world: voidWorld(), workers: true, clock: voidWorldClock() });
    const reg = await call(t.app, '/updateWebhookURL.do', { url: hooks.url });
    assert.equal(reg.body.status, 0, String(reg.body.msg));
  });
  after(async () => {
    await t.close();
    await hooks.down();
  });

  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const quote = async (pnr: string, extra: Record<string, unknown> = {}) => call(t.app, '/voidQuotation.do', { orderNo: await orderNoOf(pnr), ...extra });
  const submit = async (pnr: string, voidOfferId: unknown, headers: Record<string, string> = {}) => call(t.app, '/void.do', { orderNo: await orderNoOf(pnr), voidOfferId }, { headers });
  /** quotation then void.do: the voidCode. */
  const voidOf = async (pnr: string): Promise<string> => {
    const q = await quote(pnr);
    assert.equal(q.body.status, 0, String(q.body.msg));
    const s = await submit(pnr, q.body.voidOfferId);
    assert.equal(s.body.status, 0, String(s.body.msg));
    return String(s.body.voidCode);
  };
  const voidOrder = async (voidCode: string) => ((await call(t.app, '/queryVoidOrders.do', { voidCode })).body.voidOrders as any[])[0];
  const historyOf = async (voidCode: string) =>
    (await t.store.db.selectFrom('void_status_history').selectAll().where('void_code', '=', voidCode).orderBy('id').execute()).map((h) => [h.from_status, h.to_status]);
  const expectStatus = async (label: string, res: Promise<CallResult>, status: number) => {
    const r = await res;
    assert.equal(r.body.status, status, `${label}: ${r.body.msg}`);
    return r;
  };

  test('the OpenAPI document describes the three calls; each needs client credentials (spec 5: 900)', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: Record<string, { post?: { requestBody?: unknown; responses?: Record<string, unknown> } }> }>();
    for (const url of ['/voidQuotation.do', '/void.do', '/queryVoidOrders.do']) {
      assert.ok(doc.paths[url]?.post?.requestBody && doc.paths[url]?.post?.responses?.['200'], `${url} in /openapi.json with its body and answer`);
      await assertAuthenticationRequired(t.app, url, { orderNo: await orderNoOf('VQRY01') });
    }
  });

  test('deposit: quotation fields, void.do, then 0 → 1 → 3 → 2 with the sandbox clock; the airline shows the tickets REFUND', async () => {
    const orderNo = await orderNoOf('VDEP01');
    const q = await quote('VDEP01');
    assert.equal(q.body.status, 0, String(q.body.msg));
    assert.equal(q.body.isVoidable, true);
    assert.match(String(q.body.voidOfferId), /^vdo_/);
    assert.equal(q.body.voidMethod, 'CashBackToOriginalPayment');
    // 2 × (200 + 40) and the bag bought with the first ticket (35)
    assert.equal(q.body.voidAmount, 515);
    assert.equal(q.body.currency, 'EUR');
    const today = t.clock.now().toISOString().slice(0, 10);
    assert.deepEqual(q.body.voidWindow, { sameDayDeadlineTime: `${today} 23:59:59`, sameDayTimezone: 'UTC' });
    assert.equal(q.body.expectedConfirmationDate, today.replace(/-/g, ''));
    assert.match(String(q.body.expectedRefundDate), /^\d{8}$/);

    const s = await submit('VDEP01', q.body.voidOfferId);
    assert.equal(s.body.status, 0, String(s.body.msg));
    assert.match(String(s.body.voidCode), /^\d{6}-\d{10}$/);
    assert.equal(s.body.voidStatus, VS.PROCESSING);
    const code = String(s.body.voidCode);

    await waitFor('status 1', async () => (await voidOrder(code)).voidStatus === VS.AIRLINE_PROCESSING);
    t.clock.advance(40_000); // past the airline's 30 s: voided, money under way
    await waitFor('status 3', async () => (await voidOrder(code)).voidStatus === VS.AIRLINE_VOIDING);
    t.clock.advance(30_000);
    const done = await waitFor('status 2', async () => {
      const v = await voidOrder(code);
      return v.voidStatus === VS.VOIDED ? v : null;
    });
    assert.equal(done.actualRefundAmount, 515);
    assert.equal(done.cancelReason, null);
    assert.equal(done.orderNo, orderNo);
    assert.match(String(done.completedDate), /^\d{8}$/);
    assert.deepEqual(await historyOf(code), [[null, 0], [0, 1], [1, 3], [3, 2]]);
    await expectStatus('801 another client\'s voidCode', call(t.app, '/queryVoidOrders.do', { voidCode: code }, { client: TEST_CLIENTS.beta }), 801);

    // by orderNo too, and never in the refund query
    const byOrder = await call(t.app, '/queryVoidOrders.do', { orderNo });
    assert.deepEqual((byOrder.body.voidOrders as any[]).map((v) => v.voidCode), [code]);
    const refunds = await call(t.app, '/queryRefundOrders.do', { orderNo });
    assert.equal(refunds.body.status, 0);
    assert.deepEqual(refunds.body.refundOrders, []);

    // extractPnr.do: the airline shows the voided tickets REFUND
    const x = await call(t.app, '/extractPnr.do', {
      airlinePnr: 'VDEP01',
      carrier: 'XS',
      passengers: [{ firstName: 'AVA', lastName: 'VOIDCASE' }],
      contact: { email: 'void.case@example.com' },
      routing: { fromSegments: [{ ...refundSegment(t.world, 'out'), carrier: 'XS' }] },
    });
    const statuses = JSON.stringify(x.body).match(/"ticketStatus":"[A-Z_]+"/g) ?? [];
    assert.ok(statuses.length > 0, `extractPnr answered ${x.body.status} ${x.body.msg}`);
    assert.ok(statuses.every((s) => s.includes('REFUND')), statuses.join());

    // spec 7.1: a refund of a voided order answers 818
    await expectStatus('refund of a voided order', call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '1', segments: [refundSegment(t.world, 'out')] }] }), 818);
    // and a second void 803
    await expectStatus('void of a voided order', quote('VDEP01'), 803);
  });

  test('virtual card: 0 → 1 → 5; rejected by the airline: 1 → 4 with its cancelReason', async () => {
    const card = await voidOf('VCARD1');
    const rej = await voidOf('VREJ01');
    await waitFor('both at 1', async () => (await voidOrder(card)).voidStatus === 1 && (await voidOrder(rej)).voidStatus === 1);
    // spec 7.1: 803, a refund while the void is under way; the order's context read and kept in this process
    const refundQuote = async () =>
      call(t.app, '/refundQuotation.do', { orderNo: await orderNoOf('VREJ01'), refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '1', segments: [refundSegment(t.world, 'out')] }] });
    await expectStatus('refund while the void is under way', refundQuote(), 803);
    t.clock.advance(70_000);
    const c = await waitFor('card 5', async () => ((await voidOrder(card)).voidStatus === VS.COMPLETED ? voidOrder(card) : null));
    assert.equal(c.actualRefundAmount, 515);
    const r = await waitFor('rejected 4', async () => ((await voidOrder(rej)).voidStatus === VS.REJECTED ? voidOrder(rej) : null));
    assert.equal(r.cancelReason, 'does not match airline policy');
    assert.equal(r.actualRefundAmount, null);
    assert.deepEqual(await historyOf(card), [[null, 0], [0, 1], [1, 5]]);
    assert.deepEqual(await historyOf(rej), [[null, 0], [0, 1], [1, 4]]);
    // a rejected void frees the order for a new quotation, and its move dropped the order's kept context: the
    // next refund quote reads the order at once instead of pricing 803 from the stale copy first
    const contexts = contextCacheFor(t.store.db);
    const { hits, misses } = contexts;
    await expectStatus('refund quote after the rejection', refundQuote(), 0);
    assert.deepEqual({ hits: contexts.hits, misses: contexts.misses }, { hits, misses: misses + 1 }, 'read at once, no stale copy priced first');
    await expectStatus('quote after a rejection', quote('VREJ01'), 0);
  });

  test('status codes: 810, 801, 809, 843, 822, 823, 807, 813, 805', async () => {
    await expectStatus('810 no order', call(t.app, '/voidQuotation.do', {}), 810);
    await expectStatus('810 no offer', call(t.app, '/void.do', { orderNo: await orderNoOf('VQRY01') }), 810);
    await expectStatus('801 unknown order', call(t.app, '/voidQuotation.do', { orderNo: '1999999999999999' }), 801);
    const e = await expectStatus('809 unticketed', quote('VHOLD1'), 809);
    assert.equal(e.body.isVoidable, false);
    const cov = await expectStatus('843 airline without void coverage', quote('VXN001'), 843);
    assert.match(String(cov.body.msg), /refund/);
    const late = await expectStatus('822 past the same-day deadline', quote('VLATE1'), 822);
    assert.match(String(late.body.msg), /deadline.*refund/);
    await expectStatus('823 a ticket already refunded at the airline', quote('VPART1'), 823);
    await expectStatus('823 not every passenger named', quote('VQRY01', { passengers: [{ lastName: 'VOIDCASE', firstName: 'AVA' }] }), 823);
    await expectStatus('807 an unknown passenger', quote('VQRY01', { passengers: [{ lastName: 'NOBODY', firstName: 'NED' }] }), 807);
    await expectStatus('all passengers named', quote('VQRY01', { passengers: [{ lastName: 'voidcase', firstName: 'ava' }, { lastName: 'VOIDCASE', firstName: 'BEN' }] }), 0);
    await expectStatus('unknown fields tolerated, "" and null absent (decision 0021)', quote('VQRY01', { airlinePNR: '', carrier: null, passengers: null, somethingNew: 1 }), 0);
    await expectStatus('813 unknown offer', submit('VQRY01', 'vdo_nope'), 813);
    // another client's order, offer and void are answered as unknown
    const alphaOffer = (await quote('VQRY01')).body.voidOfferId;
    await expectStatus('801 another client\'s order', call(t.app, '/voidQuotation.do', { orderNo: await orderNoOf('VQRY01') }, { client: TEST_CLIENTS.beta }), 801);
    await expectStatus('813 another client\'s offer', call(t.app, '/void.do', { voidOfferId: alphaOffer }, { client: TEST_CLIENTS.beta }), 813);
    await expectStatus('810 offer of another order', submit('VQRY01', (await quote('VOFR01')).body.voidOfferId), 810);

    // only the latest quotation: an older one is superseded (813); an expired one 805
    const older = (await quote('VOFR01')).body.voidOfferId;
    const latest = (await quote('VOFR01')).body.voidOfferId;
    await expectStatus('813 superseded', submit('VOFR01', older), 813);
    t.clock.advance(31 * 60_000);
    await expectStatus('805 expired', submit('VOFR01', latest), 805);
    const fresh = (await quote('VOFR01')).body.voidOfferId;
    await expectStatus('fresh offer', submit('VOFR01', fresh), 0);
    await expectStatus('813 used', submit('VOFR01', fresh), 813);
  });

  test('voids and refunds: 818 a void after a refund, 803 a refund while a void is under way', async () => {
    const orderNo = await orderNoOf('VREF01');
    const refund = await call(t.app, '/refund.do', {
      orderNo,
      refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '1', segments: [refundSegment(t.world, 'out')] }],
    });
    assert.equal(refund.body.status, 0, String(refund.body.msg));
    await expectStatus('818 void after a refund', quote('VREF01'), 818);

    const code = await voidOf('VREF02');
    const other = await orderNoOf('VREF02');
    const r = await expectStatus(
      '803 refund during a void',
      call(t.app, '/refundQuotation.do', { orderNo: other, refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'BEN', refundReason: '1', segments: [refundSegment(t.world, 'out')] }] }),
      803,
    );
    assert.match(String(r.body.msg), new RegExp(code));
    await expectStatus('803 the same through refund.do', call(t.app, '/refund.do', { orderNo: other, refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'BEN', refundReason: '4', segments: [refundSegment(t.world, 'out')] }, { lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '4', segments: [refundSegment(t.world, 'out')] }] }), 803);
    // the void is not a refund order: the refund query of that order is empty, the void query holds no refund
    assert.deepEqual((await call(t.app, '/queryRefundOrders.do', { orderNo: other })).body.refundOrders, []);
    assert.deepEqual(((await call(t.app, '/queryVoidOrders.do', { orderNo })).body.voidOrders as unknown[]).length, 0);
    await expectStatus('801 a refundCode is no voidCode', call(t.app, '/queryVoidOrders.do', { voidCode: String(refund.body.refundCode) }), 801);
  });

  test('a void drops the refund offers and contexts this process keeps of its order: a refund after it is refused from the reads (803)', async () => {
    const orderNo = await orderNoOf('VKEPT1');
    const ava = [{ lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '1', segments: [refundSegment(t.world, 'out')] }];
    const offer = await call(t.app, '/refundQuotation.do', { orderNo, refundRequestList: ava });
    assert.equal(offer.body.status, 0, String(offer.body.msg));
    // the order's own entries: the workers' moves of other orders' voids drop theirs meanwhile
    const keptOfOrder = () => ({ offers: keptOffersFor(t.store.db).keptOf(orderNo), contexts: contextCacheFor(t.store.db).keptOf(orderNo) });
    assert.deepEqual(keptOfOrder(), { offers: 1, contexts: 1 }, 'the quote kept its offer and its context');
    await voidOf('VKEPT1');
    assert.deepEqual(keptOfOrder(), { offers: 0, contexts: 0 }, 'the refund offer kept no longer, nor the context it was priced from');
    const refused = await call(t.app, '/refund.do', { orderNo, refundOfferId: offer.body.refundOfferId });
    assert.equal(refused.body.status, 803, String(refused.body.msg));
  });

  // A void and a refund of one order submitted at once, in two statements (two connections, or two API
  // processes): each statement holds the order's row and checks the version its checks ran on, so the second
  // answers as if sent after the first (818 for the void, 803 for the refund), never both written. The order
  // is held here first so that both are past their reads before either writes.
  for (const { first, pnr } of [
    { first: 'the refund first', pnr: 'VREF03' },
    { first: 'the void first', pnr: 'VREF04' },
  ]) {
    test(`a void and a refund of one order at once (${first}): one of them written, the other answered as after it`, async (ctx) => {
      if (!process.env.DATABASE_URL) return ctx.skip('PGlite has one connection: its statements run one after the other');
      const orderNo = await orderNoOf(pnr);
      const offerId = (await quote(pnr)).body.voidOfferId;
      const voiding = () => submit(pnr, offerId);
      const refunding = () =>
        call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: 'VOIDCASE', firstName: 'AVA', refundReason: '1', segments: [refundSegment(t.world, 'out')] }] });
      const [one, two] = first === 'the refund first' ? [refunding, voiding] : [voiding, refunding];
      const [a, b] = (await atOnce(t.store.db, orderNo, ctx, one, two)).map((r) => r.body);
      const [refunded, voided] = first === 'the refund first' ? [a!, b!] : [b!, a!];
      const said = `refund ${String(refunded.status)} ${String(refunded.msg)}; void ${String(voided.status)} ${String(voided.msg)}`;
      // whichever the store let write first (the one that waited first, as a rule) is written; the other answers
      // as it would after it: a void after a refund 818, a refund while a void is under way 803
      if (refunded.status === 0) assert.equal(voided.status, 818, said);
      else assert.deepEqual([refunded.status, voided.status], [803, 0], said);
      const refunds = await t.store.db.selectFrom('refund_orders').select('refund_code').where('order_no', '=', orderNo).execute();
      const voids = await t.store.db.selectFrom('void_orders').select('void_code').where('order_no', '=', orderNo).execute();
      assert.equal(refunds.length + voids.length, 1, 'one of them written');
    });
  }

  test('one void per order under 100 concurrent void.do of one offer; Idempotency-Key replays the first answer', async () => {
    const offerId = (await quote('VCONC1')).body.voidOfferId;
    const answers = await Promise.all(Array.from({ length: 100 }, () => submit('VCONC1', offerId)));
    const ok = answers.filter((a) => a.body.status === 0);
    assert.equal(ok.length, 1, `one success: ${JSON.stringify(answers.map((a) => a.body.status))}`);
    assert.ok(answers.every((a) => [0, 813, 814].includes(a.body.status)), JSON.stringify([...new Set(answers.map((a) => `${a.body.status} ${a.body.msg}`))]));
    const rows = await t.store.db.selectFrom('void_orders').select('void_code').where('order_no', '=', await orderNoOf('VCONC1')).execute();
    assert.equal(rows.length, 1);

    const offer2 = (await quote('VQRY01')).body.voidOfferId;
    const key = { 'idempotency-key': 'void-VQRY01-1' };
    const [a, b] = await Promise.all([submit('VQRY01', offer2, key), submit('VQRY01', offer2, key)]);
    assert.equal(a.body.status, 0, String(a.body.msg));
    assert.equal(b.body.voidCode, a.body.voidCode);
    const again = await submit('VQRY01', offer2, key);
    assert.equal(again.body.voidCode, a.body.voidCode);
  });

  test('an airline that never answers: each failed attempt is counted in the void and made again later; the one past the last retry ends the void rejected', async () => {
    const code = await voidOf('VSLOW1');
    const row = () => t.store.db.selectFrom('void_orders').select(['status', 'step_failures', 'step_error', 'next_step_at']).where('void_code', '=', code).executeTakeFirstOrThrow();
    await waitFor('a failed attempt', async () => (await row()).step_failures >= 1);
    const failed = await row();
    assert.equal(failed.status, VS.PROCESSING);
    assert.match(String(failed.step_error), /error/);
    // the next attempt put off by the retry delay (5 s, doubled after each failure)
    assert.ok(dueMs(failed.next_step_at) >= t.clock.now().getTime() + 4_000, `next attempt at ${String(failed.next_step_at)}`);
    // nine failed (and the sweep kept off it): the 10th attempt is retried, the 11th (10 retries) gives up, 0 → 4
    await t.store.db.updateTable('void_orders').set({ step_failures: 9, next_step_at: new Date(t.clock.now().getTime() + 3_600_000) }).where('void_code', '=', code).execute();
    await t.workers.voids.submitStep(code);
    const tenth = await row();
    assert.deepEqual([tenth.status, tenth.step_failures], [VS.PROCESSING, 10], 'the 10th failed attempt is retried');
    assert.ok(dueMs(tenth.next_step_at) >= t.clock.now().getTime() + 2_000_000, 'after 5 s × 2⁹');
    await t.workers.voids.submitStep(code);
    const v = await voidOrder(code);
    assert.equal(v.voidStatus, VS.REJECTED);
    assert.match(String(v.cancelReason), /could not be reached/);
    assert.equal((await row()).next_step_at, null, 'nothing due any more');
    const [last] = await t.store.db.selectFrom('void_status_history').select('cause').where('void_code', '=', code).orderBy('id', 'desc').limit(1).execute();
    assert.equal(last!.cause, 'airline unreachable after 11 attempts', 'no raw error text in the cause a webhook repeats (found by a review)');
  });

  test('order.void webhook events: one per status change, in order, with the documented payload', async () => {
    const code = await voidOf('VHOOK1');
    await waitFor('status 1', async () => (await voidOrder(code)).voidStatus === 1);
    t.clock.advance(70_000);
    await waitFor('status 2', async () => (await voidOrder(code)).voidStatus === VS.VOIDED);
    await waitFor('four events delivered', async () => {
      await t.webhooks!.deliverDue();
      return hooks.events().filter((e) => e.type === 'order.void' && (e.data as any).voidCode === code).length === 4;
    });
    const events = hooks.events().filter((e) => e.type === 'order.void' && (e.data as any).voidCode === code);
    assert.deepEqual(
      events.map((e) => [(e.data as any).previousVoidStatus, (e.data as any).voidStatus]),
      [[null, 0], [0, 1], [1, 3], [3, 2]],
    );
    const last = events.at(-1)!;
    assert.equal(last.cid, 'client-alpha');
    assert.equal(last.data.orderNo, await orderNoOf('VHOOK1'));
    assert.equal((last.data as any).actualRefundAmount, 515);
    assert.equal((last.data as any).cancelReason, null);
    assert.match(last.eventId, /^[0-9a-f-]{36}$/);
    assert.ok(!JSON.stringify(events).includes('VOIDCASE'), 'no passenger names');
  });
});

test('a worker without the carrier\'s void connection fails the attempt (tried again), never rejects the void; a poll without one looks again later', async () => {
  const store = await openTestStore();
  const clock = voidWorldClock();
  const apps: TestApp[] = [];
  try {
    const api = await makeTestApp({ store, world: voidWorld(), clock });
    apps.push(api);
    const orderNo = await orderNoOfPnr(store.db, 'VDEP02');
    const q = await call(api.app, '/voidQuotation.do', { orderNo });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const s = await call(api.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId });
    assert.equal(s.body.status, 0, String(s.body.msg));
    const code = String(s.body.voidCode);
    const row = () => store.db.selectFrom('void_orders').select(['status', 'step_failures', 'step_error', 'next_step_at']).where('void_code', '=', code).executeTakeFirstOrThrow();
    // a worker process whose connectors do not (yet) serve this carrier (a rollout adding it)
    const worker = await makeTestApp({ store, world: voidWorld(), clock, connectors: () => [] });
    apps.push(worker);
    await worker.workers.voids.submitStep(code);
    const failed = await row();
    assert.equal(failed.status, VS.PROCESSING, 'still at 0: the airline was never asked (was 0 → 4, "does not match airline policy")');
    assert.equal(failed.step_failures, 1, 'a failed attempt');
    assert.match(String(failed.step_error), /no airline connection/);
    // its last attempt too: the worker cannot ask the airline whether an earlier attempt reached it — left at 0, not 4
    await store.db.updateTable('void_orders').set({ step_failures: 10 }).where('void_code', '=', code).execute();
    await worker.workers.voids.submitStep(code);
    assert.deepEqual([(await row()).status, (await row()).step_failures], [VS.PROCESSING, 11], 'past the limit, not rejected');
    await store.db.updateTable('void_orders').set({ step_failures: 1, next_step_at: clock.now() }).where('void_code', '=', code).execute();
    // the process with the connection sends it (test apps look at a void every second)
    /** Runs `step`; answers the interval of the clock's readings it made. */
    const timed = async (step: () => Promise<void>) => {
      const from = clock.now().getTime();
      await step();
      return [from, clock.now().getTime()] as const;
    };
    const [from, to] = await timed(() => api.workers.voids.submitStep(code));
    const sent = await row();
    assert.deepEqual({ ...sent, next_step_at: null }, { status: VS.AIRLINE_PROCESSING, step_failures: 0, step_error: null, next_step_at: null });
    assert.ok(dueMs(sent.next_step_at) >= from + 1_000 && dueMs(sent.next_step_at) <= to + 1_000, 'its first look a poll interval on');
    // a poll by the worker without the connection: the void's next look put off, not dropped
    clock.advance(1_000);
    const [from2, to2] = await timed(() => worker.workers.voids.pollStep(code));
    const looked = await row();
    assert.equal(looked.status, VS.AIRLINE_PROCESSING);
    assert.equal(looked.step_failures, 1);
    assert.ok(dueMs(looked.next_step_at) >= from2 + 1_000 && dueMs(looked.next_step_at) <= to2 + 1_000, 'the next look a poll interval on');
  } finally {
    for (const a of apps.reverse()) await a.close();
    await store.close();
  }
});

test('an airline status outage longer than the job retries: the void is looked at again until the airline answers, then moves on', async () => {
  let down = false;
  let looks = 0;
  const t = await makeTestApp({
    world: voidWorld(),
    clock: voidWorldClock(),
    workers: true,
    // one retry a second: a job's retries would be spent within seconds (found by a review: the void then stayed at 1)
    env: { JOB_RETRY_LIMIT: '1', JOB_RETRY_DELAY_SECONDS: '1', JOB_RETRY_BACKOFF: 'false' },
    connectors: (w, books) => {
      const airline = new SandboxConnector(w, books);
      const voidStatus = airline.voidStatus.bind(airline);
      airline.voidStatus = async (carrier, code, opts) => {
        looks++;
        if (down) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
        return voidStatus(carrier, code, opts);
      };
      return [airline];
    },
  });
  try {
    down = true;
    const orderNo = await orderNoOfPnr(t.store.db, 'VDEP01');
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    const v = await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId });
    assert.equal(v.body.status, 0, String(v.body.msg));
    const code = String(v.body.voidCode);
    const statusOf = async () => (await t.store.db.selectFrom('void_orders').select('status').where('void_code', '=', code).executeTakeFirstOrThrow()).status;
    await waitFor('status 1', async () => (await statusOf()) === VS.AIRLINE_PROCESSING);
    await waitFor('more failed looks than the retries allow', async () => looks >= 4, 20_000);
    down = false; // the airline is back, and has decided
    t.clock.advance(70_000);
    await waitFor('the void moved on', async () => (await statusOf()) !== VS.AIRLINE_PROCESSING, 20_000);
  } finally {
    await t.close();
  }
});

test('the sweep carries voids from their rows (decision 0045): a void whose last attempt was cut off is sent by the next sweep, every due void once over many pages, a job an older build queued makes its void due now', async () => {
  const t = await makeTestApp({ world: voidWorld(), clock: voidWorldClock() });
  try {
    const voidOf = async (pnr: string) => {
      const orderNo = await orderNoOfPnr(t.store.db, pnr);
      const q = await call(t.app, '/voidQuotation.do', { orderNo });
      const v = await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId });
      assert.equal(v.body.status, 0, String(v.body.msg));
      return String(v.body.voidCode);
    };
    const [cut, plain, later] = [await voidOf('VDEP01'), await voidOf('VDEP02'), await voidOf('VCARD1')];
    const row = (code: string) => t.store.db.selectFrom('void_orders').select(['status', 'step_failures', 'next_step_at']).where('void_code', '=', code).executeTakeFirstOrThrow();
    // `cut`'s 11th attempt was under way when its process was killed: ten failures counted, its due time passed
    // (with a job per attempt, the job's last attempt then failed for good and the void stayed at 0)
    await t.store.db.updateTable('void_orders').set({ step_failures: 10 }).where('void_code', '=', cut).execute();
    await t.store.db.updateTable('void_orders').set({ next_step_at: new Date(t.clock.now().getTime() + 60_000) }).where('void_code', '=', later).execute();
    t.workers.voids.sweepPage = 1;
    assert.equal(await t.workers.voids.sweep(10_000), 2, 'the two due voids, a page each');
    assert.equal((await row(cut)).status, VS.AIRLINE_PROCESSING, 'sent: the airline asked again, not the void left at 0');
    assert.equal((await row(plain)).status, VS.AIRLINE_PROCESSING);
    assert.equal((await row(later)).status, VS.PROCESSING, 'not due yet');
    assert.equal(await t.workers.voids.sweep(10_000), 0, 'nothing due: their looks a poll interval on');
    const calls = await t.store.db.selectFrom('sandbox_refunds').select(['refund_code', 'submit_calls']).where('refund_code', 'in', [cut, plain, later]).orderBy('refund_code').execute();
    assert.deepEqual(calls, [cut, plain].sort().map((c) => ({ refund_code: c, submit_calls: 1 })), 'each sent once, over two pages');
    // a sweep stopped (its job aborted, its process pausing or stopping) sends nothing it has not started
    await t.store.db.updateTable('void_orders').set({ next_step_at: t.clock.now() }).where('void_code', '=', later).execute();
    assert.equal(await t.workers.voids.sweep(10_000, () => false), 0);
    assert.equal((await row(later)).status, VS.PROCESSING);
    await t.store.db.updateTable('void_orders').set({ next_step_at: new Date(t.clock.now().getTime() + 60_000) }).where('void_code', '=', later).execute();
    // a void job of an older build (this app runs no sweep): the void due now, for the sweep to take
    await t.workers.voids.startWorkers();
    await t.workers.queue.send(JOB_VOID_SUBMIT, { voidCode: later }, { singletonKey: `void-submit-${later}` });
    await waitFor('due now', async () => dueMs((await row(later)).next_step_at) <= t.clock.now().getTime());
    assert.equal(await t.workers.voids.sweep(10_000), 1);
    assert.equal((await row(later)).status, VS.AIRLINE_PROCESSING);
  } finally {
    await t.close();
  }
});

test("void.do whose request failed after its void was made: the retry under its Idempotency-Key answers that void, not 813 (found by a review; decision 0008)", async () => {
  const t = await makeTestApp({ world: voidWorld(), clock: voidWorldClock() });
  try {
    const orderNo = await orderNoOfPnr(t.store.db, 'VDEP01');
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const scheduler = t.workers.voids.scheduler;
    const submitted = scheduler.submitted.bind(scheduler);
    scheduler.submitted = () => {
      scheduler.submitted = submitted;
      throw new Error('the process failed after the commit');
    };
    const body = { orderNo, voidOfferId: q.body.voidOfferId };
    const key = { 'idempotency-key': 'void-resumed-1' };
    assert.equal((await call(t.app, '/void.do', body, { headers: key })).http, 500);
    const made = await t.store.db.selectFrom('void_orders').select('void_code').where('order_no', '=', orderNo).executeTakeFirstOrThrow();
    const retry = await call(t.app, '/void.do', body, { headers: key });
    assert.equal(retry.body.status, 0, String(retry.body.msg));
    assert.equal(retry.body.voidCode, made.void_code);
    assert.equal((await call(t.app, '/void.do', body)).body.status, 813, 'without the key: refused as before');
  } finally {
    await t.close();
  }
});

test('void.do whose drawn voidCode another void holds draws another, five times in a row too: the void is made, the other untouched', async () => {
  const t = await makeTestApp({ world: voidWorld(), clock: voidWorldClock() });
  try {
    const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
    const quoted = async (pnr: string) => {
      const q = await call(t.app, '/voidQuotation.do', { orderNo: await orderNoOf(pnr) });
      assert.equal(q.body.status, 0, String(q.body.msg));
      return String(q.body.voidOfferId);
    };
    const first = await call(t.app, '/void.do', { orderNo: await orderNoOf('VDEP01'), voidOfferId: await quoted('VDEP01') });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const taken = String(first.body.voidCode);

    // void.do as the route runs it, with a code generator whose first five draws are the code just taken: a taken
    // code is no move of the order, so it never counts toward the five moves before 814 (as refund.do's)
    const draws = [taken, taken, taken, taken, taken, '209912-0000000001'];
    const deps: VoidDeps = {
      db: t.store.db,
      airlines: createAirlines(t.world, t.store, t.clock),
      clock: t.clock,
      offerTtlMs: 15 * 60_000,
      scheduler: { submitted: () => undefined },
      newVoidCode: () => draws.shift() ?? assert.fail('a seventh code drawn'),
    };
    const second = await submitVoid(deps, { clientId: TEST_CLIENTS.alpha.id }, { orderNo: await orderNoOf('VDEP02'), voidOfferId: await quoted('VDEP02') });
    assert.equal(second.status, 0, second.msg);
    assert.equal(second.voidCode, '209912-0000000001');
    const voids = await t.store.db.selectFrom('void_orders').select(['void_code', 'order_no']).orderBy('void_code').execute();
    assert.deepEqual(voids, [
      { void_code: taken, order_no: await orderNoOf('VDEP01') },
      { void_code: '209912-0000000001', order_no: await orderNoOf('VDEP02') },
    ]);
  } finally {
    await t.close();
  }
});
