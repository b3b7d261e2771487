// A sandbox world reload (the console's sandbox panel, another process's reload followed) reaches what the
// sandbox airline keeps built from the world. Decision 0014: a cached seat map can never show a sold or occupied
// seat as free; the map's version carries the world's generation, and a reload that lands while a map is being
// read must not tag the old world's map with the new generation (found by a review: the generation was read after
// the inventory read's await). A booking made through postbook is read as a record built from the world's
// flights: a reload that moves a flight reaches extractPnr.do (found by the same review); a ticketed booking keeps the
// itinerary it was ticketed on when a reload drops one of its flights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call, makeTestApp } from '../test-support/app.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, passenger, seatOf, seatSegments, verifyFlights } from '../test-support/booking.js';
import { PLANTED } from '../test-support/planted.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { ConnectorError } from '../airline/connector.js';
import { buildWorld } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import type { SeatInventory } from '../airline/sandbox/seat-inventory.js';

test('a world reloaded while a seat map is read: the next request shows the reloaded world\'s occupied seat', async () => {
  let connector: SandboxConnector | undefined;
  const t = await makeTestApp({ world: bookingWorld(), connectors: (world, books) => [(connector = new SandboxConnector(world, books))] });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
    const inventory = (connector!.booking as unknown as { inventory: SeatInventory }).inventory;
    const read = inventory.read.bind(inventory);
    let reloadDuringRead = true;
    inventory.read = async (...args: Parameters<SeatInventory['read']>) => {
      const r = await read(...args);
      if (reloadDuringRead) {
        reloadDuringRead = false;
        // the reload lands while this read is under way: 22F occupied from now on
        const raw = structuredClone<WorldFile>(t.world.raw);
        const f = raw.flights.find((x) => x.id === 'bk-narrow')!;
        f.occupiedSeats = [...(f.occupiedSeats ?? []), '22F'];
        // at the world's own time: past midnight every flight, the session's too, would move a day
        Object.assign(t.world, buildWorld(raw, t.world.resolvedAt, 'reloaded'));
      }
      return r;
    };
    const first = await call(t.app, '/seatAvailability.do', body);
    assert.equal(first.body.status, 0, String(first.body.msg));
    assert.equal(seatOf(first.body.cabins as never, 1, '22F').seatStatus, 'F', 'read from the world before the reload');
    const next = await call(t.app, '/seatAvailability.do', body);
    assert.equal(seatOf(next.body.cabins as never, 1, '22F').seatStatus, 'O', 'the reloaded world: 22F occupied');
  } finally {
    await t.close();
  }
});

test("a world reload that moves a flight reaches the record of a booking made through postbook (extractPnr.do)", async () => {
  const t = await makeTestApp({ world: bookingWorld() });
  try {
    const [last, first] = PLANTED.names;
    const s = await verifyFlights(t, ['bk-narrow-ret']);
    const order = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(last, first)], contact });
    assert.equal(order.body.status, 0, String(order.body.msg));
    assert.equal((await call(t.app, '/pay.do', { orderNo: order.body.orderNo, paymentMethod: 1 })).body.status, 0);
    const pnr = (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', String(order.body.orderNo)).executeTakeFirstOrThrow()).airline_pnr!;
    const extract = () =>
      call(t.app, '/extractPnr.do', { airlinePnr: pnr, carrier: 'XS', passengers: [{ firstName: first, lastName: last }], contact: { email: contact.email }, routing: { fromSegments: [] } });
    const depOf = (res: Awaited<ReturnType<typeof extract>>) => (res.body.routing as { fromSegments: Array<{ depTime: string }> }).fromSegments[0]!.depTime;
    const before = await extract();
    assert.equal(before.body.status, 0, String(before.body.msg));
    const raw = structuredClone<WorldFile>(t.world.raw);
    raw.flights.find((x) => x.id === 'bk-narrow-ret')!.departure = '+9d 21:00';
    Object.assign(t.world, buildWorld(raw, t.clock.now(), 'reloaded'));
    const moved = t.world.flights.get('bk-narrow-ret')!.current.dep;
    const after = await extract();
    assert.equal(after.body.status, 0, String(after.body.msg));
    assert.notEqual(depOf(after), depOf(before));
    assert.match(depOf(after), new RegExp(moved.toFormat('HH:mm')), `the reloaded schedule: ${depOf(after)}`);
  } finally {
    await t.close();
  }
});

test('a booking the airline ticketed keeps its itinerary when a reload drops its flight: a payment left "paying" is settled as paid, not put back to unpaid, and extractPnr.do still finds it (found by a review)', async () => {
  let airline: SandboxConnector | null = null;
  const t = await makeTestApp({ world: bookingWorld(), connectors: (w, books) => [(airline = new SandboxConnector(w, books))] });
  try {
    const [last, first] = PLANTED.names;
    const s = await verifyFlights(t, ['bk-narrow']);
    const order = await call(t.app, '/order.do', { sessionId: s.sessionId, passengers: [passenger(last, first)], contact });
    assert.equal(order.body.status, 0, String(order.body.msg));
    const orderNo = String(order.body.orderNo);
    const pnr = (await t.store.db.selectFrom('orders').select('airline_pnr').where('order_no', '=', orderNo).executeTakeFirstOrThrow()).airline_pnr!;
    // pay.do claimed the payment, the airline ticketed, and the process died before it recorded the tickets
    await t.store.db.updateTable('booking_orders').set({ pay_state: 'paying', paying_since: t.clock.now(), payment_method: 'deposit' }).where('order_no', '=', orderNo).execute();
    await t.store.db.updateTable('orders').set({ status: '1' }).where('order_no', '=', orderNo).execute();
    const issued = await airline!.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: orderNo }, { signal: AbortSignal.timeout(5000) });
    const depAt = issued.segments[0]!.depAt.getTime();
    // then a reload left the flight out of the world
    const raw = structuredClone<WorldFile>(t.world.raw);
    raw.flights = raw.flights.filter((x) => x.id !== 'bk-narrow');
    Object.assign(t.world, buildWorld(raw, t.clock.now(), 'reloaded'));
    assert.equal(t.world.flights.get('bk-narrow'), undefined);

    t.clock.advance(2 * 60_000);
    assert.deepEqual(await t.orderExpiry.settleStalePayments(), [orderNo]);
    const view = (await call(t.app, '/queryOrderDetails.do', { orderNo })).body;
    assert.equal(view.orderStatus, 2, 'paid: the airline had ticketed it');
    const ticketNos = (view.paxTicketInfos as Array<{ ticketNos: string[] }>)[0]!.ticketNos;
    assert.deepEqual(ticketNos, issued.tickets.map((x) => x.ticketNo), 'the tickets the airline issued');

    const record = await airline!.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: orderNo }, { signal: AbortSignal.timeout(5000) });
    assert.equal(record.segments[0]!.scheduleStatus, 'cancelled', 'the flight the world no longer has: cancelled');
    assert.equal(record.segments[0]!.depAt.getTime(), depAt, 'as ticketed');
    const extract = await call(t.app, '/extractPnr.do', {
      airlinePnr: pnr,
      carrier: 'XS',
      passengers: [{ firstName: first, lastName: last }],
      contact: { email: contact.email },
      routing: { fromSegments: [] },
    });
    assert.equal(extract.body.status, 0, String(extract.body.msg));

    // one ticketed before its segments were kept: no record, and an answer to retry, never a refusal to ticket
    await sql`update sandbox_bookings set booking = booking - 'issuedSegments' where carrier = 'XS' and pnr = ${pnr}`.execute(t.store.db);
    await assert.rejects(
      airline!.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: orderNo }, { signal: AbortSignal.timeout(5000) }),
      (err: unknown) => err instanceof ConnectorError && err.kind === 'unavailable' && err.retryable,
    );
  } finally {
    await t.close();
  }
});
