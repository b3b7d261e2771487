// The sandbox airline's refund side: terms from the world, durable idempotent submissions in the service's
// database, the decision and timeline (processing → refunding → refunded; rejected; withdrawn) on the
// service clock, amounts, vouchers, coupons in the record, and the behaviour knobs.
import { after as afterFile, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import { ConnectorError, type AirlineRefundReceipt, type AirlineRefundSubmission } from '../connector.js';
import { SandboxConnector } from './connector.js';
import { percentOfMinor, recordRefunds, recordRefundsIfUnbooked, type NewSandboxRefund } from './refunds.js';
import type { Database } from '../../store/schema.js';
import { buildWorld, loadWorldFile, WorldError } from './world.js';
import type { WorldFile } from './world-schema.js';
import { TestClock } from '../../clock.js';
import type { Store } from '../../store/store.js';
import { openTestStore } from '../../test-support/app.js';
import { testWorld } from '../../test-support/world.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SECOND = 1000;
const signal = () => AbortSignal.timeout(10_000);

/**
 * Books of their own for a test: a database of this file's, its sandbox tables emptied. A database is opened only
 * when every one opened so far is in use (a test comparing two airlines holds two): opening one for each of the
 * ~45 tests cost ~0.5 s of CPU each, most of this file's time.
 */
const openedStores: Store[] = [];
const idleStores: Store[] = [];
afterFile(() => Promise.all(openedStores.map((store) => store.close())));
async function openStoreOfFile(): Promise<Store> {
  const store = await openTestStore();
  openedStores.push(store);
  return store;
}
async function emptyBooks(t: TestContext): Promise<Store> {
  const store = idleStores.pop() ?? (await openStoreOfFile());
  await sql`truncate sandbox_refunds, sandbox_bookings, sandbox_seat_sales, sandbox_seat_versions`.execute(store.db);
  t.after(() => void idleStores.push(store));
  return store;
}

/** Empty books, a frozen test clock, the test world (adjusted) and a sandbox airline keeping its books there. */
async function setup(t: TestContext, mutate: (w: WorldFile) => void = () => {}) {
  const clock = new TestClock();
  clock.freeze();
  const w = structuredClone(testWorld());
  mutate(w);
  const world = buildWorld(w, clock.now(), 'test');
  const store = await emptyBooks(t);
  const sandbox = new SandboxConnector(world, { db: store.db, clock });
  const rows = () => store.db.selectFrom('sandbox_refunds').selectAll().orderBy('refund_code').execute();
  return { clock, world, store, sandbox, rows };
}

/** A refund of TST002 (one adult, EUR 1200.00 + 210.35), accurately quoted at EUR 1000.00. */
function submission(over: Partial<AirlineRefundSubmission> = {}): AirlineRefundSubmission {
  return {
    refundCode: 'RF-0001',
    pnr: 'TST002',
    ticketNos: ['9991000000011'],
    reason: '1',
    currency: 'EUR',
    paidMinor: 141035,
    quotedRefundMinor: 100000,
    isClaim: false,
    ...over,
  };
}

async function rejection(p: Promise<unknown>): Promise<ConnectorError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ConnectorError, `expected a ConnectorError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

/** A sandbox airline without books: enough for its terms and records. */
function bookless(mutate: (w: WorldFile) => void = () => {}) {
  const w = structuredClone(testWorld());
  mutate(w);
  return new SandboxConnector(buildWorld(w, new Date(), 'test'));
}

const airline = (w: WorldFile, code: string) => w.airlines.find((a) => a.code === code)!;
const booking = (w: WorldFile, pnr: string) => w.bookings.find((b) => b.pnr === pnr)!;

/** Adds XV, an airline that refunds in vouchers, with one booking VOU001 (EUR 89.00 + 21.50). */
function voucherAirline(w: WorldFile) {
  w.airlines.push({
    code: 'XV',
    name: 'Voucher Air',
    confirmationDays: 0,
    refundDays: 3,
    fastConfirmation: true,
    refundRules: [
      { ruleType: '0', fareRefundable: true, taxRefundable: true, refundMethod: 'Voucher' },
      { ruleType: '1', fareRefundable: true, taxRefundable: true, penaltyPercent: 10, refundMethod: 'Voucher' },
    ],
  });
  w.flights.push({ id: 'xv', carrier: 'XV', flightNumber: 'XV11', from: 'CDG', to: 'JFK', departure: '+6d 07:15', arrival: '+6d 09:35', aircraft: '320' });
  w.bookings.push({
    pnr: 'VOU001',
    carrier: 'XV',
    status: 'Ticketed',
    contact: { email: 'v@example.com' },
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'VOUCHER', firstName: 'KIM' }],
    segments: [{ flight: 'xv' }],
    paymentMethod: 'deposit',
    tickets: [{ ticketNo: '888-1000000081', passenger: 'a', currency: 'EUR', fare: 89, tax: 21.5, coupons: ['OPEN_FOR_USE'] }],
  });
}

/** Adds a booking JPY001 on XS priced in yen (exponent 0): JPY 48000 + 5600. */
function yenBooking(w: WorldFile) {
  w.bookings.push({
    pnr: 'JPY001',
    carrier: 'XS',
    status: 'Ticketed',
    contact: { email: 'y@example.com' },
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'YEN', firstName: 'JUN' }],
    segments: [{ flight: 'out' }],
    tickets: [{ ticketNo: '999-1000000991', passenger: 'a', currency: 'JPY', fare: 48000, tax: 5600, coupons: ['OPEN_FOR_USE'] }],
  });
}

describe('sandbox airline: refund terms', () => {
  test('from the world airline, with the defaults', () => {
    const sandbox = bookless((w) => {
      airline(w, 'XS').refundRules = [
        { ruleType: '1', passengerType: 'ADT', startMinute: 1440, endMinute: 0, penaltyPercent: 50, fareRefundable: true, taxRefundable: true },
        { ruleType: '4', fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment' },
      ];
    });
    const terms = sandbox.refundTerms('XS');
    assert.deepEqual(terms, {
      carrier: 'XS',
      rules: [
        { airline: 'XS', ruleType: '1', passengerType: 'ADT', startMinute: 1440, endMinute: 0, penaltyPercent: 50, fareRefundable: true, taxRefundable: true },
        { airline: 'XS', ruleType: '4', fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment' },
      ],
      confirmationDays: 2,
      refundDays: 7,
      fastConfirmation: false,
      voidWindow: 'none',
      homeTimeZone: 'UTC',
      refundDeadlineDaysAfterDeparture: null,
      routesWithoutRefund: [],
      oneRefundPerBooking: false,
    });
    assert.equal(sandbox.refundTerms('ZZ'), null);
  });

  test('the refund policy fields of the world airline', () => {
    const sandbox = bookless((w) => {
      Object.assign(airline(w, 'XS'), {
        voidWindow: 'sameDay',
        homeTimeZone: 'Asia/Tokyo',
        fastConfirmation: true,
        refundDeadlineDaysAfterDeparture: 3,
        routesWithoutRefund: ['HND-SGN', 'CDG-JFK'],
        oneRefundPerBooking: true,
      });
    });
    const terms = sandbox.refundTerms('XS')!;
    assert.equal(terms.voidWindow, 'sameDay');
    assert.equal(terms.homeTimeZone, 'Asia/Tokyo');
    assert.equal(terms.fastConfirmation, true);
    assert.equal(terms.refundDeadlineDaysAfterDeparture, 3);
    assert.deepEqual(terms.routesWithoutRefund, ['HND-SGN', 'CDG-JFK']);
    assert.equal(terms.oneRefundPerBooking, true);
    // kept and frozen: the same answer every time, which nobody can change
    assert.equal(sandbox.refundTerms('XS'), terms);
    assert.throws(() => terms.routesWithoutRefund.push('XXX-YYY'), TypeError);
    assert.throws(() => Object.assign(terms.rules[0]!, { penaltyPercent: 1 }), TypeError);
    assert.deepEqual(sandbox.refundTerms('XS')!.routesWithoutRefund, ['HND-SGN', 'CDG-JFK']);
  });

  test('kept per airline of the world: a reloaded world answers its own terms; the world itself stays unfrozen', () => {
    const file = structuredClone(testWorld());
    airline(file, 'XS').refundRules = [{ ruleType: '1', startMinute: 0, endMinute: 0, penaltyPercent: 10, fareRefundable: true, refundableAncillaries: ['CabinBaggage'] }];
    const world = buildWorld(file, new Date(), 'test');
    const sandbox = new SandboxConnector(world);
    const before = sandbox.refundTerms('XS')!;
    const own = world.airlines.get('XS')!;
    assert.equal(Object.isFrozen(own.refundRules), false, "freezing the terms left the world's rules alone");
    assert.equal(Object.isFrozen(own.refundRules[0]), false);
    assert.equal(Object.isFrozen(own.refundRules[0]!.refundableAncillaries), false);
    assert.equal(Object.isFrozen(before.rules[0]!.refundableAncillaries), true);
    // a reload replaces the world's contents with a world built from the file read again (src/console/world.ts,
    // world-share.ts): new airline objects
    const next = structuredClone(file);
    airline(next, 'XS').refundDays = 30;
    Object.assign(world, buildWorld(next, world.resolvedAt, 'test'));
    const after = sandbox.refundTerms('XS')!;
    assert.notEqual(after, before);
    assert.equal(after.refundDays, 30);
    assert.equal(before.refundDays, 7);
  });

  test('taxStatusConfirmed: false only for a ticket marked taxStatusUnconfirmed', async () => {
    const sandbox = bookless();
    const tax = await sandbox.readRecord('XS', 'TAX001', { signal: signal() });
    assert.equal(tax?.tickets[0]?.taxStatusConfirmed, false);
    const plain = await sandbox.readRecord('XS', 'TST001', { signal: signal() });
    assert.deepEqual(
      plain?.tickets.map((x) => x.taxStatusConfirmed),
      [true, true],
    );
  });
});

describe('sandbox airline: submitting refunds', () => {
  test('idempotent on refundCode: the second call is a duplicate, one row, submit_calls 2', async (t) => {
    const { sandbox, rows, clock } = await setup(t);
    const first = await sandbox.submitRefund('XS', submission(), { signal: signal() });
    assert.equal(first.duplicate, false);
    assert.match(first.airlineRefundId, /^XS-RF-[0-9A-F]{12}$/);
    const submittedAt = clock.now();
    clock.advance(5 * SECOND);
    const second = await sandbox.submitRefund('XS', submission(), { signal: signal() });
    assert.deepEqual(second, { airlineRefundId: first.airlineRefundId, duplicate: true });
    const all = await rows();
    assert.equal(all.length, 1);
    const row = all[0]!;
    assert.equal(row.refund_code, 'RF-0001');
    assert.equal(row.submit_calls, 2);
    assert.equal(row.carrier, 'XS');
    assert.equal(row.pnr, 'TST002');
    assert.deepEqual(row.ticket_nos, ['9991000000011']);
    assert.equal(row.paid_minor, 141035);
    assert.equal(row.quoted_refund_minor, 100000);
    assert.equal(row.is_claim, false);
    assert.equal(row.airline_refund_id, first.airlineRefundId);
    // times are the service clock's, not the database's
    assert.equal(new Date(row.submitted_at).getTime(), submittedAt.getTime());
    assert.equal(new Date(row.last_submitted_at).getTime(), submittedAt.getTime() + 5 * SECOND);
  });

  test('a restarted airline (a new connector on the same database) still knows the refundCode', async (t) => {
    const { sandbox, world, store, clock, rows } = await setup(t);
    const first = await sandbox.submitRefund('XS', submission(), { signal: signal() });
    const restarted = new SandboxConnector(world, { db: store.db, clock });
    const again = await restarted.submitRefund('XS', submission(), { signal: signal() });
    assert.deepEqual(again, { airlineRefundId: first.airlineRefundId, duplicate: true });
    assert.equal((await rows()).length, 1);
  });

  test('references come from the books\' sequence: 12 hex digits, later calls higher, one per refund (decision 0060)', async (t) => {
    const { sandbox, store, rows } = await setup(t);
    // A refund recorded by a build before migration 0046, its reference 10 random digits: a resend keeps it.
    await store.db
      .insertInto('sandbox_refunds')
      .values({ refund_code: 'RF-0000', carrier: 'XS', pnr: 'TST002', ticket_nos: JSON.stringify(['9991000000011']), reason: '1', currency: 'EUR', paid_minor: 141035, quoted_refund_minor: null, is_claim: false, airline_refund_id: 'XS-RF-00000000A1', submitted_at: new Date(), last_submitted_at: new Date(), decision: 'reject', cancel_reason: 'test', processing_seconds: 20, refund_minor: null, voucher: false })
      .execute();
    const resent = await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0000' }), { signal: signal() });
    assert.deepEqual(resent, { airlineRefundId: 'XS-RF-00000000A1', duplicate: true });

    const number = (r: AirlineRefundReceipt | Error) => {
      if (r instanceof Error) throw r;
      assert.match(r.airlineRefundId, /^XS-RF-[0-9A-F]{12}$/);
      return BigInt(`0x${r.airlineRefundId.slice('XS-RF-'.length)}`);
    };
    const one = number(await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0009' }), { signal: signal() }));
    const batch = (await sandbox.submitRefunds('XS', [submission({ refundCode: 'RF-0003' }), submission({ refundCode: 'RF-0002' })], { signal: signal() })).map(number);
    const again = number(await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0001' }), { signal: signal() }));
    assert.equal(new Set([one, ...batch, again]).size, 4);
    assert.ok(batch.every((n) => n > one && n < again), `${one} < ${batch.join(', ')} < ${again}`);
    assert.equal((await rows()).length, 5);
  });

  test('50 concurrent submits of one refundCode: one row, one first receipt, submit_calls 50', async (t) => {
    const { sandbox, rows } = await setup(t);
    const receipts = await Promise.all(Array.from({ length: 50 }, () => sandbox.submitRefund('XS', submission(), { signal: signal() })));
    assert.equal(receipts.filter((r) => !r.duplicate).length, 1);
    assert.equal(new Set(receipts.map((r) => r.airlineRefundId)).size, 1);
    const all = await rows();
    assert.equal(all.length, 1);
    assert.equal(all[0]!.submit_calls, 50);
  });

  test('a refundCode already recorded for another booking is refused, not retryable', async (t) => {
    const { sandbox, rows } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    const err = await rejection(sandbox.submitRefund('XS', submission({ pnr: 'TST001', ticketNos: ['9991000000001'] }), { signal: signal() }));
    assert.equal(err.kind, 'rejected');
    assert.equal(err.retryable, false);
    const all = await rows();
    assert.equal(all.length, 1);
    assert.equal(all[0]!.submit_calls, 1);
  });

  test('refused before anything is recorded: unknown carrier, PNR or ticket; no ticket; refunds not supported', async (t) => {
    const { sandbox, rows } = await setup(t, (w) => {
      airline(w, 'XN').supports = { claims: false, refunds: false };
    });
    const cases: Array<[string, AirlineRefundSubmission]> = [
      ['ZZ', submission()],
      ['XS', submission({ pnr: 'NOPE99' })],
      ['XS', submission({ ticketNos: ['9991000000001'] })], // a ticket of TST001
      ['XS', submission({ ticketNos: [] })],
      ['XS', submission({ refundCode: '' })],
      ['XS', submission({ currency: 'XXZ' })],
      ['XN', submission({ pnr: 'NOCLM1', ticketNos: ['7771000000091'] })],
    ];
    for (const [carrier, s] of cases) {
      const err = await rejection(sandbox.submitRefund(carrier, s, { signal: signal() }));
      assert.equal(err.kind, 'rejected', `${carrier} ${JSON.stringify(s)}`);
      assert.equal(err.retryable, false);
    }
    assert.equal((await rows()).length, 0);
  });

  test('ticket numbers are accepted with or without the dash', async (t) => {
    const { sandbox, rows } = await setup(t);
    await sandbox.submitRefund('XS', submission({ ticketNos: ['999-1000000011'] }), { signal: signal() });
    assert.deepEqual((await rows())[0]!.ticket_nos, ['9991000000011']);
  });

  test('without its books (no database) the airline refuses refunds but still publishes its terms', async () => {
    const sandbox = bookless();
    assert.equal(sandbox.refundTerms('XS')?.carrier, 'XS');
    const err = await rejection(sandbox.submitRefund('XS', submission(), { signal: signal() }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, false);
    assert.equal((await sandbox.readRecord('XS', 'TST002', { signal: signal() }))?.pnr, 'TST002');
  });
});

describe('sandbox airline: decision and timeline on the service clock', () => {
  test('accepted: processing → refunding → refunded (default 20 s per step), the quoted amount', async (t) => {
    const { sandbox, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    const status = () => sandbox.refundStatus('XS', 'RF-0001', { signal: signal() });
    assert.deepEqual(await status(), { state: 'processing' });
    clock.advance(20 * SECOND - 1);
    assert.deepEqual(await status(), { state: 'processing' });
    clock.advance(1);
    assert.deepEqual(await status(), { state: 'refunding', amountMinor: 100000, currency: 'EUR' });
    clock.advance(20 * SECOND - 1);
    assert.equal((await status()).state, 'refunding');
    clock.advance(1);
    assert.deepEqual(await status(), { state: 'refunded', amountMinor: 100000, currency: 'EUR', voucherCode: null, method: 'CashBackToOriginalPayment' });
    clock.advance(30 * 24 * 3600 * SECOND);
    assert.equal((await status()).state, 'refunded');
  });

  test('the timeline counts from the first submission, not from a retry', async (t) => {
    const { sandbox, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    clock.advance(15 * SECOND);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    clock.advance(5 * SECOND);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunding');
  });

  test('processingSeconds and the decision is the airline\'s at submission: a later world does not change it', async (t) => {
    const { sandbox, clock, world, store } = await setup(t, (w) => {
      airline(w, 'XS').refundBehaviour = { processingSeconds: 5 };
    });
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    clock.advance(5 * SECOND);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunding');
    const w2 = structuredClone(world.raw);
    airline(w2, 'XS').refundBehaviour = { decision: 'reject', processingSeconds: 600 };
    const reloaded = new SandboxConnector(buildWorld(w2, world.resolvedAt, 'test'), { db: store.db, clock });
    clock.advance(5 * SECOND);
    assert.equal((await reloaded.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunded');
  });

  test('processingSeconds 0: refunded at once', async (t) => {
    const { sandbox } = await setup(t, (w) => {
      airline(w, 'XS').refundBehaviour = { processingSeconds: 0 };
    });
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunded');
  });

  test('rejected (booking-level refundBehaviour): processing, then rejected with its cancelReason, for good', async (t) => {
    const { sandbox, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission({ pnr: 'REJ001', ticketNos: ['9991000000111'], paidMinor: 12000, quotedRefundMinor: 12000 }), { signal: signal() });
    // the same airline accepts its other bookings
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002' }), { signal: signal() });
    const status = (code: string) => sandbox.refundStatus('XS', code, { signal: signal() });
    assert.deepEqual(await status('RF-0001'), { state: 'processing' });
    clock.advance(20 * SECOND);
    assert.deepEqual(await status('RF-0001'), { state: 'rejected', cancelReason: 'voluntary cancellation is non-refundable' });
    assert.equal((await status('RF-0002')).state, 'refunding');
    clock.advance(3600 * SECOND);
    assert.deepEqual(await status('RF-0001'), { state: 'rejected', cancelReason: 'voluntary cancellation is non-refundable' });
  });

  test('rejected with the default cancelReason when the world gives none', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      airline(w, 'XS').refundBehaviour = { decision: 'reject' };
    });
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    clock.advance(20 * SECOND);
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() }), { state: 'rejected', cancelReason: 'does not match airline policy' });
  });

  test('withdrawn: a refund claim is withdrawn; the same decision rejects a refund that is not a claim', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      booking(w, 'TST002').refundBehaviour = { decision: 'withdraw' };
    });
    await sandbox.submitRefund('XS', submission({ pnr: 'WDR001', ticketNos: ['9991000000121'], isClaim: true }), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002', isClaim: true }), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0003', pnr: 'WDR001', ticketNos: ['9991000000121'], isClaim: false }), { signal: signal() });
    const status = (code: string) => sandbox.refundStatus('XS', code, { signal: signal() });
    assert.deepEqual(await status('RF-0001'), { state: 'processing' });
    clock.advance(20 * SECOND);
    assert.deepEqual(await status('RF-0001'), { state: 'withdrawn', cancelReason: 'refund request cancelled by the user' });
    assert.deepEqual(await status('RF-0002'), { state: 'withdrawn', cancelReason: 'refund request cancelled by the user' });
    assert.deepEqual(await status('RF-0003'), { state: 'rejected', cancelReason: 'refund request cancelled by the user' });
  });

  test('oneRefundPerBooking: a second refund of the booking is rejected as a duplicate refund record', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      airline(w, 'XS').oneRefundPerBooking = true;
    });
    const one = { pnr: 'TST001', ticketNos: ['9991000000001'], paidMinor: 56540, quotedRefundMinor: 50000 };
    await sandbox.submitRefund('XS', submission(one), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ ...one, refundCode: 'RF-0002', ticketNos: ['9991000000002'] }), { signal: signal() });
    // another booking is not affected
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0003' }), { signal: signal() });
    clock.advance(20 * SECOND);
    const status = (code: string) => sandbox.refundStatus('XS', code, { signal: signal() });
    assert.equal((await status('RF-0001')).state, 'refunding');
    assert.deepEqual(await status('RF-0002'), { state: 'rejected', cancelReason: 'duplicate refund record' });
    assert.equal((await status('RF-0003')).state, 'refunding');
  });

  test('a ticket the airline already accepted a refund for is refused as a duplicate; after a rejection it may be tried again', async (t) => {
    const { sandbox, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002' }), { signal: signal() });
    clock.advance(20 * SECOND);
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0002', { signal: signal() }), { state: 'rejected', cancelReason: 'duplicate refund record' });
    const rejectedFirst = await setup(t, (w) => {
      booking(w, 'TST002').refundBehaviour = { decision: 'reject' };
    });
    await rejectedFirst.sandbox.submitRefund('XS', submission(), { signal: signal() });
    assert.equal((await rejectedFirst.rows())[0]!.decision, 'reject');
  });

  test('unknown refundCode, or one of another carrier: rejected, not retryable', async (t) => {
    const { sandbox } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    for (const [carrier, code] of [
      ['XS', 'RF-NOPE'],
      ['XN', 'RF-0001'],
      ['ZZ', 'RF-0001'],
    ] as const) {
      const err = await rejection(sandbox.refundStatus(carrier, code, { signal: signal() }));
      assert.equal(err.kind, 'rejected', `${carrier} ${code}`);
      assert.equal(err.retryable, false);
    }
  });
});

describe('sandbox airline: amounts', () => {
  test('accurate quote × payPercentOfQuote, rounded half-up to minor units', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      airline(w, 'XS').refundBehaviour = { payPercentOfQuote: 90 };
    });
    await sandbox.submitRefund('XS', submission({ quotedRefundMinor: 10005 }), { signal: signal() });
    clock.advance(20 * SECOND);
    // 10005 × 0.9 = 9004.5 → 9005
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() }), { state: 'refunding', amountMinor: 9005, currency: 'EUR' });
    clock.advance(20 * SECOND);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunded');
  });

  test('CannotQuote: the airline pays cannotQuotePercentOfPaid of what the tickets cost (default 80 %)', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      booking(w, 'TST001').refundBehaviour = { cannotQuotePercentOfPaid: 33.3 };
    });
    await sandbox.submitRefund('XS', submission({ quotedRefundMinor: null }), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002', pnr: 'TST001', ticketNos: ['9991000000001'], paidMinor: 56540, quotedRefundMinor: null }), { signal: signal() });
    clock.advance(40 * SECOND);
    // 141035 × 0.8 = 112828
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() }), { state: 'refunded', amountMinor: 112828, currency: 'EUR', voucherCode: null, method: 'CashBackToOriginalPayment' });
    // 56540 × 0.333 = 18827.82 → 18828
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0002', { signal: signal() }), { state: 'refunded', amountMinor: 18828, currency: 'EUR', voucherCode: null, method: 'CashBackToOriginalPayment' });
  });

  test('JPY (exponent 0): whole yen, half-up', async (t) => {
    const { sandbox, clock } = await setup(t, (w) => {
      yenBooking(w);
      booking(w, 'JPY001').refundBehaviour = { payPercentOfQuote: 50, cannotQuotePercentOfPaid: 55 };
    });
    const yen = { pnr: 'JPY001', ticketNos: ['9991000000991'], currency: 'JPY', paidMinor: 53600 };
    await sandbox.submitRefund('XS', submission({ ...yen, quotedRefundMinor: 48001 }), { signal: signal() });
    await sandbox.submitRefund('XS', submission({ ...yen, refundCode: 'RF-0002', quotedRefundMinor: null }), { signal: signal() });
    clock.advance(20 * SECOND);
    // 48001 × 0.5 = 24000.5 → 24001
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() }), { state: 'refunding', amountMinor: 24001, currency: 'JPY' });
    // a second refund of the same ticket is a duplicate
    assert.equal((await sandbox.refundStatus('XS', 'RF-0002', { signal: signal() })).state, 'rejected');
  });

  test('percentOfMinor: exact decimal arithmetic, one half-up rounding', () => {
    assert.equal(percentOfMinor(1, 50, 'EUR'), 1); // 0.5 → 1
    assert.equal(percentOfMinor(3, 50, 'EUR'), 2); // 1.5 → 2
    assert.equal(percentOfMinor(10005, 90, 'EUR'), 9005);
    assert.equal(percentOfMinor(53600, 55, 'JPY'), 29480);
    assert.equal(percentOfMinor(48001, 50, 'JPY'), 24001);
    assert.equal(percentOfMinor(12345, 100, 'KWD'), 12345);
    assert.equal(percentOfMinor(12345, 0, 'USD'), 0);
    assert.equal(percentOfMinor(1000, 12.345, 'EUR'), 123); // 123.45 → 123
    assert.equal(percentOfMinor(1000, 12.35, 'EUR'), 124); // 123.5 → 124
    assert.equal(percentOfMinor(100_000_000, 0.0000001, 'EUR'), 0); // 0.1 → 0, no exponent notation
    // float arithmetic would give 0.285 × 100 = 28.499999999999996 → 28
    assert.equal(percentOfMinor(57, 50, 'EUR'), 29);
    assert.throws(() => percentOfMinor(-1, 50, 'EUR'), RangeError);
  });
});

describe('sandbox airline: vouchers and the record', () => {
  test('an airline whose rule refunds in vouchers: refunded with voucherCode V-<airlineRefundId>', async (t) => {
    const { sandbox, clock } = await setup(t, voucherAirline);
    const receipt = await sandbox.submitRefund(
      'XV',
      submission({ pnr: 'VOU001', ticketNos: ['8881000000081'], paidMinor: 11050, quotedRefundMinor: 10160 }),
      { signal: signal() },
    );
    clock.advance(20 * SECOND);
    assert.deepEqual(await sandbox.refundStatus('XV', 'RF-0001', { signal: signal() }), { state: 'refunding', amountMinor: 10160, currency: 'EUR' });
    clock.advance(20 * SECOND);
    assert.deepEqual(await sandbox.refundStatus('XV', 'RF-0001', { signal: signal() }), {
      state: 'refunded',
      amountMinor: 10160,
      currency: 'EUR',
      voucherCode: `V-${receipt.airlineRefundId}`,
      method: 'Voucher',
    });
  });

  test('after refunded, readRecord shows the refunded ticket\'s coupons as REFUND; other tickets untouched', async (t) => {
    const { sandbox, clock } = await setup(t);
    const coupons = async () =>
      (await sandbox.readRecord('XS', 'TST001', { signal: signal() }))!.tickets.map((x) => [x.ticketNo, x.coupons.map((c) => c.status)]);
    await sandbox.submitRefund('XS', submission({ pnr: 'TST001', ticketNos: ['9991000000001'], paidMinor: 56540, quotedRefundMinor: 50000 }), { signal: signal() });
    const open = [
      ['9991000000001', ['OPEN_FOR_USE', 'OPEN_FOR_USE']],
      ['9991000000002', ['OPEN_FOR_USE', 'OPEN_FOR_USE']],
    ];
    assert.deepEqual(await coupons(), open);
    clock.advance(20 * SECOND);
    assert.deepEqual(await coupons(), open, 'refunding: not yet');
    clock.advance(20 * SECOND);
    assert.deepEqual(await coupons(), [
      ['9991000000001', ['REFUND', 'REFUND']],
      ['9991000000002', ['OPEN_FOR_USE', 'OPEN_FOR_USE']],
    ]);
  });

  test('a rejected refund leaves the coupons open', async (t) => {
    const { sandbox, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission({ pnr: 'REJ001', ticketNos: ['9991000000111'], paidMinor: 12000, quotedRefundMinor: 12000 }), { signal: signal() });
    clock.advance(3600 * SECOND);
    const record = await sandbox.readRecord('XS', 'REJ001', { signal: signal() });
    assert.deepEqual(record!.tickets[0]!.coupons.map((c) => c.status), ['OPEN_FOR_USE']);
  });
});

describe('sandbox airline: behaviour knobs on refunds', () => {
  test('failure "error" on the booking: submitRefund fails retryable (unavailable), nothing recorded', async (t) => {
    const { sandbox, rows } = await setup(t);
    const err = await rejection(sandbox.submitRefund('XS', submission({ pnr: 'FAIL01', ticketNos: ['9991000000061'] }), { signal: signal() }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal((await rows()).length, 0);
  });

  test('failure "timeout": the airline never answers, the signal ends the wait (timeout, retryable)', async (t) => {
    const { sandbox, rows } = await setup(t);
    const start = performance.now();
    const err = await rejection(sandbox.submitRefund('XS', submission({ pnr: 'HANG01', ticketNos: ['9991000000071'] }), { signal: AbortSignal.timeout(50) }));
    assert.equal(err.kind, 'timeout');
    assert.equal(err.retryable, true);
    assert.ok(performance.now() - start < 2_000);
    assert.equal((await rows()).length, 0);
  });

  test('airline latency applies to submitRefund and refundStatus, cut short by the signal', async (t) => {
    const { sandbox } = await setup(t); // XT answers in 5 s
    const slow = submission({ pnr: 'SLOW01', ticketNos: ['6661000000081'], currency: 'USD', paidMinor: 70000, quotedRefundMinor: 60000 });
    const err = await rejection(sandbox.submitRefund('XT', slow, { signal: AbortSignal.timeout(50) }));
    assert.equal(err.kind, 'timeout');
    const status = await rejection(sandbox.refundStatus('XT', 'RF-0001', { signal: AbortSignal.timeout(50) }));
    assert.equal(status.kind, 'timeout', 'an unknown code on a slow airline costs the latency too');
  });

  test('a latency the caller waits out: the refund is recorded and answered', async (t) => {
    const { sandbox } = await setup(t, (w) => {
      airline(w, 'XT').behaviour = { latencyMs: 100 };
    });
    const slow = submission({ pnr: 'SLOW01', ticketNos: ['6661000000081'], currency: 'USD', paidMinor: 70000, quotedRefundMinor: 60000 });
    const start = performance.now();
    const receipt = await sandbox.submitRefund('XT', slow, { signal: signal() });
    assert.equal(receipt.duplicate, false);
    assert.deepEqual(await sandbox.refundStatus('XT', 'RF-0001', { signal: signal() }), { state: 'processing' });
    assert.ok(performance.now() - start >= 195);
  });

  test('airline failure "error": refundStatus fails retryable after the refund was recorded', async (t) => {
    const { sandbox, store, world, clock } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    const w2 = structuredClone(world.raw);
    airline(w2, 'XS').behaviour = { failure: 'error' };
    const failing = new SandboxConnector(buildWorld(w2, world.resolvedAt, 'test'), { db: store.db, clock });
    const err = await rejection(failing.refundStatus('XS', 'RF-0001', { signal: signal() }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
  });
});

describe('sandbox airline: a batch of refunds (submitRefunds)', () => {
  /** A sandbox airline whose books count the statements run on them. */
  async function counted(t: TestContext, mutate: (w: WorldFile) => void = () => {}) {
    const base = await setup(t, mutate);
    let statements = 0;
    const plugin: KyselyPlugin = {
      transformQuery: (a) => a.node,
      transformResult: async (a) => {
        statements++;
        return a.result;
      },
    };
    const sandbox = new SandboxConnector(base.world, { db: base.store.db.withPlugin(plugin), clock: base.clock });
    return { ...base, sandbox, statements: () => statements };
  }

  /** An outcome as comparable data: a receipt's duplicate flag and which recorded refund it names, or the error. */
  async function shown(outcome: AirlineRefundReceipt | Error, rows: () => Promise<Array<{ refund_code: string; airline_refund_id: string }>>) {
    if (outcome instanceof ConnectorError) return { error: outcome.kind, retryable: outcome.retryable, message: outcome.message };
    if (outcome instanceof Error) return { error: outcome.message };
    const row = (await rows()).find((r) => r.airline_refund_id === outcome.airlineRefundId);
    return { duplicate: outcome.duplicate, refundCode: row?.refund_code ?? 'no such refund' };
  }

  /**
   * `list` submitted at once to `batched` and one by one to `oneByOne`, each outcome compared: the statements the batch
   * cost, and its outcomes shown.
   */
  async function againstOneByOne(batched: Awaited<ReturnType<typeof counted>>, oneByOne: Awaited<ReturnType<typeof setup>>, list: AirlineRefundSubmission[]) {
    const before = batched.statements();
    const outcomes = await batched.sandbox.submitRefunds('XS', list, { signal: signal() });
    const statements = batched.statements() - before;
    const expected: Array<AirlineRefundReceipt | Error> = [];
    for (const s of list) expected.push(await oneByOne.sandbox.submitRefund('XS', s, { signal: signal() }).catch((err: Error) => err));
    const got = await Promise.all(outcomes.map((o) => shown(o, batched.rows)));
    assert.deepEqual(got, await Promise.all(expected.map((o) => shown(o, oneByOne.rows))));
    return { statements, got };
  }

  // Against RF-0001 already received for TST002: a resend of it, a new refund, another refund of the same
  // ticket (a duplicate refund record), a refund the airline rejects, one whose booking fails (retryable), one
  // naming a ticket of another booking (refused for good), the new refund again, RF-0001 for another booking.
  const batch: AirlineRefundSubmission[] = [
    submission(),
    submission({ refundCode: 'RF-0002', pnr: 'TST001', ticketNos: ['9991000000001'], paidMinor: 56540, quotedRefundMinor: 50000 }),
    submission({ refundCode: 'RF-0003', pnr: 'TST001', ticketNos: ['999-1000000001'], paidMinor: 56540, quotedRefundMinor: 50000 }),
    submission({ refundCode: 'RF-0004', pnr: 'REJ001', ticketNos: ['9991000000111'], paidMinor: 12000, quotedRefundMinor: 12000 }),
    submission({ refundCode: 'RF-0005', pnr: 'FAIL01', ticketNos: ['9991000000061'] }),
    submission({ refundCode: 'RF-0006', pnr: 'TST001', ticketNos: ['9991000000011'] }),
    submission({ refundCode: 'RF-0002', pnr: 'TST001', ticketNos: ['9991000000001'], paidMinor: 56540, quotedRefundMinor: 50000 }),
    submission({ pnr: 'TST001', ticketNos: ['9991000000001'] }),
  ];

  test('each refund answered as submitRefund one after the other would answer it; books that know the batch: one read and one write', async (t) => {
    const batched = await counted(t);
    const oneByOne = await setup(t);
    for (const airline of [batched, oneByOne]) await airline.sandbox.submitRefund('XS', submission(), { signal: signal() });
    batched.clock.advance(5 * SECOND);
    oneByOne.clock.advance(5 * SECOND);

    const { statements, got } = await againstOneByOne(batched, oneByOne, batch);
    // the first statement finds RF-0001 in the books and writes nothing; the batch decided again on them, then written
    assert.equal(statements, 2, 'one read and one write for the whole batch');
    const refused = (code: string, why: string) => ({ error: 'rejected', retryable: false, message: `sandbox airline XS refuses refund ${code}: ${why}` });
    assert.deepEqual(got, [
      { duplicate: true, refundCode: 'RF-0001' },
      { duplicate: false, refundCode: 'RF-0002' },
      { duplicate: false, refundCode: 'RF-0003' },
      { duplicate: false, refundCode: 'RF-0004' },
      { error: 'unavailable', retryable: true, message: 'the airline system answered with an error' },
      refused('RF-0006', 'ticket 9991000000011 is not on booking TST001'),
      { duplicate: true, refundCode: 'RF-0002' },
      refused('RF-0001', 'the refundCode is already recorded for another booking'),
    ]);
    // The same books, but for the airline's own references (and times: each airline has its own frozen clock).
    const books = async (a: typeof oneByOne) =>
      (await a.rows()).map(({ airline_refund_id: _, submitted_at, last_submitted_at, ...rest }) => {
        const ago = (at: Date) => a.clock.now().getTime() - new Date(at).getTime();
        return { ...rest, submitted: ago(submitted_at), lastSubmitted: ago(last_submitted_at) };
      });
    assert.deepEqual(await books(batched), await books(oneByOne));
    const rows = await batched.rows();
    assert.deepEqual(
      rows.map((r) => [r.refund_code, r.submit_calls, r.decision, r.cancel_reason]),
      [
        ['RF-0001', 2, 'accept', null],
        ['RF-0002', 2, 'accept', null],
        ['RF-0003', 1, 'reject', 'duplicate refund record'],
        ['RF-0004', 1, 'reject', 'voluntary cancellation is non-refundable'],
      ],
    );
    assert.equal(new Date(rows[0]!.last_submitted_at).getTime(), batched.clock.now().getTime());
  });

  test('a batch the books know nothing about: one statement, each refund answered as one after the other would be', async (t) => {
    const batched = await counted(t);
    const oneByOne = await setup(t);
    // Of the batch above, to books that hold nothing: RF-0001, RF-0002, another refund of its ticket (a duplicate refund
    // record), RF-0002 again (a resend within the batch) and the refund of a ticket of another booking (refused).
    const fresh = [0, 1, 2, 6, 5].map((k) => batch[k]!);
    const { statements, got } = await againstOneByOne(batched, oneByOne, fresh);
    assert.equal(statements, 1, 'the books read and written in one statement');
    assert.deepEqual(got.slice(0, 4), [
      { duplicate: false, refundCode: 'RF-0001' },
      { duplicate: false, refundCode: 'RF-0002' },
      { duplicate: false, refundCode: 'RF-0003' },
      { duplicate: true, refundCode: 'RF-0002' },
    ]);
    assert.deepEqual(
      (await batched.rows()).map((r) => [r.refund_code, r.submit_calls, r.decision, r.cancel_reason]),
      [
        ['RF-0001', 1, 'accept', null],
        ['RF-0002', 2, 'accept', null],
        ['RF-0003', 1, 'reject', 'duplicate refund record'],
      ],
    );
  });

  test('a batch that repeats an accepted refund\'s booking, one refund per booking: later refunds of it are duplicates', async (t) => {
    const { sandbox, rows } = await counted(t, (w) => {
      airline(w, 'XS').oneRefundPerBooking = true;
    });
    const one = { pnr: 'TST001', paidMinor: 56540, quotedRefundMinor: 50000 };
    const outcomes = await sandbox.submitRefunds(
      'XS',
      [submission({ ...one, ticketNos: ['9991000000001'] }), submission({ ...one, refundCode: 'RF-0002', ticketNos: ['9991000000002'] }), submission({ refundCode: 'RF-0003' })],
      { signal: signal() },
    );
    assert.ok(outcomes.every((o) => !(o instanceof Error) && !o.duplicate));
    assert.deepEqual(
      (await rows()).map((r) => [r.refund_code, r.decision, r.cancel_reason]),
      [
        ['RF-0001', 'accept', null],
        ['RF-0002', 'reject', 'duplicate refund record'],
        ['RF-0003', 'accept', null],
      ],
    );
  });

  test('a booking the airline never answers for: that refund times out, the others are recorded', async (t) => {
    const { sandbox, rows } = await setup(t);
    const outcomes = await sandbox.submitRefunds('XS', [submission({ pnr: 'HANG01', ticketNos: ['9991000000071'], refundCode: 'RF-HANG' }), submission()], {
      signal: AbortSignal.timeout(100),
    });
    assert.ok(outcomes[0] instanceof ConnectorError);
    assert.equal(outcomes[0].kind, 'timeout');
    assert.equal(outcomes[0].retryable, true);
    assert.ok(!(outcomes[1] instanceof Error));
    assert.deepEqual((await rows()).map((r) => r.refund_code), ['RF-0001']);
  });

  test('an unknown carrier, or an airline without its books: every refund of the batch gets the error, nothing recorded', async (t) => {
    const { sandbox, rows } = await setup(t);
    for (const outcome of await sandbox.submitRefunds('ZZ', [submission(), submission({ refundCode: 'RF-0002' })], { signal: signal() })) {
      assert.ok(outcome instanceof ConnectorError);
      assert.equal(outcome.kind, 'rejected');
      assert.equal(outcome.retryable, false);
    }
    const withoutBooks = await bookless().submitRefunds('XS', [submission(), submission({ refundCode: 'RF-0002' })], { signal: signal() });
    assert.deepEqual(
      withoutBooks.map((o) => o instanceof ConnectorError && [o.kind, o.retryable]),
      [
        ['unavailable', false],
        ['unavailable', false],
      ],
    );
    assert.deepEqual(await sandbox.submitRefunds('XS', [], { signal: signal() }), []);
    assert.equal((await rows()).length, 0);
  });
});

describe('world fields for refunds', () => {
  const NOW = new Date('2026-01-15T10:00:00Z');
  function refused(mutate: (w: WorldFile) => void, fieldPath: string, problem: RegExp) {
    const w = structuredClone(testWorld());
    mutate(w);
    assert.throws(
      () => buildWorld(w, NOW, 'bad.yaml'),
      (err: unknown) => err instanceof WorldError && err.fieldPath === fieldPath && problem.test(err.message) && err.message.includes('bad.yaml'),
    );
  }

  test('a cancelReason that is not one of spec 2.11\'s texts is refused with its path (airline and booking)', () => {
    refused((w) => (airline(w, 'XN').refundBehaviour = { decision: 'reject', cancelReason: 'computer says no' }), 'airlines[1].refundBehaviour.cancelReason', /spec 2\.11/);
    refused((w) => (booking(w, 'TST002').refundBehaviour = { cancelReason: 'Does not match airline policy' }), 'bookings[1].refundBehaviour.cancelReason', /spec 2\.11/);
  });

  test('every text of spec 2.11 is accepted', () => {
    const w = structuredClone(testWorld());
    airline(w, 'XS').refundBehaviour = { decision: 'reject', cancelReason: "refund available through the airline's consumer website, refund it yourself" };
    booking(w, 'TST002').refundBehaviour = { decision: 'withdraw', cancelReason: 'actual refund amount below the service fee, so rejected' };
    assert.doesNotThrow(() => buildWorld(w, NOW, 'ok.yaml'));
  });

  test('refundBehaviour: unknown decision, percent out of range, unknown field are refused by shape', () => {
    refused((w) => (airline(w, 'XS').refundBehaviour = { decision: 'maybe' as 'accept' }), 'airlines[0].refundBehaviour.decision', /./);
    refused((w) => (airline(w, 'XS').refundBehaviour = { cannotQuotePercentOfPaid: 101 }), 'airlines[0].refundBehaviour.cannotQuotePercentOfPaid', /./);
    refused((w) => Object.assign(booking(w, 'TST002'), { refundBehaviour: { payPercent: 5 } }), 'bookings[1].refundBehaviour.payPercent', /unknown field/);
  });

  test('routesWithoutRefund: "DEP-ARR" of listed airports', () => {
    refused((w) => (airline(w, 'XS').routesWithoutRefund = ['HND-XXX']), 'airlines[0].routesWithoutRefund[0]', /airport XXX/);
    refused((w) => (airline(w, 'XS').routesWithoutRefund = ['HND SGN']), 'airlines[0].routesWithoutRefund[0]', /pattern/);
    refused((w) => (airline(w, 'XS').refundDeadlineDaysAfterDeparture = -1), 'airlines[0].refundDeadlineDaysAfterDeparture', /./);
  });
});

describe('the demo world shows the refund side', () => {
  test('a rejected booking, a withdrawn claim, an unconfirmed tax, a deadline, a route without refunds, one refund per booking', async () => {
    const world = loadWorldFile(path.join(REPO, 'worlds', 'demo.yaml'), new Date('2026-01-15T10:00:00Z'));
    const sandbox = new SandboxConnector(world);
    const b = (pnr: string) => [...world.bookings.values()].find((x) => x.record.pnr === pnr)!;
    assert.deepEqual(b('DEMO10').refundBehaviour, { decision: 'reject', cancelReason: 'voluntary cancellation is non-refundable' });
    assert.equal(b('DEMO11').refundBehaviour.decision, 'withdraw');
    assert.equal(b('DEMO11').record.bookedByClient, null, 'claimable');
    assert.equal(b('DEMO12').record.tickets[0]!.taxStatusConfirmed, false);
    const deadline = sandbox.refundTerms(b('DEMO13').record.carrier)!;
    assert.ok(deadline.refundDeadlineDaysAfterDeparture !== null);
    assert.ok(b('DEMO13').record.segments[0]!.depAt.getTime() + (deadline.refundDeadlineDaysAfterDeparture + 1) * 86_400_000 < Date.parse('2026-01-15T10:00:00Z'));
    const route = b('DEMO14').record.segments[0]!;
    assert.ok(sandbox.refundTerms('XR')!.routesWithoutRefund.includes(`${route.depAirport}-${route.arrAirport}`));
    assert.equal(sandbox.refundTerms(b('DEMO15').record.carrier)!.oneRefundPerBooking, true);
    assert.equal(b('DEMO15').record.tickets.length, 2);
    for (const pnr of ['DEMO01', 'DEMO02', 'DEMO08']) assert.deepEqual(b(pnr).refundBehaviour, {}, `${pnr} unchanged: accepted`);
  });
});

describe('sandbox airline: withdrawing a refund (withdrawRefund)', () => {
  const withdraw = (sandbox: SandboxConnector, code = 'RF-0001', carrier = 'XS') => sandbox.withdrawRefund(carrier, code, { signal: signal() });

  test('while processing: withdrawn from then on, idempotent; its tickets may be refunded again', async (t) => {
    const { sandbox, clock, rows } = await setup(t);
    await sandbox.submitRefund('XS', submission({ isClaim: true }), { signal: signal() });
    clock.advance(10 * SECOND);
    assert.deepEqual(await withdraw(sandbox), { already: false, cancelReason: 'refund request cancelled by the user' });
    assert.deepEqual(await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() }), { state: 'withdrawn', cancelReason: 'refund request cancelled by the user' });
    // Past the processing time it stays withdrawn (it would have been accepted otherwise), and says so again.
    clock.advance(60 * SECOND);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'withdrawn');
    assert.deepEqual(await withdraw(sandbox), { already: true, cancelReason: 'refund request cancelled by the user' });
    assert.equal((await rows())[0]!.withdrawn_at !== null, true);
    // A new refund of the same ticket is no duplicate of the withdrawn one: accepted and refunded.
    await sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002' }), { signal: signal() });
    clock.advance(40 * SECOND);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0002', { signal: signal() })).state, 'refunded');
  });

  test('refused for good once the airline decided: accepted (refunding), refunded, rejected; unknown refundCode; nothing changes', async (t) => {
    const { sandbox, clock, rows } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    clock.advance(20 * SECOND);
    let err = await rejection(withdraw(sandbox));
    assert.equal(err.retryable, false);
    assert.match(err.message, /refuses to withdraw refund RF-0001: it accepted the refund and the money is on its way/);
    clock.advance(20 * SECOND);
    err = await rejection(withdraw(sandbox));
    assert.match(err.message, /it refunded already/);
    assert.equal((await sandbox.refundStatus('XS', 'RF-0001', { signal: signal() })).state, 'refunded');
    assert.equal((await rows())[0]!.withdrawn_at, null);
    err = await rejection(withdraw(sandbox, 'RF-NOPE'));
    assert.equal(err.kind, 'rejected');
    assert.equal(err.retryable, false);

    const rejected = await setup(t, (w) => {
      booking(w, 'TST002').refundBehaviour = { decision: 'reject' };
    });
    await rejected.sandbox.submitRefund('XS', submission(), { signal: signal() });
    rejected.clock.advance(20 * SECOND);
    assert.match((await rejection(withdraw(rejected.sandbox))).message, /it rejected the refund already/);
  });

  test('withdrawn meanwhile by a concurrent call whose clock read came later: withdrawn already, not "try again" (a CI run on PostgreSQL: 502 to one of two operators)', async (t) => {
    const { sandbox, clock, store } = await setup(t);
    await sandbox.submitRefund('XS', submission({ isClaim: true }), { signal: signal() });
    clock.advance(10 * SECOND);
    // the other call's instant, a moment after this call's
    await store.db.updateTable('sandbox_refunds').set({ withdrawn_at: new Date(clock.now().getTime() + 5) }).where('refund_code', '=', 'RF-0001').execute();
    assert.deepEqual(await withdraw(sandbox), { already: true, cancelReason: 'refund request cancelled by the user' });
  });

  test('the behaviour knobs apply: an airline erring answers a retryable error and withdraws nothing', async (t) => {
    const { sandbox, world, rows } = await setup(t);
    await sandbox.submitRefund('XS', submission(), { signal: signal() });
    world.airlines.get('XS')!.behaviour = { failure: 'error' };
    const err = await rejection(withdraw(sandbox));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
    assert.equal((await rows())[0]!.withdrawn_at, null);
  });
});

// A review: a resend whose booking a world reload dropped was refused for good ("it has no booking"), and postbook
// then rejected a refund the airline held. Idempotent on the refundCode: its receipt, as for any resend.
test('a resend of a refund the airline holds answers its receipt after its booking left the world; a new one is refused', async (t) => {
  const { world, store, sandbox } = await setup(t);
  const first = await sandbox.submitRefund('XS', submission(), { signal: signal() });
  world.bookings.delete('XS/TST002');
  const again = await sandbox.submitRefund('XS', submission(), { signal: signal() });
  assert.deepEqual(again, { airlineRefundId: first.airlineRefundId, duplicate: true });
  const [batched] = await sandbox.submitRefunds('XS', [submission()], { signal: signal() });
  assert.deepEqual(batched, { airlineRefundId: first.airlineRefundId, duplicate: true });
  const other = await rejection(sandbox.submitRefund('XS', submission({ refundCode: 'RF-0002' }), { signal: signal() }));
  assert.match(other.message, /has no booking TST002/);
  const elsewhere = await rejection(sandbox.submitRefund('XS', submission({ pnr: 'TST009' }), { signal: signal() }));
  assert.match(elsewhere.message, /has no booking TST009/, 'the held refund is of another booking: no receipt');
  assert.equal((await store.db.selectFrom('sandbox_refunds').select('refund_code').execute()).length, 1);
});

test("decision 0052: the books' statements commit without waiting for the WAL's flush, their own transaction alone", async (t) => {
  const store = await emptyBooks(t);
  const refund = (refundCode: string): NewSandboxRefund => ({
    ...submission({ refundCode }),
    decision: { decision: 'accept', cancelReason: null, processingSeconds: 0, refundMinor: 100000 },
    voucher: false,
    calls: 1,
  });
  const setting = sql<{ v: string }>`select current_setting('synchronous_commit') as v`;
  const at = new Date('2026-01-15T10:00:00Z');
  // one connection throughout: the setting is a connection's
  await store.db.connection().execute(async (conn) => {
    assert.equal((await setting.execute(conn)).rows[0]!.v, 'on', 'the default before');
    for (const [name, write] of [
      ['a batch the books know nothing about', (trx: Kysely<Database>) => recordRefundsIfUnbooked(trx, 'XS', at, [refund('RF-A')])],
      ['a batch recorded after its books were read', (trx: Kysely<Database>) => recordRefunds(trx, 'XS', at, [refund('RF-A'), refund('RF-B')])],
    ] as const) {
      const inside = await conn.transaction().execute(async (trx) => {
        await write(trx);
        return (await setting.execute(trx)).rows[0]!.v;
      });
      assert.equal(inside, 'off', `${name}: off for the transaction that wrote the books`);
      assert.equal((await setting.execute(conn)).rows[0]!.v, 'on', `${name}: and for no later one on the connection`);
    }
  });
  const rows = await store.db.selectFrom('sandbox_refunds').select(['refund_code', 'submit_calls']).orderBy('refund_code').execute();
  assert.deepEqual(rows.map((r) => [r.refund_code, Number(r.submit_calls)]), [['RF-A', 2], ['RF-B', 1]], 'both written');
});
