// A quote priced once is answered again only while nothing it was priced from has changed (decision 0067): at every
// instant around every edge the checks and the engine read the clock at (rule windows, departure, the 821 and 840
// thresholds, the void deadline, UTC midnight), walked forwards, backwards and shuffled, the kept pricing answers
// exactly what pricing afresh answers — the same quote, or the same refusal — and a change of rates, fee, criteria
// or terms is priced anew.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { BOOKED_BY_ALPHA, GAMMA, refundSegment, refundWorld } from '../test-support/refund-world.js';
import { TEST_CLIENTS } from '../test-support/world.js';
import { PLANTED } from '../test-support/planted.js';
import { createAirlines } from '../service.js';
import { deepFreeze } from '../deep-freeze.js';
import { ApiError } from '../errors.js';
import { checkShape } from './checks.js';
import type { OrderContext } from './context.js';
import type { RefundCaller, RefundDeps, RefundScheduler } from './deps.js';
import { loadCallerOrder, prepareFromContext } from './prepare.js';
import { quoteFromContext } from './priced-once.js';
import { worldRates } from './pricing.js';
import type { RefundRequestItem } from './wire.js';

const MINUTE = 60_000;
const DAY = 86_400_000;
const [lastA, firstA] = PLANTED.names;

function world() {
  const w = refundWorld();
  // XS voids until the end of the issue day in Tokyo: a deadline inside a minute of the departures' (15:00 UTC less 1 ms)
  Object.assign(w.airlines.find((a) => a.code === 'XS')!, { homeTimeZone: 'Asia/Tokyo' });
  // a USD ticket on XS: its EUR 50.00 penalty (more than a day before departure) is converted at the world's rate
  w.bookings.push({
    ...BOOKED_BY_ALPHA,
    pnr: 'USD001',
    passengers: [{ ref: 'a', type: 'ADT', lastName: 'DOLLAR', firstName: 'DAN' }],
    segments: [{ flight: 'out' }],
    tickets: [{ ticketNo: '999-2000000171', passenger: 'a', currency: 'USD', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE'] }],
  });
  return w;
}

type Outcome = { priced: unknown } | { status: number; msg: string };

function outcome(price: () => { priced: unknown }): Outcome {
  try {
    return { priced: price().priced };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.status, msg: err.message };
  }
}

describe('a quote priced once (decision 0067)', () => {
  let t: TestApp;
  let at = 0;
  let deps: RefundDeps;
  const alpha: RefundCaller = { clientId: TEST_CLIENTS.alpha.id, settings: {} };
  const gamma: RefundCaller = { clientId: GAMMA.id, settings: { refundServiceFee: 'EUR 1.00', refundCriteria: { minMinutesBeforeDeparture: 14_400 } } };

  before(async () => {
    t = await makeTestApp({ world: world() });
    deps = {
      db: t.store.db,
      airlines: createAirlines(t.world, t.store, t.clock),
      clock: { now: () => new Date(at), movable: true },
      rates: worldRates(t.world),
      offerTtlMs: 15 * 60_000,
      scheduler: {} as RefundScheduler,
    };
  });
  after(() => t.close());

  const item = (lastName: string, firstName: string, flights: string[], refundReason: string): RefundRequestItem => ({
    lastName,
    firstName,
    refundReason,
    segments: flights.map((id) => refundSegment(t.world, id)),
  });
  /** The order's context as a kept one is: read from the store and frozen. */
  const kept = async (caller: RefundCaller, pnr: string): Promise<OrderContext> =>
    deepFreeze(await loadCallerOrder(deps, caller, { orderNo: await orderNoOfPnr(t.store.db, pnr) }));
  const departure = (flightId: string) => t.world.flights.get(flightId)!.current.dep.toMillis();
  const start = () => t.clock.now().getTime();
  /** Every instant a millisecond either side of each edge, and on it. */
  const around = (edges: number[]) => edges.flatMap((e) => [e - MINUTE / 2, e - 1, e, e + 1, e + MINUTE / 2]);
  const midnightsNear = (ms: number) => [-1, 0, 1, 2].map((d) => (Math.floor(ms / DAY) + d) * DAY);

  /**
   * At each instant in `instants` (in that order): the kept pricing answers what pricing afresh answers. Returns how
   * many answers were the same object as the one before (answered again from the kept pricing), and the statuses
   * answered (0 a quote).
   */
  function walk(caller: RefundCaller, ctx: OrderContext, items: RefundRequestItem[], instants: number[]): { again: number; statuses: Set<number> } {
    const reason = checkShape(items);
    let again = 0;
    let last: unknown = null;
    const statuses = new Set<number>();
    for (const instant of instants) {
      at = instant;
      const once = outcome(() => quoteFromContext(deps, caller, ctx, items, reason));
      const fresh = outcome(() => prepareFromContext(deps, caller, ctx, items, reason, false));
      assert.deepEqual(once, fresh, `at ${new Date(instant).toISOString()}`);
      statuses.add('status' in once ? once.status : 0);
      if ('priced' in once) {
        if (once.priced === last) again++;
        last = once.priced;
        assert.ok(Object.isFrozen(once.priced), 'a shared answer is frozen');
      }
    }
    return { again, statuses };
  }

  /** walk() over each order of the instants (orders()); the statuses answered, sorted. */
  const walkAll = (caller: RefundCaller, ctx: OrderContext, items: RefundRequestItem[], instants: number[]): number[] =>
    [...new Set(orders(instants).flatMap((each) => [...walk(caller, ctx, items, each).statuses]))].sort((a, b) => a - b);

  /** The instants in order, backwards, then in a fixed shuffle. */
  function orders(instants: number[]): number[][] {
    const sorted = [...new Set(instants)].sort((a, b) => a - b);
    const shuffled = [...sorted];
    let seed = 7;
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 16807) % 2147483647;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    return [sorted, [...sorted].reverse(), shuffled];
  }

  test('the rule windows, departure and the calendar day: the same answer as afresh at every instant around them', async () => {
    const ctx = await kept(alpha, 'DEP001');
    const dep = departure('out');
    // XS: 50 EUR until a day before departure, half until departure, the airline's fee after it (refundWorld)
    const edges = [dep - 2 * DAY, dep - DAY, dep - 2 * MINUTE, dep - MINUTE, dep, dep + MINUTE, ...midnightsNear(start()), ...midnightsNear(dep)];
    let again = 0;
    for (const instants of orders(around(edges))) {
      again += walk(alpha, ctx, [item(lastA, firstA, ['out', 'ret'], '1')], instants).again;
      again += walk(alpha, ctx, [item(lastA, firstA, ['out', 'ret'], '0')], instants).again;
    }
    assert.ok(again > 0, 'some answers were the kept pricing');
  });

  test('the void deadline (822) and the refund deadline (821): refused and answered as afresh either side', async () => {
    const voided = await kept(alpha, 'VOID01');
    const issued = voided.tickets[0]!.issuedAt!;
    const voidDeadline = DateTime.fromJSDate(issued, { zone: 'Asia/Tokyo' }).endOf('day').toMillis();
    const both = [item('VOIDER', 'VAL', ['out'], '4'), item('VOIDER', 'VIC', ['out'], '4')];
    const voidDeadlines = around([voidDeadline, voidDeadline + 1 - MINUTE]);
    assert.deepEqual(walkAll(alpha, voided, both, voidDeadlines), [0, 822], 'spec 7.1: a void quoted until the end of the issue day, 822 after it');

    const late = await kept(alpha, 'DDL001');
    const deadline = departure('xd') + DAY; // XD takes refunds until a day after departure
    const deadlines = around([deadline, deadline - MINUTE, deadline + MINUTE]);
    assert.deepEqual(walkAll(alpha, late, [item('DEADLINE', 'ANN', ['xd'], '1')], deadlines), [0, 821], 'spec 7.1: a quote until the deadline, 821 after it');
  });

  test("the client's criteria (840): refused before the edge and answered after it, exactly as afresh", async () => {
    const ctx = await kept(gamma, 'CRIT01');
    const edge = departure('out') - 14_400 * MINUTE;
    const statuses = walkAll(gamma, ctx, [item('CRITERIA', 'ANN', ['out'], '1')], around([edge, edge - MINUTE, edge + MINUTE]));
    assert.deepEqual(statuses, [0, 840], 'spec 7.1: 840 inside the criteria, a quote outside them');
  });

  test('a rate, the fee, the criteria or the terms changed: priced anew', async () => {
    const ctx = await kept(alpha, 'USD001');
    const items = [item('DOLLAR', 'DAN', ['out'], '1')];
    at = departure('out') - 3 * DAY; // the EUR 50.00 penalty, converted to USD
    const first = quoteFromContext(deps, alpha, ctx, items, '1');
    assert.equal(quoteFromContext(deps, alpha, ctx, items, '1'), first, 'nothing changed: the kept pricing');
    const rates = t.world.rates;
    const was = rates['EUR/USD']!;
    try {
      rates['EUR/USD'] = '1.25';
      const moved = quoteFromContext(deps, alpha, ctx, items, '1');
      assert.notEqual(moved.priced.fare.refundMinor, first.priced.fare.refundMinor, 'the new rate converts the penalty');
      assert.deepEqual(moved.priced, prepareFromContext(deps, alpha, ctx, items, '1', false).priced);
    } finally {
      rates['EUR/USD'] = was;
    }
    assert.deepEqual(quoteFromContext(deps, alpha, ctx, items, '1').priced, first.priced, 'the rate back: the first answer');

    const dep = await kept(alpha, 'DEP001');
    const depItems = [item(lastA, firstA, ['out', 'ret'], '1')];
    const plain = quoteFromContext(deps, alpha, dep, depItems, '1');
    const withFee: RefundCaller = { clientId: alpha.clientId, settings: { refundServiceFee: 'EUR 2.00' } };
    assert.equal(quoteFromContext(deps, withFee, dep, depItems, '1').priced.serviceFee.minor, 200, 'a new fee is charged');
    const strict: RefundCaller = { clientId: alpha.clientId, settings: { refundCriteria: { minMinutesBeforeDeparture: 525_600 } } };
    assert.throws(() => quoteFromContext(deps, strict, dep, depItems, '1'), (err: unknown) => err instanceof ApiError && err.status === 840);
    assert.deepEqual(quoteFromContext(deps, alpha, dep, depItems, '1').priced, plain.priced);

    // the airline's terms replaced (a world's reload gives new frozen terms): priced from the new ones
    const airlines = deps.airlines;
    const connector = airlines.forCarrier('XS')!;
    const terms = connector.refundTerms('XS')!;
    const dearer = deepFreeze({ ...terms, rules: terms.rules.map((r) => (r.penaltyAmount ? { ...r, penaltyAmount: 'EUR 80.00' } : r)) });
    const reloaded = Object.create(connector) as typeof connector;
    reloaded.refundTerms = () => dearer;
    const directory = Object.create(airlines) as typeof airlines;
    directory.forCarrier = (carrier: string) => (carrier === 'XS' ? reloaded : airlines.forCarrier(carrier));
    deps.airlines = directory;
    try {
      at = departure('out') - 3 * DAY;
      const before = quoteFromContext(deps, alpha, dep, depItems, '1');
      assert.notDeepEqual(before.priced, quoteFromContext({ ...deps, airlines }, alpha, dep, depItems, '1').priced, 'the dearer penalty');
      assert.deepEqual(before.priced, prepareFromContext(deps, alpha, dep, depItems, '1', false).priced);
    } finally {
      deps.airlines = airlines;
    }
  });

  test('a context that is not frozen is priced each time', async () => {
    const ctx = await loadCallerOrder(deps, alpha, { orderNo: await orderNoOfPnr(t.store.db, 'DEP001') });
    const items = [item(lastA, firstA, ['out', 'ret'], '1')];
    at = start();
    const a = quoteFromContext(deps, alpha, ctx, items, '1');
    const b = quoteFromContext(deps, alpha, ctx, items, '1');
    assert.notEqual(a, b);
    assert.deepEqual(a.priced, b.priced);
  });
});
