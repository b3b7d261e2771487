// orders.ctx_version (migration 0016, decision 0030): every write to what a refund decision reads about an order
// moves that order's version, once per statement, in the writing transaction — whoever writes (this service, a
// worker, another process, an operator's SQL). Kept refund contexts (src/refunds/context-cache.ts) rely on it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql, type RawBuilder } from 'kysely';
import { makeTestApp, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { refundWorld } from '../test-support/refund-world.js';

describe(`order context version (${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let order: string;
  let other: string;
  before(async () => {
    t = await makeTestApp({ world: refundWorld() });
    const byPnr = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
    order = await byPnr('FAM001');
    other = await byPnr('DEP001');
  });
  after(() => t.close());

  const versionOf = async (orderNo: string) =>
    (await t.store.db.selectFrom('orders').select('ctx_version').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).ctx_version;

  /** Runs `write` and answers how far it moved the version of `order` and of `other`. */
  async function moves(write: RawBuilder<unknown>): Promise<[number, number]> {
    const [a, b] = [await versionOf(order), await versionOf(other)];
    await write.execute(t.store.db);
    return [(await versionOf(order)) - a, (await versionOf(other)) - b];
  }

  const o = () => sql.lit(order);
  const writes: Array<[string, () => RawBuilder<unknown>]> = [
    ['orders (any column)', () => sql`update orders set contact_email = contact_email where order_no = ${o()}`],
    ['order_passengers', () => sql`update order_passengers set first_name = first_name where order_no = ${o()}`],
    ['order_segments', () => sql`update order_segments set dep_at = dep_at where order_no = ${o()}`],
    ['tickets', () => sql`update tickets set tax_status_confirmed = tax_status_confirmed where order_no = ${o()}`],
    ['ticket_coupons (through the ticket)', () => sql`update ticket_coupons set status = status where ticket_no in (select ticket_no from tickets where order_no = ${o()})`],
  ];

  for (const [table, write] of writes) {
    test(`a write to ${table} moves its order's version once per statement, and no other order's`, async () => {
      assert.deepEqual(await moves(write()), [1, 0]);
    });
  }

  test('order_ancillaries: inserts, updates and deletes move it too (a new post-ticketing service, a new price, its removal)', async () => {
    const insert = sql`insert into order_ancillaries (order_no, pax_index, segment_index, kind, category, post_order_no, currency, price_minor)
                       values (${o()}, 1, null, 'post', 'StandardCheckInBaggage', 'CTXV1', 'EUR', 3000)`;
    assert.deepEqual(await moves(insert), [1, 0]);
    assert.deepEqual(await moves(sql`update order_ancillaries set price_minor = 3500 where post_order_no = 'CTXV1'`), [1, 0]);
    assert.deepEqual(await moves(sql`delete from order_ancillaries where post_order_no = 'CTXV1'`), [1, 0]);
  });

  test('refunds and voids: a submitted refund, its tickets, its reason (not its status); a write touching no row moves nothing', async () => {
    // refund_orders and refund_tickets rows come from refund.do in other tests; here their triggers directly
    const refundCode = 'RCTXV1';
    const offerId = 'rfo_ctxv1';
    await sql`insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
              select ${offerId}, client_id, order_no, '1', '{}', '[]', '{}', 'used', now(), now() from orders where order_no = ${o()}`.execute(t.store.db);
    assert.deepEqual(await moves(sql`select 1`), [0, 0], 'an offer is not part of the context');
    const insertRefund = sql`insert into refund_orders (refund_code, client_id, order_no, offer_id, reason, status, path, quote_type, refund_method, currency,
                                                        estimated_refund_minor, service_fee_currency, service_fee_minor, details, created_at, updated_at)
                             select ${refundCode}, client_id, order_no, ${offerId}, '1', 0, 'deposit', 'AccurateQuote', 'CashBackToOriginalPayment', 'EUR', 1, 'EUR', 0, '{}', now(), now()
                             from orders where order_no = ${o()}`;
    assert.deepEqual(await moves(insertRefund), [1, 0]);
    const ticket = sql`(select ticket_no from tickets where order_no = ${o()} order by ticket_no limit 1)`;
    assert.deepEqual(await moves(sql`insert into refund_tickets (refund_code, ticket_no, pax_index) values (${refundCode}, ${ticket}, 1)`), [1, 0]);
    assert.deepEqual(await moves(sql`update refund_tickets set live = false where refund_code = ${refundCode}`), [1, 0]);
    // A status move alone is not part of the context (migration 0020): liveness is refund_tickets.live, above.
    assert.deepEqual(await moves(sql`update refund_orders set status = 1, updated_at = now() where refund_code = ${refundCode}`), [0, 0], 'a status move alone moves nothing');
    assert.deepEqual(await moves(sql`update refund_orders set reason = '0' where refund_code = ${refundCode}`), [1, 0], 'a refund\'s reason is part of the context');
    assert.deepEqual(await moves(sql`update refund_orders set reason = reason, status = 4 where refund_code = ${refundCode}`), [0, 0], 'a column named but not changed moves nothing');
    assert.deepEqual(await moves(sql`update void_orders set status = status where order_no = ${o()}`), [0, 0], 'no void row: nothing moved');
    assert.deepEqual(await moves(sql`delete from refund_orders where refund_code = ${refundCode}`), [1, 0], 'its tickets go with it (cascade)');
  });

  test('voids: a void written and its status move it (a live void answers 803, a voided order 818), its due airline call does not (migration 0030)', async () => {
    await sql`insert into void_offers (offer_id, client_id, order_no, quote, expires_at, created_at, used_at)
              select 'vdo_ctxv1', client_id, order_no, '{}', now(), now(), now() from orders where order_no = ${o()}`.execute(t.store.db);
    const insertVoid = sql`insert into void_orders (void_code, client_id, order_no, offer_id, status, path, currency, void_amount_minor, ticket_nos, details, created_at, updated_at)
                           select 'VCTXV1', client_id, order_no, 'vdo_ctxv1', 0, 'deposit', 'EUR', 1, '{}', '{}', now(), now() from orders where order_no = ${o()}`;
    assert.deepEqual(await moves(insertVoid), [1, 0]);
    const v = sql.lit('VCTXV1');
    assert.deepEqual(await moves(sql`update void_orders set next_step_at = now(), step_failures = step_failures + 1, step_error = 'timeout' where void_code = ${v}`), [0, 0], 'its due call is no part of the context');
    assert.deepEqual(await moves(sql`update void_orders set status = 1, next_step_at = now(), step_failures = 0 where void_code = ${v}`), [1, 0], 'its status is');
    assert.deepEqual(await moves(sql`update void_orders set status = status where void_code = ${v}`), [0, 0], 'a column named but not changed moves nothing');
    const before = await versionOf(order);
    await t.store.db.transaction().execute(async (trx) => {
      await sql`update void_orders set status = 3 where void_code = ${v}`.execute(trx);
      await sql`update void_orders set status = 2, next_step_at = null where void_code = ${v}`.execute(trx);
    });
    assert.equal((await versionOf(order)) - before, 1, '1 → 3 → 2 in one transaction: moved once');
    assert.deepEqual(await moves(sql`delete from void_orders where void_code = ${v}`), [1, 0]);
  });

  test('a transaction moves an order once, however many of its tables it writes (migration 0022)', async () => {
    const refundCode = 'RCTXV2';
    const offerId = 'rfo_ctxv2';
    const ticket = sql`(select ticket_no from tickets where order_no = ${o()} order by ticket_no limit 1)`;
    const before = [await versionOf(order), await versionOf(other)];
    await t.store.db.transaction().execute(async (trx) => {
      await sql`insert into refund_offers (offer_id, client_id, order_no, reason, ticket_nos, request, quote, status, expires_at, created_at)
                select ${offerId}, client_id, order_no, '1', '{}', '[]', '{}', 'used', now(), now() from orders where order_no = ${o()}`.execute(trx);
      await sql`insert into refund_orders (refund_code, client_id, order_no, offer_id, reason, status, path, quote_type, refund_method, currency,
                                           estimated_refund_minor, service_fee_currency, service_fee_minor, details, created_at, updated_at)
                select ${refundCode}, client_id, order_no, ${offerId}, '1', 0, 'deposit', 'AccurateQuote', 'CashBackToOriginalPayment', 'EUR', 1, 'EUR', 0, '{}', now(), now()
                from orders where order_no = ${o()}`.execute(trx);
      await sql`insert into refund_tickets (refund_code, ticket_no, pax_index) values (${refundCode}, ${ticket}, 1)`.execute(trx);
      await sql`update order_passengers set first_name = first_name where order_no = ${o()}`.execute(trx);
      // another order written in the same transaction moves too, once
      await sql`update tickets set tax_status_confirmed = tax_status_confirmed where order_no = ${sql.lit(other)}`.execute(trx);
      await sql`update order_segments set dep_at = dep_at where order_no = ${sql.lit(other)}`.execute(trx);
    });
    assert.deepEqual([(await versionOf(order)) - before[0]!, (await versionOf(other)) - before[1]!], [1, 1]);
    // the next transaction moves it again
    assert.deepEqual(await moves(sql`delete from refund_orders where refund_code = ${refundCode}`), [1, 0]);
  });

  test('one statement over two orders moves each of them once', async () => {
    const both = sql`update ticket_coupons set status = status where ticket_no in (select ticket_no from tickets where order_no in (${o()}, ${sql.lit(other)}))`;
    assert.deepEqual(await moves(both), [1, 1]);
  });
});
