// Order expiry (docs/plans/original-chain.md §7, §8.8; docs/decisions/0023): an unpaid order past its
// tktLimitTime becomes -3 through the job queue, driven by the sandbox clock; the airline's hold is released
// and the seat's flight gets a new inventory version, so the cached seat map shows the seat free at the next
// request; pay.do then answers 401. Both jobs survive a restart.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { call, makeTestApp, openTestStore, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { ConnectorError, type AirlineConnector } from '../airline/connector.js';
import { contact, passenger, seatOf, seatSegments, verifyFlights, type Cabin } from '../test-support/booking.js';
import { backToUnpaid } from './pay.js';

const [lastA, firstA] = PLANTED.names;

/** The other client's verify session per app (one: verify.do is rate-limited per client and minute). */
const watchers = new WeakMap<TestApp, string>();

/** The seat's status in a seat map asked by the other client (its own session), through the seat map cache. */
async function seatStatus(t: TestApp, seat: string): Promise<string> {
  let sessionId = watchers.get(t);
  if (!sessionId) watchers.set(t, (sessionId = (await verifyFlights(t, ['bk-narrow'], [], { adults: 1 }, TEST_CLIENTS.beta)).sessionId));
  const res = await call(t.app, '/seatAvailability.do', { sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) }, { client: TEST_CLIENTS.beta });
  return seatOf(res.body.cabins as Cabin[], 1, seat).seatStatus;
}

/** Orders a seat on bk-narrow; answers the orderNo. */
async function orderSeat(t: TestApp, seat: string): Promise<string> {
  const s = await verifyFlights(t, ['bk-narrow']);
  const cabins = (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) })).body.cabins as Cabin[];
  const res = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: seatOf(cabins, 1, seat).productCode, segmentIndex: 1 }])], contact });
  assert.equal(res.body.status, 0, res.body.msg ?? '');
  return res.body.orderNo as string;
}

/** An app of the booking world whose airline does not answer releases while `down(carrier)`; `released` lists every ask. */
async function appWhoseReleases(down: (carrier: string) => boolean): Promise<{ t: TestApp; released: string[] }> {
  const released: string[] = [];
  const t = await makeTestApp({
    world: bookingWorld(),
    connectors: (w, books) => {
      const airline = new SandboxConnector(w, books);
      const release = airline.booking.release.bind(airline.booking);
      airline.booking.release = async (carrier, pnr, opts) => {
        released.push(carrier);
        if (down(carrier)) throw new ConnectorError('unavailable', true, `${carrier} is down`);
        return release(carrier, pnr, opts);
      };
      return [airline];
    },
  });
  return { t, released };
}

async function until(what: string, check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`${what}: not within ${ms} ms`);
    await sleep(250);
  }
}

const orderStatus = async (t: TestApp, orderNo: string) => (await call(t.app, '/queryOrderDetails.do', { orderNo })).body.orderStatus;

/** Whether the airline's hold of the order is released (read from its books: seat maps are rate-limited). */
const released = async (t: TestApp, orderNo: string) =>
  (await t.store.db.selectFrom('sandbox_bookings').select('status').where('booking_key', '=', orderNo).executeTakeFirstOrThrow()).status === 'Cancelled';

describe('order expiry', () => {
  test('the jobs: past tktLimitTime by the sandbox clock → -3, seat free in the cached map, pay.do 401', async () => {
    const t = await makeTestApp({ world: bookingWorld(), workers: true });
    try {
      const orderNo = await orderSeat(t, '15C');
      assert.equal(await seatStatus(t, '15C'), 'O', 'held by the unpaid order (and the map now cached at that version)');
      t.clock.advance(29 * 60_000);
      await sleep(2500); // two sweeps
      assert.equal(await orderStatus(t, orderNo), 0, 'not before the deadline');
      assert.equal(await seatStatus(t, '15C'), 'O');
      t.clock.advance(2 * 60_000);
      // past the deadline before the sweep ran: 401, and the order not yet said to be cancelled (it still reads 0)
      const early = await call(t.app, '/pay.do', { orderNo });
      if ((await orderStatus(t, orderNo)) === 0) assert.match(String(early.body.msg), /lapses: it shows cancelled \(-3\) within seconds/);
      assert.equal(early.body.status, 401);
      await until('the order lapses', async () => (await orderStatus(t, orderNo)) === -3);
      await until('the airline hold is released', () => released(t, orderNo));
      assert.equal(await seatStatus(t, '15C'), 'F', 'the cached seat map shows the seat free');
      const pay = await call(t.app, '/pay.do', { orderNo });
      assert.equal(pay.body.status, 401, pay.body.msg ?? '');
      assert.match(String(pay.body.msg), /the order is cancelled \(-3\)/, 'lapsed: cancelled');
      const booking = await t.store.db.selectFrom('booking_orders').select('pay_state').where('order_no', '=', orderNo).executeTakeFirstOrThrow();
      assert.equal(booking.pay_state, 'expired');
      const airline = await t.store.db.selectFrom('sandbox_bookings').select('status').where('booking_key', '=', orderNo).executeTakeFirstOrThrow();
      assert.equal(airline.status, 'Cancelled', 'the airline hold is released');
    } finally {
      await t.close();
    }
  });

  test('a paid order never lapses; a swept order is released once (the release is idempotent)', async () => {
    const t = await makeTestApp({ world: bookingWorld() });
    try {
      const paid = await orderSeat(t, '16C');
      assert.equal((await call(t.app, '/pay.do', { orderNo: paid })).body.status, 0);
      const unpaid = await orderSeat(t, '16D');
      t.clock.advance(31 * 60_000);
      assert.deepEqual(await t.orderExpiry.sweep(), [unpaid]);
      assert.deepEqual(await t.orderExpiry.sweep(), [], 'nothing left to expire');
      await t.orderExpiry.release(unpaid);
      await t.orderExpiry.release(unpaid);
      assert.equal(await orderStatus(t, paid), 2);
      assert.equal(await seatStatus(t, '16C'), 'O');
      assert.equal(await seatStatus(t, '16D'), 'F');
    } finally {
      await t.close();
    }
  });

  test('a payment left "paying" by a process that died during the airline\'s ticketing is settled by the sweep: ticketed, or back to unpaid and then lapsed (found by a review: stuck for good, pay.do 406)', async () => {
    let airline: SandboxConnector | null = null;
    const t = await makeTestApp({ world: bookingWorld(), connectors: (w, books) => [(airline = new SandboxConnector(w, books))] });
    try {
      // two orders whose pay.do claimed the payment and died before the airline answered (as the store is left then)
      const ticketed = await orderSeat(t, '17C');
      const refused = await orderSeat(t, '17D');
      // a card payment whose call never reached the airline: the card is not stored, so the sweep's second ask
      // carries none, and the airline takes no card payment without its card (it was ticketed without one)
      const cardLost = await orderSeat(t, '17E');
      const dying = async (orderNo: string, method: 'deposit' | 'virtualCard' = 'deposit') => {
        await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: t.clock.now(), payment_method: method }).where('order_no', '=', orderNo).execute();
        await t.store.db.updateTable('orders').set({ status: '1' }).where('order_no', '=', orderNo).execute();
      };
      await dying(ticketed);
      await dying(refused);
      await dying(cardLost, 'virtualCard');
      // the airline let go of the second's hold meanwhile: it will not ticket it
      const pnr = (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', refused).executeTakeFirstOrThrow()).airline_pnr!;
      assert.equal(await airline!.booking.release('XS', pnr, { signal: AbortSignal.timeout(5000) }), 'released');
      assert.deepEqual(await t.orderExpiry.settleStalePayments(), [], 'not while a pay.do could still be under way');
      assert.equal((await call(t.app, '/pay.do', { orderNo: ticketed })).body.status, 406, 'payment in progress');
      t.clock.advance(2 * 60_000);
      assert.deepEqual((await t.orderExpiry.settleStalePayments()).sort(), [ticketed, refused, cardLost].sort());
      assert.equal(await orderStatus(t, cardLost), 0, 'the card payment the airline never received: back to unpaid, nothing issued');
      const view = (await call(t.app, '/queryOrderDetails.do', { orderNo: ticketed })).body;
      assert.equal(view.orderStatus, 2, 'ticketed under the same idempotency key');
      assert.ok((view.paxTicketInfos as Array<{ ticketNos: string[] }>)[0]!.ticketNos.length > 0, 'its tickets recorded');
      assert.equal(await orderStatus(t, refused), 0, 'back to unpaid');
      assert.deepEqual(await t.orderExpiry.settleStalePayments(), [], 'settled once');
      t.clock.advance(30 * 60_000);
      assert.deepEqual((await t.orderExpiry.sweep()).sort(), [refused, cardLost].sort(), 'then lapse at their deadline');
    } finally {
      await t.close();
    }
  });

  test("a card pay.do that outlives the sweep's limit: the sweep's card-less ask moves it back to unpaid, then the airline's issued answer is recorded — paid, not 406 and lapsed (found by a review)", async () => {
    let interleave = false;
    const t: TestApp = await makeTestApp({
      world: bookingWorld(),
      connectors: (w, books) => {
        const airline = new SandboxConnector(w, books);
        const issue = airline.booking.issueTickets.bind(airline.booking);
        airline.booking.issueTickets = async (carrier, pnr, payment, opts) => {
          if (interleave) {
            // this call is slow: the sweep takes it for lost and asks again, without the card (never stored)
            interleave = false;
            t.clock.advance(2 * 60_000);
            assert.deepEqual((await t.orderExpiry.settleStalePayments()).length, 1);
          }
          return issue(carrier, pnr, payment, opts);
        };
        return [airline];
      },
    });
    try {
      const orderNo = await orderSeat(t, '18A');
      interleave = true;
      const card = { cardNumber: '4111 1111 1111 1111', cardCVV: '123', cardExpireMonth: '12', cardExpireYear: '2031', cardHolderFirstName: firstA, cardHolderLastName: lastA };
      const paid = await call(t.app, '/pay.do', { orderNo, paymentMethod: 3, creditCard: card });
      assert.equal(paid.body.status, 0, String(paid.body.msg));
      assert.equal(await orderStatus(t, orderNo), 2);
      const row = await t.store.db.selectFrom('booking_orders').select(['pay_state', 'payment_method', 'card_last4']).where('order_no', '=', orderNo).executeTakeFirstOrThrow();
      assert.deepEqual(row, { pay_state: 'paid', payment_method: 'virtualCard', card_last4: '1111' });
      t.clock.advance(60 * 60_000);
      assert.deepEqual(await t.orderExpiry.sweep(), [], 'a paid order never lapses');
    } finally {
      await t.close();
    }
  });

  test('an order made just before its flight leaves is payable until the departure, not after it (found by a review: pay.do ticketed a flight that had gone)', async () => {
    let airline: SandboxConnector | null = null;
    const t = await makeTestApp({ world: bookingWorld(), connectors: (w, books) => [(airline = new SandboxConnector(w, books))] });
    try {
      const departure = t.world.flights.get('bk-narrow')!.current.dep.toJSDate();
      t.clock.set(new Date(departure.getTime() - 10 * 60_000));
      const orderNo = await orderSeat(t, '19A');
      const deadline = await t.store.db.selectFrom('booking_orders').select('payment_deadline').where('order_no', '=', orderNo).executeTakeFirstOrThrow();
      assert.equal(new Date(deadline.payment_deadline).getTime(), departure.getTime(), 'held until the departure, not 30 minutes');
      t.clock.advance(15 * 60_000);
      const paid = await call(t.app, '/pay.do', { orderNo });
      assert.equal(paid.body.status, 401, String(paid.body.msg));
      assert.notEqual(await orderStatus(t, orderNo), 2);
      // nor does the airline ticket it when asked after the departure (the sweep's second ask, say)
      const pnr = (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).airline_pnr!;
      await assert.rejects(airline!.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: orderNo }, { signal: AbortSignal.timeout(5000) }), /has departed/);
    } finally {
      await t.close();
    }
  });

  test("an airline that does not answer holds up only its own stale payments: the sweep reads past a page of them to another airline's (found by a review: the 100 oldest were read, and only those)", async () => {
    let issueCalls = 0;
    // carrier QZ: bookable, but its ticketing never answers in time
    const silentAirline = {
      name: 'silent',
      carriers: () => ['QZ'],
      supports: () => true,
      booking: {
        issueTickets: async () => {
          issueCalls++;
          throw new ConnectorError('timeout', true, 'no answer');
        },
      },
    } as unknown as AirlineConnector;
    const t = await makeTestApp({ world: bookingWorld(), connectors: (w, books) => [new SandboxConnector(w, books), silentAirline] });
    try {
      const healthy = await orderSeat(t, '18C');
      await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: t.clock.now(), payment_method: 'deposit' }).where('order_no', '=', healthy).execute();
      await t.store.db.updateTable('orders').set({ status: '1' }).where('order_no', '=', healthy).execute();
      // 150 older payments of QZ left 'paying' (copies of that order's rows, another carrier and PNR each)
      await sql`
        insert into orders
          select (jsonb_populate_record(null::orders, to_jsonb(o) || jsonb_build_object('order_no', 'QZ' || g, 'carrier', 'QZ', 'airline_pnr', 'QZP' || g))).*
          from orders o, generate_series(1, 150) g where o.order_no = ${healthy}`.execute(t.store.db);
      await sql`
        insert into booking_orders
          select (jsonb_populate_record(null::booking_orders, to_jsonb(b) || jsonb_build_object('order_no', 'QZ' || g, 'booking_ref', 'QZR' || g, 'paying_since', ${new Date(t.clock.now().getTime() - 3_600_000).toISOString()}::text))).*
          from booking_orders b, generate_series(1, 150) g where b.order_no = ${healthy}`.execute(t.store.db);
      t.clock.advance(2 * 60_000);
      assert.deepEqual(await t.orderExpiry.settleStalePayments(), [healthy], "the other airline's payment settled");
      assert.equal(issueCalls, 1, 'the silent airline asked once in the sweep');
      assert.equal(await orderStatus(t, healthy), 2);
    } finally {
      await t.close();
    }
  });

  test('a stale payment that cannot be recorded (its ticket number taken) holds up only itself: the airline\'s later ones are settled (found by a review: the oldest held them all, for good); the sandbox numbers tickets from one sequence', async () => {
    let airline: SandboxConnector | null = null;
    const t = await makeTestApp({ world: bookingWorld(), connectors: (w, books) => [(airline = new SandboxConnector(w, books))] });
    try {
      const make = async () => {
        const s = await verifyFlights(t, ['bk-narrow']);
        const o = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact });
        assert.equal(o.body.status, 0, String(o.body.msg));
        return o.body.orderNo as string;
      };
      const [blocked, healthy, other] = [await make(), await make(), await make()];
      // both pay.do's died during the airline's ticketing; the blocked one is the older
      const dying = async (orderNo: string, since: Date) => {
        await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: since, payment_method: 'deposit' }).where('order_no', '=', orderNo).execute();
        await t.store.db.updateTable('orders').set({ status: '1' }).where('order_no', '=', orderNo).execute();
      };
      await dying(blocked, new Date(t.clock.now().getTime() - 1000));
      await dying(healthy, t.clock.now());
      // the airline issued the blocked order's tickets; one of their numbers is already in the store (another order's)
      const pnr = (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', blocked).executeTakeFirstOrThrow()).airline_pnr!;
      const issued = await airline!.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: blocked }, { signal: AbortSignal.timeout(5000) });
      assert.match(issued.tickets[0]!.ticketNo, /^997\d{10}$/);
      await t.store.db.insertInto('tickets').values({ ticket_no: issued.tickets[0]!.ticketNo, order_no: other, pax_index: 1, currency: 'EUR', fare_minor: 1, tax_minor: 0, issued_at: t.clock.now(), tax_status_confirmed: true }).execute();
      t.clock.advance(2 * 60_000);
      const settled = await t.orderExpiry.settleStalePayments();
      assert.deepEqual(settled, [healthy]);
      const states = await t.store.db.selectFrom('booking_orders').select(['order_no', 'pay_state']).where('order_no', 'in', [blocked, healthy]).orderBy('order_no').execute();
      assert.deepEqual(Object.fromEntries(states.map((r) => [r.order_no, r.pay_state])), { [blocked]: 'paying', [healthy]: 'paid' });
      // numbered from one sequence: the next ticket's number follows
      const next = await airline!.booking.issueTickets('XS', (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', other).executeTakeFirstOrThrow()).airline_pnr!, { method: 'deposit', idempotencyKey: other }, { signal: AbortSignal.timeout(5000) });
      assert.ok(BigInt(next.tickets[0]!.ticketNo) > BigInt(issued.tickets[0]!.ticketNo));
    } finally {
      await t.close();
    }
  });

  test('pay.do whose ticketing the sandbox airline cannot answer (a world reload dropped the flight) issues nothing: 411 is true (found by a review: tickets issued, the caller told nothing was charged)', async () => {
    const t = await makeTestApp({ world: bookingWorld() });
    try {
      const s = await verifyFlights(t, ['bk-narrow']);
      const o = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(lastA, firstA)], contact });
      const orderNo = o.body.orderNo as string;
      const flight = t.world.flights.get('bk-narrow')!;
      t.world.flights.delete('bk-narrow');
      const paid = await call(t.app, '/pay.do', { orderNo });
      t.world.flights.set('bk-narrow', flight);
      assert.equal(paid.body.status, 411, String(paid.body.msg));
      const airlineSide = await t.store.db.selectFrom('sandbox_bookings').select('status').where('booking_key', '=', orderNo).executeTakeFirstOrThrow();
      assert.equal(airlineSide.status, 'OnHold', 'nothing issued');
      assert.equal((await call(t.app, '/pay.do', { orderNo })).body.status, 0, 'paid once the flight is back');
    } finally {
      await t.close();
    }
  });

  test('restart: a release job queued before the stop runs after it; the sweep follows the new process clock', async () => {
    const store = await openTestStore();
    // both processes share the job queue's tables (on PostgreSQL a test app otherwise has a schema of its own)
    const jobSchema = store.kind === 'postgres' ? `jq_${process.pid}_restart_${Date.now()}` : undefined;
    let swept: string;
    let later: string;
    const t1 = await makeTestApp({ world: bookingWorld(), store, ...(jobSchema ? { jobSchema } : {}) });
    try {
      swept = await orderSeat(t1, '17C');
      later = await orderSeat(t1, '17D');
      // Workers off in this process: the sweep expires one order and queues its release, nothing runs it.
      await t1.store.db.updateTable('booking_orders').set({ payment_deadline: new Date(t1.clock.now().getTime() + 60 * 60_000) }).where('order_no', '=', later).execute();
      t1.clock.advance(31 * 60_000);
      assert.deepEqual(await t1.orderExpiry.sweep(), [swept]);
      assert.equal(await seatStatus(t1, '17C'), 'O', 'released only by the job');
    } finally {
      await t1.close();
    }
    const t2 = await makeTestApp({ world: bookingWorld(), store, workers: true, ...(jobSchema ? { jobSchema } : {}) });
    try {
      await until('the queued release runs after the restart', () => released(t2, swept));
      assert.equal(await seatStatus(t2, '17C'), 'F');
      assert.equal(await orderStatus(t2, later), 0);
      t2.clock.advance(61 * 60_000);
      await until('the sweep of the new process expires the other order', async () => (await orderStatus(t2, later)) === -3);
      await until('and frees its seat', () => released(t2, later));
      assert.equal(await seatStatus(t2, '17D'), 'F');
    } finally {
      await t2.close();
      if (jobSchema) await sql`drop schema if exists ${sql.id(jobSchema)} cascade`.execute(store.db);
      await store.close();
    }
  });

  test('an airline that does not release an expired order\'s hold is asked again by the sweep, backing off, until it answers (found by a review: five job retries in minutes, then the seats were held for good)', async () => {
    let down = false;
    const { t, released } = await appWhoseReleases(() => down);
    const calls = () => released.length;
    try {
      const orderNo = await orderSeat(t, '19A');
      down = true;
      t.clock.advance(31 * 60_000);
      assert.deepEqual(await t.orderExpiry.sweep(), [orderNo]);
      assert.equal(await t.orderExpiry.release(orderNo), false, 'the job: no answer, backed off');
      assert.deepEqual(await t.orderExpiry.retryReleases(), [], 'not due yet (1 minute)');
      t.clock.advance(61_000);
      assert.deepEqual(await t.orderExpiry.retryReleases(), [], 'due, still down: 2 minutes now');
      const row = await t.store.db.selectFrom('booking_orders').select(['release_tries', 'release_next_try_at']).where('order_no', '=', orderNo).executeTakeFirstOrThrow();
      assert.equal(row.release_tries, 2);
      const wait = new Date(row.release_next_try_at!).getTime() - t.clock.now().getTime();
      assert.ok(wait > 118_000 && wait <= 120_000, `the next look in ${wait} ms`);
      assert.equal(await seatStatus(t, '19A'), 'O', 'still held');
      down = false;
      t.clock.advance(121_000);
      assert.deepEqual(await t.orderExpiry.retryReleases(), [orderNo], 'the airline answers: released');
      assert.equal(await seatStatus(t, '19A'), 'F');
      assert.equal(calls(), 3);
      t.clock.advance(3_600_000);
      assert.deepEqual(await t.orderExpiry.retryReleases(), [], 'settled: not asked again');
      assert.equal(calls(), 3);
    } finally {
      await t.close();
    }
  });

  test('an airline that does not answer holds up only its own releases: the sweep reads past a page of them to another airline\'s; an order paid after it expired is not due (found by a review of this change)', async () => {
    let xiDown = false;
    const { t } = await appWhoseReleases((carrier) => xiDown && carrier === 'XI');
    try {
      // a page and one of XI's orders, expired first (XI holds 45 minutes)
      const xi = await verifyFlights(t, ['bk-noinfant']);
      for (let i = 0; i < 101; i++) {
        const res = await call(t.app, '/order.do', { sessionId: xi.sessionId, passengers: [passenger(lastA, firstA)], contact });
        assert.equal(res.body.status, 0, String(res.body.msg));
      }
      t.clock.advance(46 * 60_000);
      assert.equal((await t.orderExpiry.sweep()).length, 101);
      const xs = await orderSeat(t, '21A');
      t.clock.advance(31 * 60_000);
      assert.deepEqual(await t.orderExpiry.sweep(), [xs]);
      xiDown = true;
      t.clock.advance(2 * 60_000); // every release due (the jobs do not run here)
      assert.deepEqual(await t.orderExpiry.retryReleases(), [xs], 'XS released past a page of silent XI');
      const backedOff = await t.store.db.selectFrom('booking_orders').select((eb) => eb.fn.countAll<string>().as('n')).where('release_tries', '=', 1).executeTakeFirstOrThrow();
      assert.equal(Number(backedOff.n), 1, 'XI asked once in the sweep');
      // an order paid after it expired (a slow card payment's tickets recorded) has nothing to release: settled, not due
      const paid = await t.store.db.selectFrom('booking_orders').select('order_no').where('release_tries', '=', 0).where('pay_state', '=', 'expired').executeTakeFirstOrThrow();
      await t.store.db.updateTable('booking_orders').set({ pay_state: 'paid', release_next_try_at: new Date(t.clock.now().getTime() - 3_600_000) }).where('order_no', '=', paid.order_no).execute();
      const settledNow = await t.orderExpiry.retryReleases();
      assert.ok(settledNow.includes(paid.order_no));
      const row = await t.store.db.selectFrom('booking_orders').select('release_next_try_at').where('order_no', '=', paid.order_no).executeTakeFirstOrThrow();
      assert.equal(row.release_next_try_at, null);
    } finally {
      await t.close();
    }
  });
});

test('the sweep\'s airline parts share one budget under the job\'s expiry, the first of them another at each sweep (found by a review: 15 s each could outrun the 60 s expiry)', async () => {
  const t = await makeTestApp({});
  try {
    const calls: Array<[string, number]> = [];
    const e = t.orderExpiry;
    e.sweep = async () => [];
    e.settleStalePayments = async (until?: number) => (calls.push(['payments', until!]), []);
    e.settleStaleAttempts = async (until?: number) => (calls.push(['attempts', until!]), []);
    e.retryReleases = async (until?: number) => (calls.push(['releases', until!]), []);
    const firsts: string[] = [];
    for (let i = 0; i < 3; i++) {
      calls.length = 0;
      const before = Date.now();
      await e.runSweep();
      firsts.push(calls[0]![0]);
      assert.equal(calls.length, 3);
      assert.equal(new Set(calls.map(([, until]) => until)).size, 1, 'one budget for the three parts');
      // the last call started by then may take two airline time-outs (15 s each): within the job's 60 s
      assert.ok(calls[0]![1] - before <= 20_000 + 50, String(calls[0]![1] - before));
    }
    assert.deepEqual(firsts, ['payments', 'attempts', 'releases']);
  } finally {
    await t.close();
  }
});

test('pay.do\'s settlement back to unpaid from the sweep moves only the payment it read (found by a review)', async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const { sessionId } = await verifyFlights(t, ['bk-noinfant']);
    const booked = await call(t.app, '/order.do', { sessionId, passengers: [passenger(lastA, firstA)], contact });
    assert.equal(booked.body.status, 0, String(booked.body.msg));
    const orderNo = String(booked.body.orderNo);
    const read = new Date(t.clock.now().getTime() - 60_000);
    const live = new Date(t.clock.now().getTime());
    await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: live }).where('order_no', '=', orderNo).execute();
    assert.equal(await backToUnpaid(t.store.db, orderNo, t.clock.now(), read), false, 'a later payment than the one read');
    assert.equal((await t.store.db.selectFrom('booking_orders').select('pay_state').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).pay_state, 'paying');
    assert.equal(await backToUnpaid(t.store.db, orderNo, t.clock.now(), live), true);
  } finally {
    await t.close();
  }
});
