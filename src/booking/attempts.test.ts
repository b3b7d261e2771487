// An order.do's airline booking between the airline's call and the order row (decision 0046; found by a review:
// a failure after the airline booked left a hold that no order named and nothing ever released), and pay.do's
// airline time-out (decision 0023 amended: the tickets may be issued, so the payment stays in progress and the
// expiry sweep settles it; it used to answer 411 "nothing was charged" and put the order back to unpaid).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { ConnectorError } from '../airline/connector.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, passenger, verifyFlights } from '../test-support/booking.js';
import { attemptBecomesOrder, settleStaleAttempts } from './attempts.js';
import { STALE_CALL_MS, type BookingDeps } from './airline-calls.js';
import { createOrder } from './order.js';
import { SeatMapCache } from './seat-cache.js';
import { ChainSessions } from './sessions.js';
import { createAirlines } from '../service.js';
import { createLookToBook } from '../ratelimit/look-to-book.js';
import { TEST_CLIENTS } from '../test-support/world.js';

const [lastA, firstA] = PLANTED.names;

/** What the airline does at the next call: as the world says, or a failure a test asks for. */
let bookMode: 'world' | 'bookedThenTimeout' | 'timeoutBeforeBooking' | 'sweepDuring' = 'world';
/** Whether the carrier's booking connection is gone (a world or configuration change). */
let closed = false;
/** Airline book calls made (order.do's and the sweep's). */
let bookCalls = 0;
/** 'sweepDuring': the sweep started while order.do's airline call returns, and what holds the sweep's own call. */
let sweepRun: Promise<string[]> | null = null;
let orderAnswered: Promise<void> = Promise.resolve();
let releaseMode: 'world' | 'unavailable' = 'world';
let issueMode: 'world' | 'issuedThenTimeout' = 'world';
/** Whether an attempt named each booking when the airline was asked for it. */
const attemptAtCall: boolean[] = [];

describe('order.do bookings without an order, pay.do time-outs', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({
      world: bookingWorld(),
      connectors: (world, books) => {
        const sandbox = new SandboxConnector(world, books);
        const real = sandbox.booking;
        const [book, release, issue] = [real.book.bind(real), real.release.bind(real), real.issueTickets.bind(real)];
        const timeout = () => new ConnectorError('timeout', true, 'the airline did not answer in time');
        real.book = async (req, opts) => {
          bookCalls++;
          if (bookMode === 'sweepDuring' && sweepRun) {
            // the sweep's own call: held until the order.do it raced has answered
            await orderAnswered;
            return book(req, opts);
          }
          attemptAtCall.push((await t.store.db.selectFrom('booking_attempts').select('order_no').where('order_no', '=', req.idempotencyKey).executeTakeFirst()) !== undefined);
          if (bookMode === 'timeoutBeforeBooking') throw timeout();
          const answer = await book(req, opts);
          if (bookMode === 'bookedThenTimeout') throw timeout();
          if (bookMode === 'sweepDuring') {
            // the process stalls past an airline call's time: the sweep takes the attempt before the order is written
            t.clock.advance(STALE_CALL_MS + 1_000);
            sweepRun = t.orderExpiry.settleStaleAttempts();
            for (let i = 0; i < 200; i++) {
              const row = await t.store.db.selectFrom('booking_attempts').select('recovering_since').where('order_no', '=', req.idempotencyKey).executeTakeFirst();
              if (row?.recovering_since) break;
              await new Promise((r) => setTimeout(r, 10));
            }
          }
          return answer;
        };
        real.release = async (carrier, pnr, opts) => {
          if (releaseMode === 'unavailable') throw new ConnectorError('unavailable', true, 'test airline down');
          return release(carrier, pnr, opts);
        };
        real.issueTickets = async (carrier, pnr, payment, opts) => {
          const record = await issue(carrier, pnr, payment, opts);
          if (issueMode === 'issuedThenTimeout') throw timeout();
          return record;
        };
        return [new Proxy(sandbox, { get: (target, prop) => (prop === 'booking' && closed ? undefined : Reflect.get(target, prop, target)) })];
      },
    });
  });
  after(() => t.close());

  const order = async () => {
    const s = await verifyFlights(t, ['bk-narrow']);
    return call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact });
  };
  const attempts = () => t.store.db.selectFrom('booking_attempts').select(['order_no', 'recovering_since']).orderBy('started_at').execute();
  const bookingOf = (key: string) => t.store.db.selectFrom('sandbox_bookings').select('status').where('booking_key', '=', key).executeTakeFirst();
  const heldWithoutOrder = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from sandbox_bookings b where b.status = 'OnHold' and not exists (select 1 from orders o where o.order_no = b.booking_key)`.execute(t.store.db)).rows[0]!.n;

  test('a booked order leaves no attempt behind; the attempt is written before the airline is called', async () => {
    const res = await order();
    assert.equal(res.body.status, 0, String(res.body.msg));
    assert.deepEqual(attemptAtCall, [true], 'written before the call');
    assert.deepEqual(await attempts(), [], 'removed in the order\'s transaction');
    assert.equal(await heldWithoutOrder(), 0);
  });

  test('the order\'s write fails after the airline booked: the hold is released at once, nothing is left (was: held for good)', async () => {
    await sql`create or replace function test_refuse_booking_orders() returns trigger language plpgsql as $$ begin raise exception 'test: booking_orders refused'; end $$`.execute(t.store.db);
    await sql`create trigger test_refuse before insert on booking_orders for each row execute function test_refuse_booking_orders()`.execute(t.store.db);
    try {
      const res = await order();
      assert.notEqual(res.body.status, 0);
      assert.equal(res.http, 500, 'an error of the service');
    } finally {
      await sql`drop trigger test_refuse on booking_orders`.execute(t.store.db);
    }
    assert.equal(await heldWithoutOrder(), 0, 'no airline hold without an order');
    assert.deepEqual(await attempts(), [], 'settled at once');
    const cancelled = await sql<{ n: number }>`select count(*)::int as n from sandbox_bookings b where b.status = 'Cancelled' and not exists (select 1 from orders o where o.order_no = b.booking_key)`.execute(t.store.db);
    assert.equal(cancelled.rows[0]!.n, 1, 'the airline booked it, and released it');
  });

  test('the write fails and the airline does not answer the release: the expiry sweep releases the hold once no call can be under way', async () => {
    await sql`create or replace function test_refuse_booking_orders() returns trigger language plpgsql as $$ begin raise exception 'test: booking_orders refused'; end $$`.execute(t.store.db);
    await sql`create trigger test_refuse before insert on booking_orders for each row execute function test_refuse_booking_orders()`.execute(t.store.db);
    releaseMode = 'unavailable';
    try {
      assert.equal((await order()).http, 500);
    } finally {
      releaseMode = 'world';
      await sql`drop trigger test_refuse on booking_orders`.execute(t.store.db);
    }
    const [left] = await attempts();
    assert.ok(left, 'the attempt names the hold');
    assert.equal((await bookingOf(left.order_no))?.status, 'OnHold');
    assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), [], 'not while its order.do could still be under way');
    t.clock.advance(STALE_CALL_MS + 1_000);
    assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), [left.order_no]);
    assert.equal((await bookingOf(left.order_no))?.status, 'Cancelled');
    assert.deepEqual(await attempts(), []);
    assert.equal(await heldWithoutOrder(), 0);
  });

  test('order.do\'s airline call times out (the airline may have booked): 316, and the sweep releases what it holds under the order number', async () => {
    for (const mode of ['bookedThenTimeout', 'timeoutBeforeBooking'] as const) {
      bookMode = mode;
      let res;
      try {
        res = await order();
      } finally {
        bookMode = 'world';
      }
      assert.equal(res.body.status, 316, String(res.body.msg)); // decision 0023: 316 airline time-out
      assert.match(String(res.body.msg), /released by the service/);
    }
    const [booked, notBooked] = await attempts();
    assert.equal((await bookingOf(booked!.order_no))?.status, 'OnHold', 'held by the airline, no order');
    assert.equal(await bookingOf(notBooked!.order_no), undefined, 'never reached the airline');
    t.clock.advance(STALE_CALL_MS + 1_000);
    assert.deepEqual((await t.orderExpiry.settleStaleAttempts()).sort(), [booked!.order_no, notBooked!.order_no].sort());
    assert.equal((await bookingOf(booked!.order_no))?.status, 'Cancelled');
    // asked again under its key, the airline booked the second now: released too, nothing held
    assert.equal((await bookingOf(notBooked!.order_no))?.status, 'Cancelled');
    assert.equal(await heldWithoutOrder(), 0);
    assert.deepEqual(await attempts(), []);
    assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), [], 'settled once');
  });

  test('the sweep takes the attempt while order.do is still writing (a process stalled past an airline call\'s time): 316, no order is recorded, the hold is released once', async () => {
    bookMode = 'sweepDuring';
    let answered: () => void = () => undefined;
    orderAnswered = new Promise((r) => (answered = r));
    let res;
    try {
      res = await order();
    } finally {
      answered();
      bookMode = 'world';
    }
    const settled = await sweepRun!;
    sweepRun = null;
    assert.equal(res.body.status, 316, String(res.body.msg));
    assert.match(String(res.body.msg), /outlived the airline's time/);
    assert.equal(settled.length, 1);
    const [orderNo] = settled;
    assert.equal(await t.store.db.selectFrom('orders').select('order_no').where('order_no', '=', orderNo!).executeTakeFirst(), undefined, 'no order on a released hold');
    assert.equal((await bookingOf(orderNo!))?.status, 'Cancelled');
    assert.deepEqual(await attempts(), []);
  });

  test('an airline that does not answer the sweep: the attempt backs off (1, 2, 4 … minutes), the carrier is asked once a sweep, then settled when it answers', async () => {
    for (let i = 0; i < 2; i++) {
      bookMode = 'timeoutBeforeBooking';
      try {
        assert.equal((await order()).body.status, 316);
      } finally {
        bookMode = 'world';
      }
    }
    t.clock.advance(STALE_CALL_MS + 1_000);
    bookMode = 'timeoutBeforeBooking';
    try {
      bookCalls = 0;
      assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), []);
      assert.equal(bookCalls, 1, 'one call to the silent carrier in a sweep, not one per attempt');
      const rows = await t.store.db.selectFrom('booking_attempts').select(['tries', 'next_try_at', 'recovering_since']).orderBy('tries', 'desc').execute();
      assert.deepEqual(rows.map((r) => r.tries), [1, 0]);
      assert.ok(new Date(rows[0]!.next_try_at).getTime() >= t.clock.now().getTime() + 59_000, 'backed off a minute');
      assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), []);
      assert.equal(bookCalls, 2, 'the other attempt, then nothing more till the back-off is over');
      assert.deepEqual(await t.orderExpiry.settleStaleAttempts(), []);
      assert.equal(bookCalls, 2);
    } finally {
      bookMode = 'world';
    }
    t.clock.advance(61_000);
    assert.equal((await t.orderExpiry.settleStaleAttempts()).length, 2);
    assert.deepEqual(await attempts(), []);
    assert.equal(await heldWithoutOrder(), 0);
  });

  test('pay.do for a carrier without a booking connection: refused before the payment is claimed (the order stays unpaid); a payment left so is put back to unpaid by the sweep', async () => {
    const o = await order();
    const orderNo = o.body.orderNo as string;
    closed = true;
    try {
      const paid = await call(t.app, '/pay.do', { orderNo });
      assert.equal(paid.body.status, 402, String(paid.body.msg)); // decision 0023: the order's state does not allow payment
      assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo })).body.orderStatus, 0, 'not left ticketing');
      // as an older build left it: 'paying' when the connection went
      await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: t.clock.now(), payment_method: 'deposit' }).where('order_no', '=', orderNo).execute();
      await t.store.db.updateTable('orders').set({ status: '1' }).where('order_no', '=', orderNo).execute();
      t.clock.advance(STALE_CALL_MS + 1_000);
      assert.deepEqual(await t.orderExpiry.settleStalePayments(), [orderNo]);
      assert.equal((await call(t.app, '/queryOrderDetails.do', { orderNo })).body.orderStatus, 0);
    } finally {
      closed = false;
    }
  });

  test('an attempt the sweep took is not recorded as an order by its order.do (the sweep releases its hold)', async () => {
    const clientId = (await t.store.db.selectFrom('clients').select('client_id').executeTakeFirstOrThrow()).client_id;
    const values = (orderNo: string, recovering: Date | null) => ({
      order_no: orderNo,
      client_id: clientId,
      carrier: 'XS',
      request: '{}',
      started_at: t.clock.now(),
      next_try_at: t.clock.now(),
      recovering_since: recovering,
    });
    await t.store.db.insertInto('booking_attempts').values([values('9100000000000001', null), values('9100000000000002', t.clock.now())]).execute();
    assert.equal(await t.store.db.transaction().execute((trx) => attemptBecomesOrder(trx, '9100000000000001')), true);
    assert.equal(await t.store.db.transaction().execute((trx) => attemptBecomesOrder(trx, '9100000000000002')), false, 'taken by the sweep');
    assert.deepEqual((await attempts()).map((a) => a.order_no), ['9100000000000002']);
    await t.store.db.deleteFrom('booking_attempts').execute();
  });

  test('pay.do\'s airline call times out (the tickets may be issued): 406 payment in progress, the order stays ticketing (1), and the sweep settles it (was: 411 "nothing was charged", back to unpaid)', async () => {
    const o = await order();
    const orderNo = o.body.orderNo as string;
    issueMode = 'issuedThenTimeout';
    let paid;
    try {
      paid = await call(t.app, '/pay.do', { orderNo });
    } finally {
      issueMode = 'world';
    }
    assert.equal(paid.body.status, 406, String(paid.body.msg));
    assert.match(String(paid.body.msg), /query the order before paying again/);
    const query = async () => (await call(t.app, '/queryOrderDetails.do', { orderNo })).body;
    assert.equal((await query()).orderStatus, 1, 'ticketing');
    assert.equal((await call(t.app, '/pay.do', { orderNo })).body.status, 406, 'a second payment waits');
    t.clock.advance(STALE_CALL_MS + 1_000);
    assert.deepEqual(await t.orderExpiry.settleStalePayments(), [orderNo]);
    const settled = await query();
    assert.equal(settled.orderStatus, 2, 'paid with the tickets the airline issued');
    assert.ok((settled.paxTicketInfos as Array<{ ticketNos: string[] }>)[0]!.ticketNos.length > 0);
  });
});

test('decision 0046: the sweep reads past a silent airline\'s attempts to the other airlines\' (found by a review: a page of the silent one\'s oldest kept every other orderless hold waiting)', async () => {
  const t = await makeTestApp({});
  try {
    const client = (await t.store.db.selectFrom('clients').select('client_id').executeTakeFirstOrThrow()).client_id;
    const past = new Date(t.clock.now().getTime() - 60 * 60_000);
    // two attempts of the silent airline XA, oldest first, then one of XB; pages of one attempt
    for (const [i, carrier] of ['XA', 'XA', 'XB'].entries()) {
      await t.store.db
        .insertInto('booking_attempts')
        .values({ order_no: `ATT${i}`, client_id: client, carrier, request: JSON.stringify({ carrier }), started_at: past, next_try_at: new Date(past.getTime() + i * 1000) })
        .execute();
    }
    const asked: string[] = [];
    const booking = (carrier: string) => ({
      book: async () => {
        asked.push(carrier);
        if (carrier === 'XA') throw new ConnectorError('timeout', true, 'the airline did not answer in time');
        return { ok: false as const, status: 'rejected' };
      },
    });
    const airlines = { forCarrier: (carrier: string) => ({ booking: booking(carrier) }) } as never;
    const silentLog = { info: () => undefined, warn: () => undefined };
    const settled = await settleStaleAttempts({ db: t.store.db, airlines, clock: t.clock, log: silentLog }, 10_000, 1);
    assert.deepEqual(settled, ['ATT2']);
    assert.deepEqual(asked, ['XA', 'XB'], 'the silent airline once, then the other');
  } finally {
    await t.close();
  }
});

test('order.do whose drawn order number an order or an attempt holds draws another (decision 0061): the others untouched', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const first = await call(t.app, '/order.do', { sessionId: (await verifyFlights(t, ['bk-narrow'])).sessionId, passengers: [passenger(lastA, firstA)], contact });
    assert.equal(first.body.status, 0, String(first.body.msg));
    const taken = String(first.body.orderNo);
    assert.match(taken, /^\d{24}$/);
    // another process's booking in flight under its number
    const inFlight = '000000000000000000000009';
    const now = t.clock.now();
    await t.store.db.insertInto('booking_attempts').values({ order_no: inFlight, client_id: TEST_CLIENTS.alpha.id, carrier: 'XS', request: '{}', started_at: now, next_try_at: new Date(now.getTime() + STALE_CALL_MS), recovering_since: null }).execute();

    // order.do as the route runs it, with a generator whose first draws are the numbers held
    const draws = [taken, inFlight, '000000000000000000000010'];
    const deps: BookingDeps = {
      db: t.store.db,
      airlines: createAirlines(t.world, t.store, t.clock),
      clock: t.clock,
      seatMaps: new SeatMapCache(),
      sessions: new ChainSessions(t.store.db),
      lookToBook: createLookToBook({ db: t.store.db, clock: t.clock }),
      newOrderNo: () => draws.shift() ?? assert.fail('a fourth number drawn'),
    };
    const s = await verifyFlights(t, ['bk-narrow']);
    const ordersOf = () => t.store.db.selectFrom('orders').select(['order_no', 'airline_pnr']).orderBy('order_no').execute();
    const before = await ordersOf();
    assert.ok(before.some((o) => o.order_no === taken));
    const answer = await createOrder(deps, TEST_CLIENTS.alpha.id, { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact });
    assert.ok('orderNo' in answer && answer.status === 0, 'an order made');
    assert.equal(answer.orderNo, '000000000000000000000010');
    const made = await ordersOf();
    assert.deepEqual(made.slice(1), before, 'the orders before untouched');
    assert.equal(made[0]!.order_no, '000000000000000000000010');
    assert.ok(!before.some((o) => o.airline_pnr === made[0]!.airline_pnr), 'a booking of its own');
    assert.deepEqual(await t.store.db.selectFrom('booking_attempts').select(['order_no', 'request']).execute(), [{ order_no: inFlight, request: {} }], 'the attempt in flight untouched');
  } finally {
    await t.close();
  }
});
