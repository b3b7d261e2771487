// The sandbox airline connector: answers from the world, with the world's latency and failures.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { ConnectorError } from '../connector.js';
import { Deadline } from '../deadline.js';
import { SandboxConnector } from './connector.js';
import { buildWorld } from './world.js';
import type { WorldFile } from './world-schema.js';
import { testWorld } from '../../test-support/world.js';

const NOW = new Date('2026-01-15T10:00:00Z');
const LATENCY_MS = 150;

function connector(mutate: (w: WorldFile) => void = () => {}) {
  const w = structuredClone(testWorld());
  mutate(w);
  const world = buildWorld(w, NOW, 'test');
  return { world, sandbox: new SandboxConnector(world) };
}

/** The test world with the tardy airline XT answering in LATENCY_MS instead of seconds. */
const fastTardy = (w: WorldFile) => {
  w.airlines.find((a) => a.code === 'XT')!.behaviour = { latencyMs: LATENCY_MS };
};

const signal = () => AbortSignal.timeout(10_000);

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
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

describe('SandboxConnector', () => {
  test('fares of a three-decimal currency are priced exactly, rounded once (KWD 10.125 was 10.130; found by a review)', async () => {
    const w = structuredClone(testWorld());
    w.flights[0]!.fares = { currency: 'KWD', adult: { fare: 10.125, tax: 1.5 }, child: { fare: 7.595, tax: 1 } };
    // a business cabin too (a class the aircraft lacks is not sold)
    const a320 = w.aircraft.find((a) => a.code === w.flights[0]!.aircraft)!;
    a320.cabins.push({ ...structuredClone(a320.cabins[0]!), cabinClass: 2 });
    // built now: a flight that has left is not priced, and the connector's clock is the system's
    const world = buildWorld(w, new Date(), 'test');
    const sandbox = new SandboxConnector(world);
    const out = world.flights.get('out')!;
    const flight = { carrier: out.carrier, flightNumber: out.flightNumber, depDate: out.current.dep.toFormat('yyyyMMdd') };
    const economy = await sandbox.booking.price(out.carrier, [{ flight, direction: 'out' }], 1, { signal: signal() });
    assert.equal(economy?.price.currency, 'KWD');
    assert.deepEqual([economy?.price.adult.fareMinor, economy?.price.child.fareMinor, economy?.price.adult.taxMinor], [10125, 7595, 1500]);
    // an infant without fares of its own: 10 % of the adult fare, 1012.5 fils rounded half-up once
    assert.equal(economy?.price.infant.fareMinor, 1013);
    // business class, three times economy: exact
    const business = await sandbox.booking.price(out.carrier, [{ flight, direction: 'out' }], 2, { signal: signal() });
    assert.deepEqual([business?.price.adult.fareMinor, business?.price.child.fareMinor], [30375, 22785]);
  });

  test('answers for the carriers of the world', () => {
    const { sandbox } = connector();
    assert.equal(sandbox.name, 'sandbox');
    assert.deepEqual(sandbox.carriers().sort(), ['XN', 'XS', 'XT']);
  });

  test('supports(): absent = supported, false = not, unknown carrier = not', () => {
    const { sandbox } = connector();
    for (const f of ['claims', 'refunds', 'voids', 'seatSelection'] as const) assert.equal(sandbox.supports('XS', f), true, f);
    assert.equal(sandbox.supports('XN', 'claims'), false);
    assert.equal(sandbox.supports('XN', 'refunds'), true);
    assert.equal(sandbox.supports('ZZ', 'claims'), false);
  });

  test('reads a record', async () => {
    const { sandbox } = connector();
    const record = await sandbox.readRecord('XS', 'TST001', { signal: signal() });
    assert.ok(record);
    assert.equal(record.pnr, 'TST001');
    assert.equal(record.carrier, 'XS');
    assert.equal(record.status, 'Ticketed');
    assert.equal(record.segments.length, 2);
    assert.equal(record.tickets.length, 2);
    assert.ok(record.segments[0]!.depAt instanceof Date);
  });

  test('the answer is immutable: a reader can change neither it nor the world', async () => {
    const { world, sandbox } = connector();
    const before = structuredClone(world.bookings.get('XS/TST001')!.record);
    const record = await sandbox.readRecord('XS', 'TST001', { signal: signal() });
    assert.ok(record);
    // The same object for every reader until the record changes (no copy per read): so no reader may change it.
    assert.equal(await sandbox.readRecord('XS', 'TST001', { signal: signal() }), record);
    assert.throws(() => (record.status = 'Cancelled'), TypeError);
    assert.throws(() => (record.passengers[0]!.lastName = 'CHANGED'), TypeError);
    assert.throws(() => record.segments[0]!.depAt.setTime(0), TypeError);
    assert.throws(() => record.segments[0]!.depAt.setUTCHours(0), TypeError);
    assert.throws(() => record.segments.pop(), TypeError);
    assert.throws(() => (record.tickets[0]!.coupons[0]!.status = 'USED'), TypeError);
    assert.throws(() => (record.tickets[0]!.ancillaries.length = 0), TypeError);
    assert.deepEqual(world.bookings.get('XS/TST001')!.record, before);
    const again = await sandbox.readRecord('XS', 'TST001', { signal: signal() });
    assert.ok(again);
    // compared as a copy: a frozen Date inherits from a prototype whose setters refuse (src/deep-freeze.ts)
    assert.deepEqual(structuredClone(again), before);
    // A copy is the reader's own to change.
    const copy = structuredClone(again);
    copy.segments[0]!.depAt.setTime(0);
    copy.status = 'Cancelled';
    assert.deepEqual(structuredClone(await sandbox.readRecord('XS', 'TST001', { signal: signal() })), before);
  });

  test('unknown PNR → null', async () => {
    const { sandbox } = connector();
    assert.equal(await sandbox.readRecord('XS', 'NOPE99', { signal: signal() }), null);
    // the PNR exists, but at another carrier
    assert.equal(await sandbox.readRecord('XN', 'TST001', { signal: signal() }), null);
  });

  test('unknown carrier → ConnectorError rejected, not retryable', async () => {
    const { sandbox } = connector();
    const err = await rejection(sandbox.readRecord('ZZ', 'TST001', { signal: signal() }));
    assert.equal(err.kind, 'rejected');
    assert.equal(err.retryable, false);
  });

  test('honours the airline latency', async () => {
    const { sandbox } = connector(fastTardy);
    const { ms, result } = await timed(() => sandbox.readRecord('XT', 'SLOW01', { signal: signal() }));
    assert.equal(result?.pnr, 'SLOW01');
    assert.ok(ms >= LATENCY_MS - 5, `answered after ${ms} ms`);
  });

  test('an unknown PNR on a slow airline costs the same latency as a known one', async () => {
    const { sandbox } = connector(fastTardy);
    const unknown = await timed(() => sandbox.readRecord('XT', 'NOPE99', { signal: signal() }));
    assert.equal(unknown.result, null);
    assert.ok(unknown.ms >= LATENCY_MS - 5, `unknown PNR answered after ${unknown.ms} ms`);
    // On the 5 s airline a short budget runs out for an unknown PNR exactly as for a known one:
    // the answer "no such PNR" is not faster than a record (timing must not reveal which PNRs exist).
    const slow = connector().sandbox;
    const known = await rejection(slow.readRecord('XT', 'SLOW01', { signal: AbortSignal.timeout(50) }));
    const missing = await rejection(slow.readRecord('XT', 'NOPE99', { signal: AbortSignal.timeout(50) }));
    assert.equal(known.kind, 'timeout');
    assert.equal(missing.kind, 'timeout');
  });

  test('a booking may add latency on a fast airline', async () => {
    const { sandbox } = connector((w) => {
      w.bookings.find((b) => b.pnr === 'TST002')!.behaviour = { latencyMs: LATENCY_MS };
    });
    const { ms } = await timed(() => sandbox.readRecord('XS', 'TST002', { signal: signal() }));
    assert.ok(ms >= LATENCY_MS - 5, `answered after ${ms} ms`);
  });

  test('latency is cut short by the AbortSignal: ConnectorError timeout, retryable', async () => {
    const { sandbox } = connector(); // XT answers in 5 s
    const start = performance.now();
    const err = await rejection(sandbox.readRecord('XT', 'SLOW01', { signal: AbortSignal.timeout(50) }));
    const ms = performance.now() - start;
    assert.equal(err.kind, 'timeout');
    assert.equal(err.retryable, true);
    assert.ok(ms < 2_000, `gave up after ${ms} ms`);
  });

  test('an already aborted signal fails at once with timeout', async () => {
    const { sandbox } = connector();
    const err = await rejection(sandbox.readRecord('XS', 'TST001', { signal: AbortSignal.abort() }));
    assert.equal(err.kind, 'timeout');
  });

  test('failure "timeout": the airline never answers, the caller\'s signal ends the wait', async () => {
    const { sandbox } = connector();
    const start = performance.now();
    const err = await rejection(sandbox.readRecord('XS', 'HANG01', { signal: AbortSignal.timeout(50) }));
    assert.equal(err.kind, 'timeout');
    assert.equal(err.retryable, true);
    assert.ok(performance.now() - start < 2_000);
  });

  test('a Deadline (signal made only when the airline waits) keeps the deadline of its start', async () => {
    const { sandbox } = connector();
    // No wait: answered without a signal ever being made.
    const fast = new Deadline(10_000);
    assert.equal((await sandbox.readRecord('XS', 'TST001', fast))?.pnr, 'TST001');
    // A wait: the 5 s airline is cut at the deadline counted from the Deadline's creation, not from first use.
    const budget = new Deadline(150);
    await new Promise((r) => setTimeout(r, 100));
    const start = performance.now();
    const err = await rejection(sandbox.readRecord('XT', 'SLOW01', budget));
    const ms = performance.now() - start;
    assert.equal(err.kind, 'timeout');
    assert.ok(ms < 120, `gave up ${ms} ms after the call, 50 ms were left`);
    // A budget already spent fails at once with timeout, even where the airline would not wait.
    const spent = new Deadline(1);
    await new Promise((r) => setTimeout(r, 5));
    assert.equal((await rejection(sandbox.readRecord('XS', 'TST001', spent))).kind, 'timeout');
    assert.equal((await rejection(sandbox.readRecord('XT', 'SLOW01', spent))).kind, 'timeout');
  });

  test('failure "error" → ConnectorError unavailable, retryable', async () => {
    const { sandbox } = connector();
    const err = await rejection(sandbox.readRecord('XS', 'FAIL01', { signal: signal() }));
    assert.equal(err.kind, 'unavailable');
    assert.equal(err.retryable, true);
  });

  test('airline-wide failure "error" applies to unknown PNRs too; a booking may override it', async () => {
    const { sandbox } = connector((w) => {
      w.airlines.find((a) => a.code === 'XS')!.behaviour = { failure: 'error' };
      w.bookings.find((b) => b.pnr === 'TST002')!.behaviour = { failure: 'none' };
    });
    assert.equal((await rejection(sandbox.readRecord('XS', 'TST001', { signal: signal() }))).kind, 'unavailable');
    assert.equal((await rejection(sandbox.readRecord('XS', 'NOPE99', { signal: signal() }))).kind, 'unavailable');
    assert.equal((await sandbox.readRecord('XS', 'TST002', { signal: signal() }))?.pnr, 'TST002');
  });
});
