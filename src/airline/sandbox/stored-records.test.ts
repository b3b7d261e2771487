// Records of bookings made through the booking chain (sandbox_bookings): one immutable object per row version,
// and a change made by another process (another connector on the same database) shows on the next read.
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { BookingRequest } from '../connector.js';
import { SandboxConnector } from './connector.js';
import { buildWorld } from './world.js';
import { TestClock } from '../../clock.js';
import { openTestStore } from '../../test-support/app.js';
import { testWorld } from '../../test-support/world.js';

const signal = () => AbortSignal.timeout(10_000);

/** Two sandbox airlines on one database, as two API processes on PostgreSQL would be; a frozen clock. */
async function setup(t: TestContext) {
  const clock = new TestClock();
  clock.freeze();
  const world = buildWorld(structuredClone(testWorld()), clock.now(), 'test');
  const store = await openTestStore();
  t.after(() => store.close());
  const a = new SandboxConnector(world, { db: store.db, clock });
  const b = new SandboxConnector(world, { db: store.db, clock });
  const request: BookingRequest = {
    idempotencyKey: 'ORDER-STORED-1',
    clientId: 'alpha',
    carrier: 'XS',
    segments: [
      { flight: { carrier: 'XS', flightNumber: 'XS101', depDate: world.flights.get('out')!.current.dep.toFormat('yyyyMMdd') }, direction: 'out', cabinClass: 1, fareFamily: 'STANDARD' },
    ],
    passengers: [{ ref: 'P1', type: 'ADT', lastName: 'STORED', firstName: 'RECORD', birthday: null, gender: null, document: null }],
    contact: { email: 'stored.record@example.com', phone: null },
    price: { currency: 'EUR', adult: { fareMinor: 20000, taxMinor: 4000 }, child: { fareMinor: 15000, taxMinor: 4000 }, infant: { fareMinor: 2000, taxMinor: 4000 }, feeMinor: 0, feeMode: 'PER_PAX' },
    ancillaries: [],
    ifSeatOccupied: 'STOP_SEAT',
  };
  const booked = await a.booking.book(request, { signal: signal() });
  assert.ok(booked.ok);
  return { store, clock, a, b, world, pnr: booked.record.pnr };
}

describe('sandbox airline: records of stored bookings', () => {
  test('one immutable object per row version; no copy per read', async (t) => {
    const { b, pnr } = await setup(t);
    const first = await b.readRecord('XS', pnr, { signal: signal() });
    assert.equal(first?.status, 'OnHold');
    assert.equal(await b.readRecord('XS', pnr, { signal: signal() }), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.passengers[0]));
  });

  test('ticketing by another process shows on the next read, under a frozen clock (same updated_at)', async (t) => {
    const { a, b, pnr } = await setup(t);
    const onHold = await b.readRecord('XS', pnr, { signal: signal() });
    assert.equal(onHold?.status, 'OnHold');
    assert.deepEqual(onHold.tickets, []);
    const ticketed = await a.booking.issueTickets('XS', pnr, { method: 'deposit', idempotencyKey: 'PAY-1' }, { signal: signal() });
    const seen = await b.readRecord('XS', pnr, { signal: signal() });
    assert.equal(seen?.status, 'Ticketed');
    assert.deepEqual(seen.tickets.map((x) => x.ticketNo), ticketed.tickets.map((x) => x.ticketNo));
    assert.notEqual(seen, onHold);
  });

  test('a card payment (connector contract, issueTickets): charged to its card within its limit; without its card, declined or above the limit nothing is issued', async (t) => {
    const { a, pnr } = await setup(t);
    const card = {
      number: '4111111111111111',
      cvv: '123',
      expiryMonth: 7,
      expiryYear: 2031,
      holderFirstName: 'RECORD',
      holderLastName: 'STORED',
      billing: { country: null, province: null, city: null, postCode: null, address: null },
      reusable: null,
    };
    const issue = (payment: Omit<Parameters<typeof a.booking.issueTickets>[2], 'method' | 'idempotencyKey'>) =>
      a.booking.issueTickets('XS', pnr, { method: 'virtualCard', idempotencyKey: 'PAY-CARD-1', ...payment }, { signal: signal() });
    const refused = async (payment: Parameters<typeof issue>[0], why: RegExp) => {
      await assert.rejects(issue(payment), (err: Error & { kind?: string }) => err.kind === 'rejected' && why.test(err.message));
      assert.equal((await a.readRecord('XS', pnr, { signal: signal() }))?.status, 'OnHold', 'nothing issued');
    };
    await refused({}, /needs its card/);
    await refused({ card: { ...card, number: '4000000000000002' } }, /declined/);
    // the booking costs EUR 240.00 (fare 200, tax 40)
    await refused({ card, limit: { currency: 'EUR', minor: 23_999 } }, /above the card's payment limit/);
    await refused({ card, limit: { currency: 'USD', minor: 100_000 } }, /above the card's payment limit/);
    const ticketed = await issue({ card, limit: { currency: 'EUR', minor: 24_000 } });
    assert.equal(ticketed.status, 'Ticketed');
    assert.equal(ticketed.paymentMethod, 'virtualCard');
    // asked again without the card (the expiry sweep's second ask): the payment taken under the key is answered
    assert.deepEqual((await issue({})).tickets, ticketed.tickets);
  });

  test("a booking whose new PNR another booking has is made again under another (a clash was a 500); none of the world file's PNRs is given", async (t) => {
    const { a, pnr, world: w } = await setup(t);
    const world = [...w.bookings.values()].find((b) => b.record.carrier === 'XS')!.record.pnr;
    const given = [world, pnr, pnr, 'NEWPNR'];
    a.booking.pnrSource = () => given.shift() ?? 'NEVER1';
    const out = w.flights.get('out')!;
    const second = await a.booking.book(
      {
        idempotencyKey: 'ORDER-STORED-2',
        clientId: 'alpha',
        carrier: 'XS',
        segments: [{ flight: { carrier: 'XS', flightNumber: 'XS101', depDate: out.current.dep.toFormat('yyyyMMdd') }, direction: 'out', cabinClass: 1, fareFamily: 'STANDARD' }],
        passengers: [{ ref: 'P1', type: 'ADT', lastName: 'SECOND', firstName: 'BOOKING', birthday: null, gender: null, document: null }],
        contact: { email: 'second.booking@example.com', phone: null },
        price: { currency: 'EUR', adult: { fareMinor: 20000, taxMinor: 4000 }, child: { fareMinor: 15000, taxMinor: 4000 }, infant: { fareMinor: 2000, taxMinor: 4000 }, feeMinor: 0, feeMode: 'PER_PAX' },
        ancillaries: [],
        ifSeatOccupied: 'STOP_SEAT',
      },
      { signal: signal() },
    );
    assert.ok(second.ok);
    assert.equal(second.record.pnr, 'NEWPNR');
    assert.deepEqual(given, [], 'the world PNR skipped, the taken one tried twice');
    assert.equal((await a.readRecord('XS', pnr, { signal: signal() }))?.contact.email, 'stored.record@example.com', 'the first booking untouched');
  });

  test('any UPDATE of the row is a new version, even one that keeps updated_at', async (t) => {
    const { store, b, pnr } = await setup(t);
    assert.equal((await b.readRecord('XS', pnr, { signal: signal() }))?.contact.email, 'stored.record@example.com');
    await sql`update sandbox_bookings set booking = jsonb_set(booking, '{contact,email}', '"changed@example.com"') where pnr = ${pnr}`.execute(store.db);
    assert.equal((await b.readRecord('XS', pnr, { signal: signal() }))?.contact.email, 'changed@example.com');
  });

  test('a row that disappears is no longer answered', async (t) => {
    const { store, b, pnr } = await setup(t);
    assert.ok(await b.readRecord('XS', pnr, { signal: signal() }));
    await sql`delete from sandbox_bookings where pnr = ${pnr}`.execute(store.db);
    assert.equal(await b.readRecord('XS', pnr, { signal: signal() }), null);
  });
});
