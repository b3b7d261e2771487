// pay.do under an Idempotency-Key (found by a review: without one, a retry after a lost success answered 404 "order
// already paid", which the caller reads as a failed payment). The key replays the first final answer, leaves it free
// after an answer that asks for a retry (400, 411), refuses another body, keeps no card number nor CVV, and a retry
// taking over the key of a request that failed after paying answers that payment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { canonicalJson } from '../canonical-json.js';
import { call, makeTestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { CARD_NUMBER, contact, passenger, testCard, verifyFlights } from '../test-support/booking.js';
import { payFingerprint } from './pay.js';

const [lastA, firstA] = PLANTED.names;
const card = testCard;

test('pay.do with Idempotency-Key: one payment, the first answer replayed; 400 and 411 leave the key free; another body 400; no card number kept', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const newOrder = async () => {
      const s = await verifyFlights(t, ['bk-narrow']);
      const o = (await call(t.app, '/order.do', { contact, sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] })).body;
      assert.equal(o.status, 0, String(o.msg));
      return o.orderNo as string;
    };
    const pay = (body: object, key?: string) => call(t.app, '/pay.do', body, key === undefined ? {} : { headers: { 'idempotency-key': key } });

    // two at once and a retry: one payment, the same success three times (decision 0023 amended)
    const orderNo = await newOrder();
    const body = { orderNo, paymentMethod: 3, creditCard: card() };
    const [a, b] = await Promise.all([pay(body, 'pay-1'), pay(body, 'pay-1')]);
    const c = await pay(body, 'pay-1');
    assert.equal(a.body.status, 0, String(a.body.msg));
    assert.equal(b.raw, a.raw, 'the concurrent twin answers the first answer');
    assert.equal(c.raw, a.raw, 'the retry answers the first answer, not 404 "already paid"');
    assert.equal((await pay(body)).body.status, 404, 'without the key: already paid, as the original');
    const tickets = Number((await sql<{ n: number }>`select count(*)::int as n from tickets where order_no = ${orderNo}`.execute(t.store.db)).rows[0]!.n);
    assert.equal(tickets, 1, 'one passenger, tickets issued once');
    // the same key with another body: refused (the pay family's 400), nothing replayed
    const other = await pay({ orderNo, paymentMethod: 1 }, 'pay-1');
    assert.equal(other.body.status, 400);
    assert.match(String(other.body.msg), /different request body/);
    const row = await t.store.db.selectFrom('idempotency_keys').selectAll().where('idem_key', '=', 'pay-1').executeTakeFirstOrThrow();
    const wholeBodyHash = createHash('sha256').update(canonicalJson(body)).digest('hex');
    assert.notEqual(row.request_hash, wholeBodyHash, 'the hash is not of the card number and CVV');
    assert.ok(!JSON.stringify(row).includes(CARD_NUMBER), 'no card number in the key store');

    // 400 (a bad card) then the corrected card under the same key: paid; the refused card's answer is not replayed
    const second = await newOrder();
    const bad = await pay({ orderNo: second, paymentMethod: 3, creditCard: card({ cardCVV: '12' }) }, 'pay-2');
    assert.equal(bad.body.status, 400, String(bad.body.msg));
    const fixed = await pay({ orderNo: second, paymentMethod: 3, creditCard: card() }, 'pay-2');
    assert.equal(fixed.body.status, 0, String(fixed.body.msg));

    // 411 (the sandbox declines this test card, nothing charged: docs/world.md), then another card: paid
    const third = await newOrder();
    const declined = await pay({ orderNo: third, paymentMethod: 3, creditCard: card({ cardNumber: '4000 0000 0000 0002' }) }, 'pay-3');
    assert.equal(declined.body.status, 411, String(declined.body.msg));
    assert.equal((await pay({ orderNo: third, paymentMethod: 3, creditCard: card() }, 'pay-3')).body.status, 0);
  } finally {
    await t.close();
  }
});

test('pay.do: a retry taking over the key of a request that failed after the airline issued (HTTP 500, its key abandoned) answers that payment, not 404', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const orderNo = (await call(t.app, '/order.do', { contact, sessionId: s.sessionId, passengers: [passenger(lastA, firstA)] })).body.orderNo as string;
    const body = { orderNo, paymentMethod: 3, creditCard: card() };
    // The failed request as idempotency.ts leaves it: its key abandoned (-1) from the moment it took it, and the
    // payment it made recorded after that moment.
    const tookKey = new Date(t.clock.now().getTime() - 1000);
    await t.store.db
      .insertInto('idempotency_keys')
      .values({ client_id: TEST_CLIENTS.alpha.id, endpoint: 'pay.do', idem_key: 'pay-lost', request_hash: createHash('sha256').update(canonicalJson(payFingerprint(body))).digest('hex'), http_status: -1, response: 'null', created_at: tookKey })
      .execute();
    assert.equal((await call(t.app, '/pay.do', body)).body.status, 0, 'the payment the failed request made');
    const retry = await call(t.app, '/pay.do', body, { headers: { 'idempotency-key': 'pay-lost' } });
    assert.equal(retry.body.status, 0, String(retry.body.msg));
    assert.deepEqual([retry.body.orderNo, retry.body.orderStatus, retry.body.paymentMethod, retry.body.cardLast4], [orderNo, 2, 3, CARD_NUMBER.slice(-4)]);
    assert.equal((retry.body.paxTicketInfos as unknown[]).length, 1);
    // a payment made before the key was taken is not this request's: another key's retry reads 404
    await sql`update booking_orders set paid_at = ${new Date(tookKey.getTime() - 60_000)} where order_no = ${orderNo}`.execute(t.store.db);
    await sql`update idempotency_keys set http_status = -1 where idem_key = 'pay-lost'`.execute(t.store.db);
    assert.equal((await call(t.app, '/pay.do', body, { headers: { 'idempotency-key': 'pay-lost' } })).body.status, 404);
  } finally {
    await t.close();
  }
});
