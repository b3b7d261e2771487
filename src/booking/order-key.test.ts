// order.do under an Idempotency-Key whose request died (found by a review): a process killed between the order's
// commit and the key's answer left the key pending; a retry after the 5 minutes took it over and booked again —
// two bookings and holds for one key. The key now carries the order number noted before the airline is asked, and
// a retry taking it over answers the recorded order; one whose order was never written books anew (the dead
// request's attempt is the expiry sweep's, decision 0046).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { PLANTED } from '../test-support/planted.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, passenger, verifyFlights } from '../test-support/booking.js';

const [lastA, firstA] = PLANTED.names;

test('a retry that takes over the key of an order.do which died after recording its order answers that order, not a second booking', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact };
    const headers = { 'idempotency-key': 'order-crash-1' };
    const first = await call(t.app, '/order.do', body, { headers });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const key = () => t.store.db.selectFrom('idempotency_keys').select(['http_status', 'response']).where('idem_key', '=', 'order-crash-1').executeTakeFirstOrThrow();
    // as a process killed after the order's commit leaves it: pending, with the order number noted before booking
    await t.store.db.updateTable('idempotency_keys').set({ http_status: 0, response: JSON.stringify({ orderNo: first.body.orderNo }) }).where('idem_key', '=', 'order-crash-1').execute();
    t.clock.advance(5 * 60_000 + 1_000);
    const retry = await call(t.app, '/order.do', body, { headers });
    assert.equal(retry.body.status, 0, String(retry.body.msg));
    assert.deepEqual({ ...retry.body }, { ...first.body }, 'the same answer');
    const held = await t.store.db.selectFrom('sandbox_bookings').select('booking_key').where('booking_key', 'like', '%').execute();
    assert.equal(held.filter((h) => h.booking_key === retry.body.orderNo).length, 1);
    assert.equal(held.length, 1, 'one booking at the airline');
    assert.equal((await key()).http_status, 200, 'the key answers it from now on');
    const again = await call(t.app, '/order.do', body, { headers });
    assert.equal(again.body.orderNo, first.body.orderNo);
  } finally {
    await t.close();
  }
});

test('a retry that takes over the key of an order.do which died before its order was written books anew; the key holds the order number while the airline is asked', async () => {
  const notes: unknown[] = [];
  const t: TestApp = await makeTestApp({
    world: bookingWorld(),
    connectors: (w, books) => {
      const sandbox = new SandboxConnector(w, books);
      const real = sandbox.booking;
      const book = real.book.bind(real);
      real.book = async (req, opts) => {
        notes.push((await t.store.db.selectFrom('idempotency_keys').select('response').where('endpoint', '=', 'order.do').executeTakeFirst())?.response);
        return book(req, opts);
      };
      return [sandbox];
    },
  });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact };
    const headers = { 'idempotency-key': 'order-crash-2' };
    const first = await call(t.app, '/order.do', body, { headers });
    assert.equal(first.body.status, 0, String(first.body.msg));
    // as a process killed while the airline was asked leaves it: pending, its note naming an order never written
    await t.store.db.updateTable('idempotency_keys').set({ http_status: 0, response: JSON.stringify({ orderNo: '1000000000000001' }) }).where('idem_key', '=', 'order-crash-2').execute();
    t.clock.advance(5 * 60_000 + 1_000);
    const retry = await call(t.app, '/order.do', body, { headers });
    assert.equal(retry.body.status, 0, String(retry.body.msg));
    assert.notEqual(retry.body.orderNo, '1000000000000001');
    assert.notEqual(retry.body.orderNo, first.body.orderNo, 'booked anew (the noted number names no order)');
    assert.deepEqual(notes, [{ orderNo: first.body.orderNo }, { orderNo: retry.body.orderNo }], 'noted before each booking');
  } finally {
    await t.close();
  }
});
