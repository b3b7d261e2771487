// The sandbox airline's voids (docs/voids.md "The sandbox airline"): a void of a booking made through the
// chain frees its seats at once (new seat inventory version), follows the refund timeline to voided, shows
// the tickets REFUND, is idempotent on the voidCode, and is refused for good past the issue day or where
// the airline does not void.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ConnectorError, type BookingRequest, type FlightRef } from '../connector.js';
import { SandboxConnector } from './connector.js';
import { buildWorld } from './world.js';
import { TestClock } from '../../clock.js';
import { openTestStore } from '../../test-support/app.js';
import { testWorld } from '../../test-support/world.js';

const opts = () => ({ signal: AbortSignal.timeout(10_000) });

async function setup(t: TestContext, voidWindow: 'sameDay' | 'none' = 'sameDay') {
  const clock = new TestClock();
  clock.freeze();
  const file = structuredClone(testWorld());
  Object.assign(file.airlines.find((a) => a.code === 'XS')!, { voidWindow, homeTimeZone: 'UTC', refundBehaviour: { processingSeconds: 30 } });
  const world = buildWorld(file, clock.now(), 'test');
  const store = await openTestStore();
  t.after(() => store.close());
  const airline = new SandboxConnector(world, { db: store.db, clock });
  const flight: FlightRef = { carrier: 'XS', flightNumber: 'XS101', depDate: world.flights.get('out')!.current.dep.toFormat('yyyyMMdd') };
  const freeSeats = async () => {
    const map = await airline.booking.seatMap('XS', flight, 1, 'STANDARD', opts());
    assert.ok(map.ok);
    return new Set(map.cabins.flatMap((c) => c.seatRows.flatMap((r) => r.seats.filter((s) => !s.occupied).map((s) => `${r.number}${s.column}`))));
  };
  const seat = [...(await freeSeats())][0]!;
  // The seat's own price: the airline refuses a booking at another (decision 0023, re-pricing).
  const seatMap = await airline.booking.seatMap('XS', flight, 1, 'STANDARD', opts());
  assert.ok(seatMap.ok);
  const priced = seatMap.cabins.flatMap((c) => c.seatRows.flatMap((r) => r.seats.map((x) => ({ name: `${r.number}${x.column}`, seat: x })))).find((x) => x.name === seat)!.seat;
  const request: BookingRequest = {
    idempotencyKey: 'ORDER-VOID-1',
    clientId: 'alpha',
    carrier: 'XS',
    segments: [{ flight, direction: 'out', cabinClass: 1, fareFamily: 'STANDARD' }],
    passengers: [{ ref: 'P1', type: 'ADT', lastName: 'SEATED', firstName: 'SAM', birthday: null, gender: null, document: null }],
    contact: { email: 'seated@example.com', phone: null },
    price: { currency: 'EUR', adult: { fareMinor: 20000, taxMinor: 4000 }, child: { fareMinor: 15000, taxMinor: 4000 }, infant: { fareMinor: 2000, taxMinor: 4000 }, feeMinor: 0, feeMode: 'PER_PAX' },
    ancillaries: [{ kind: 'seat', paxRef: 'P1', segmentIndex: 1, seat, priceMinor: priced.priceMinor, currency: priced.currency }],
    ifSeatOccupied: 'STOP_SEAT',
  };
  const booked = await airline.booking.book(request, opts());
  assert.ok(booked.ok, JSON.stringify(booked));
  const record = await airline.booking.issueTickets('XS', booked.record.pnr, { method: 'deposit', idempotencyKey: 'PAY-VOID-1' }, opts());
  const submission = { voidCode: '202611-0000000001', pnr: record.pnr, ticketNos: record.tickets.map((x) => x.ticketNo), currency: 'EUR', paidMinor: 25500 };
  return { clock, airline, flight, seat, freeSeats, record, submission };
}

describe('sandbox airline: voids', () => {
  test('an accepted void frees the seats (new inventory version), then reaches voided; tickets show REFUND; a resend is a duplicate', async (t) => {
    const { clock, airline, flight, seat, freeSeats, record, submission } = await setup(t);
    assert.ok(!(await freeSeats()).has(seat), 'the booked seat is taken');
    const before = await airline.booking.seatMapVersion('XS', flight);

    const receipt = await airline.submitVoid('XS', submission, opts());
    assert.equal(receipt.duplicate, false);
    assert.ok((await freeSeats()).has(seat), 'the seat is free again');
    assert.notEqual(await airline.booking.seatMapVersion('XS', flight), before);

    const again = await airline.submitVoid('XS', submission, opts());
    assert.deepEqual(again, { airlineVoidId: receipt.airlineVoidId, duplicate: true });

    assert.deepEqual(await airline.voidStatus('XS', submission.voidCode, opts()), { state: 'processing' });
    clock.advance(31_000);
    assert.deepEqual(await airline.voidStatus('XS', submission.voidCode, opts()), { state: 'voiding', amountMinor: 25500, currency: 'EUR' });
    clock.advance(30_000);
    assert.deepEqual(await airline.voidStatus('XS', submission.voidCode, opts()), { state: 'voided', amountMinor: 25500, currency: 'EUR' });
    clock.advance(2_000); // past the extraction cache's second
    const shown = await airline.readRecord('XS', record.pnr, opts());
    assert.deepEqual(shown?.tickets.flatMap((x) => x.coupons.map((c) => c.status)), ['REFUND']);
  });

  test('refused for good past the issue day, and by an airline without a void window; unknown voidCode', async (t) => {
    const late = await setup(t);
    late.clock.advance(24 * 3600_000);
    await assert.rejects(late.airline.submitVoid('XS', late.submission, opts()), (err: unknown) => err instanceof ConnectorError && !err.retryable && /deadline/.test(err.message));
    assert.ok(!(await late.freeSeats()).has(late.seat), 'a refused void frees nothing');
    await assert.rejects(late.airline.voidStatus('XS', '202611-0000009999', opts()), (err: unknown) => err instanceof ConnectorError && !err.retryable);

    const none = await setup(t, 'none');
    await assert.rejects(none.airline.submitVoid('XS', none.submission, opts()), (err: unknown) => err instanceof ConnectorError && !err.retryable && /does not void/.test(err.message));
  });
});
