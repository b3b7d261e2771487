// Voids (found by a review): a void the airline already holds, resent after midnight (the process died between
// the airline's yes and 0 → 1), finds its receipt instead of the same-day deadline; a status look that fails, even
// with an error the connection calls final, moves nothing — only the airline's answer does; two passengers of one
// name are named one each.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp, orderNoOfPnr } from '../test-support/app.js';
import { voidWorld } from '../test-support/void-world.js';
import { refundSegment } from '../test-support/refund-world.js';
import { TestClock } from '../clock.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { ConnectorError } from '../airline/connector.js';
import { VOID_ORDER_STATUS as VS } from './statuses.js';

const DAY = 86_400_000;

/** A void of the booking `pnr` through the API (quoted, then submitted): its order and voidCode. */
async function voidOf(t: TestApp, pnr: string): Promise<{ orderNo: string; code: string }> {
  const orderNo = await orderNoOfPnr(t.store.db, pnr);
  const q = await call(t.app, '/voidQuotation.do', { orderNo });
  assert.equal(q.body.status, 0, String(q.body.msg));
  return { orderNo, code: String((await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId })).body.voidCode) };
}

test('a void resent after midnight (the airline said yes at 23:58, the process died before 0 → 1) finds its receipt: 1, not rejected; the tickets are not refundable again', async () => {
  const clock = new TestClock();
  // 23:58 UTC of the next day (the void world's airline keeps UTC)
  clock.set(new Date(Math.floor(clock.now().getTime() / DAY) * DAY + 2 * DAY - 2 * 60_000));
  let airline!: SandboxConnector;
  const t = await makeTestApp({ world: voidWorld(), clock, connectors: (w, books) => [(airline = new SandboxConnector(w, books))] });
  try {
    const orderNo = await orderNoOfPnr(t.store.db, 'VDEP01');
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const code = String((await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId })).body.voidCode);
    const v = await t.store.db.selectFrom('void_orders').selectAll().where('void_code', '=', code).executeTakeFirstOrThrow();
    const first = await airline.submitVoid('XS', { voidCode: code, pnr: 'VDEP01', ticketNos: v.ticket_nos, currency: v.currency, paidMinor: Number(v.void_amount_minor) }, { signal: AbortSignal.timeout(5000) });
    assert.equal(first.duplicate, false);
    clock.advance(3 * 60_000); // 00:01: the sweep sends it again
    await t.workers.voids.submitStep(code);
    const after = await t.store.db.selectFrom('void_orders').select(['status', 'cancel_reason']).where('void_code', '=', code).executeTakeFirstOrThrow();
    assert.deepEqual(after, { status: VS.AIRLINE_PROCESSING, cancel_reason: null });
    const refund = await call(t.app, '/refund.do', { orderNo, refundRequestList: ['AVA', 'BEN'].map((f) => ({ lastName: 'VOIDCASE', firstName: f, refundReason: '1', segments: [refundSegment(t.world, 'out')] })) });
    assert.notEqual(refund.body.status, 0, 'the voided tickets are not refunded');
  } finally {
    await t.close();
  }
});

test('a void sent first after midnight (void.do at 23:58) is refused by the deadline: 4, its cancelReason says so and to refund instead (was "does not match airline policy")', async () => {
  const clock = new TestClock();
  clock.set(new Date(Math.floor(clock.now().getTime() / DAY) * DAY + 2 * DAY - 2 * 60_000));
  const t = await makeTestApp({ world: voidWorld(), clock });
  try {
    const orderNo = await orderNoOfPnr(t.store.db, 'VDEP01');
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    assert.equal(q.body.status, 0, String(q.body.msg));
    const code = String((await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId })).body.voidCode);
    clock.advance(3 * 60_000); // 00:01: the sweep sends it for the first time
    await t.workers.voids.submitStep(code);
    const after = await t.store.db.selectFrom('void_orders').select(['status', 'cancel_reason']).where('void_code', '=', code).executeTakeFirstOrThrow();
    assert.equal(after.status, VS.REJECTED);
    assert.match(String(after.cancel_reason), /^the void deadline \(the end of the issue day\) passed; .*request a refund instead$/);
  } finally {
    await t.close();
  }
});

test('a status look that fails with an error the connection calls final moves nothing (at 1 or 3); the next answer does', async () => {
  let fail = false;
  const clock = new TestClock();
  const t = await makeTestApp({
    world: voidWorld(),
    clock,
    connectors: (w, books) => {
      const a = new SandboxConnector(w, books);
      const read = a.voidStatus.bind(a);
      a.voidStatus = async (c, code, o) => {
        if (fail) throw new ConnectorError('rejected', false, 'sandbox airline XS does not exist');
        return read(c, code, o);
      };
      return [a];
    },
  });
  try {
    const orderNo = await orderNoOfPnr(t.store.db, 'VDEP02');
    const q = await call(t.app, '/voidQuotation.do', { orderNo });
    const code = String((await call(t.app, '/void.do', { orderNo, voidOfferId: q.body.voidOfferId })).body.voidCode);
    const status = async () => (await t.store.db.selectFrom('void_orders').select(['status', 'step_failures']).where('void_code', '=', code).executeTakeFirstOrThrow());
    await t.workers.voids.submitStep(code);
    assert.equal((await status()).status, VS.AIRLINE_PROCESSING);
    fail = true;
    await t.workers.voids.pollStep(code);
    assert.deepEqual(await status(), { status: VS.AIRLINE_PROCESSING, step_failures: 1 }, 'at 1: looked at again');
    fail = false;
    clock.advance(40_000);
    await t.workers.voids.pollStep(code);
    assert.equal((await status()).status, VS.AIRLINE_VOIDING);
    fail = true;
    await t.workers.voids.pollStep(code);
    assert.equal((await status()).status, VS.AIRLINE_VOIDING, 'at 3: looked at again');
    const history = await t.store.db.selectFrom('void_status_history').select(['from_status', 'to_status']).where('void_code', '=', code).orderBy('id').execute();
    assert.deepEqual(history.map((h) => [h.from_status, h.to_status]), [[null, 0], [0, 1], [1, 3]]);
  } finally {
    await t.close();
  }
});

test('two passengers of one name, both named, are the whole order (found by a review: 823 "partial void")', async () => {
  const w = voidWorld();
  const twin = structuredClone(w.bookings.find((b) => b.pnr === 'VDEP01')!);
  twin.pnr = 'VTWIN1';
  twin.passengers[1]!.firstName = twin.passengers[0]!.firstName;
  twin.tickets = twin.tickets!.map((tk, i) => ({ ...tk, ticketNo: `999-310777000${i + 1}` }));
  w.bookings.push(twin);
  const t = await makeTestApp({ world: w, clock: new TestClock() });
  try {
    const orderNo = await orderNoOfPnr(t.store.db, 'VTWIN1');
    const p = twin.passengers[0]!;
    const both = [{ lastName: p.lastName, firstName: p.firstName }, { lastName: p.lastName, firstName: p.firstName }];
    const q = await call(t.app, '/voidQuotation.do', { orderNo, passengers: both });
    assert.equal(q.body.status, 0, String(q.body.msg));
    assert.equal((await call(t.app, '/voidQuotation.do', { orderNo, passengers: [both[0]] })).body.status, 823, 'one of the two named: partial');
  } finally {
    await t.close();
  }
});

test("an airline's error text holding a NUL is stored (as U+FFFD): a failed submission is counted, a failed look put off, a refusal recorded (found by a review: the write was refused, the void left at 0 for good)", async () => {
  let failWith: Error | null = null;
  const t = await makeTestApp({
    world: voidWorld(),
    connectors: (w, books) => {
      const a = new SandboxConnector(w, books);
      const submit = a.submitVoid.bind(a);
      const read = a.voidStatus.bind(a);
      a.submitVoid = async (c, s, o) => {
        if (failWith) throw failWith;
        return submit(c, s, o);
      };
      a.voidStatus = async (c, code, o) => {
        if (failWith) throw failWith;
        return read(c, code, o);
      };
      return [a];
    },
  });
  try {
    const row = async (code: string) => t.store.db.selectFrom('void_orders').select(['status', 'step_failures', 'step_error']).where('void_code', '=', code).executeTakeFirstOrThrow();
    // a retryable failure of the submission: counted, its text kept
    const first = (await voidOf(t, 'VDEP01')).code;
    failWith = new ConnectorError('unavailable', true, 'gateway said \u0000');
    await t.workers.voids.submitStep(first);
    assert.deepEqual(await row(first), { status: VS.PROCESSING, step_failures: 1, step_error: 'gateway said \uFFFD' });
    // a failed look: put off and counted
    failWith = null;
    await t.workers.voids.submitStep(first);
    assert.equal((await row(first)).status, VS.AIRLINE_PROCESSING);
    failWith = new Error('reset\u0000');
    await t.workers.voids.pollStep(first);
    assert.deepEqual(await row(first), { status: VS.AIRLINE_PROCESSING, step_failures: 1, step_error: 'reset\uFFFD' });
    // a refusal: the void rejected with the reason the airline gave for callers; its own words go to the log only
    // (a review: they reached the history, whose cause a webhook repeats)
    const second = (await voidOf(t, 'VDEP02')).code;
    failWith = new ConnectorError('rejected', false, 'gateway 10.0.0.7: no\u0000', 'not voidable\u0000');
    await t.workers.voids.submitStep(second);
    assert.equal((await row(second)).status, VS.REJECTED);
    const causes = await t.store.db.selectFrom('void_status_history').select('cause').where('void_code', '=', second).orderBy('id').execute();
    assert.equal(causes.at(-1)!.cause, 'refused by the airline');
    const rejected = await t.store.db.selectFrom('void_orders').select('cancel_reason').where('void_code', '=', second).executeTakeFirstOrThrow();
    assert.equal(rejected.cancel_reason, 'not voidable\uFFFD');
  } finally {
    await t.close();
  }
});

// A review: a submission that timed out may have reached the airline, its answer lost. Past the retry limit the void
// was rejected ("not voided, request a refund instead") while the airline had voided and paid, and refund.do then
// took the same tickets. Now the airline is asked first.
test('past the retry limit the airline is asked: a void it holds goes on to 1 (then voided, not refundable); one it cannot say stays at 0; one it does not know ends 4', async () => {
  let lose = false;
  let statusDown = false;
  let unreachable = false;
  const t = await makeTestApp({
    world: voidWorld(),
    connectors: (w, books) => {
      const a = new SandboxConnector(w, books);
      const submit = a.submitVoid.bind(a);
      const read = a.voidStatus.bind(a);
      // the airline takes the void; its answer is lost on the way back
      a.submitVoid = async (c, s, o) => {
        if (unreachable) throw new ConnectorError('unavailable', true, 'no route to the airline');
        const receipt = await submit(c, s, o);
        if (lose) throw new ConnectorError('timeout', true, 'the airline did not answer in time');
        return receipt;
      };
      a.voidStatus = async (c, code, o) => {
        if (statusDown) throw new ConnectorError('unavailable', true, 'the airline system answered with an error');
        return read(c, code, o);
      };
      return [a];
    },
  });
  try {
    const row = (code: string) => t.store.db.selectFrom('void_orders').select(['status', 'step_failures', 'cancel_reason']).where('void_code', '=', code).executeTakeFirstOrThrow();
    const lastTry = async (code: string) => {
      await t.store.db.updateTable('void_orders').set({ step_failures: 10 }).where('void_code', '=', code).execute();
      await t.workers.voids.submitStep(code);
    };
    lose = true;
    const held = await voidOf(t, 'VDEP01');
    await lastTry(held.code);
    assert.deepEqual(await row(held.code), { status: VS.AIRLINE_PROCESSING, step_failures: 0, cancel_reason: null }, 'the airline holds it: 0 → 1, not rejected');
    const [moved] = await t.store.db.selectFrom('void_status_history').select('cause').where('void_code', '=', held.code).orderBy('id', 'desc').limit(1).execute();
    assert.match(moved!.cause, /^the airline holds the void/);
    // spec 7.1: 803 while the void is under way — the tickets are not refunded besides
    const refund = await call(t.app, '/refund.do', { orderNo: held.orderNo, refundRequestList: ['AVA', 'BEN'].map((f) => ({ lastName: 'VOIDCASE', firstName: f, refundReason: '1', segments: [refundSegment(t.world, 'out')] })) });
    assert.notEqual(refund.body.status, 0, 'not refunded besides the void');

    // the airline cannot say either: left at 0, tried again (counted), not rejected
    statusDown = true;
    const unsure = await voidOf(t, 'VDEP02');
    await lastTry(unsure.code);
    assert.deepEqual(await row(unsure.code), { status: VS.PROCESSING, step_failures: 11, cancel_reason: null });
    // it answers again: it holds the void
    statusDown = false;
    await t.workers.voids.submitStep(unsure.code);
    assert.equal((await row(unsure.code)).status, VS.AIRLINE_PROCESSING);

    // an airline that never took it (every attempt failed before it): 0 → 4, as before
    lose = false;
    const never = await voidOf(t, 'VCARD1');
    unreachable = true;
    await lastTry(never.code);
    const ended = await row(never.code);
    assert.deepEqual([ended.status, ended.cancel_reason], [VS.REJECTED, 'the airline could not be reached in time; the order was not voided, request a refund instead']);
  } finally {
    await t.close();
  }
});

// A review (of refunds; voids had the same): an airline amount in another currency was stored as if in the void's.
test("the airline's amount in another currency is converted to the void's at the configured rate; without a rate the look fails, nothing stored", async () => {
  let answer: { state: 'voided'; amountMinor: number; currency: string } | null = null;
  const t = await makeTestApp({
    world: Object.assign(voidWorld(), { rates: { 'USD/EUR': '0.9' } }),
    connectors: (w, books) => {
      const a = new SandboxConnector(w, books);
      const read = a.voidStatus.bind(a);
      a.voidStatus = async (c, code, o) => answer ?? read(c, code, o);
      return [a];
    },
  });
  try {
    const row = (code: string) => t.store.db.selectFrom('void_orders').select(['status', 'currency', 'actual_refund_minor', 'step_failures', 'step_error']).where('void_code', '=', code).executeTakeFirstOrThrow();
    const { code } = await voidOf(t, 'VCARD1');
    await t.workers.voids.submitStep(code);
    assert.deepEqual([(await row(code)).status, (await row(code)).currency], [VS.AIRLINE_PROCESSING, 'EUR']);
    answer = { state: 'voided', amountMinor: 20_000, currency: 'JPY' };
    await t.workers.voids.pollStep(code);
    const stuck = await row(code);
    assert.deepEqual([stuck.status, stuck.actual_refund_minor, stuck.step_failures], [VS.AIRLINE_PROCESSING, null, 1]);
    assert.match(String(stuck.step_error), /no rate JPY->EUR is configured/);
    answer = { state: 'voided', amountMinor: 20_000, currency: 'USD' };
    await t.workers.voids.pollStep(code);
    const done = await row(code);
    assert.deepEqual([done.status, Number(done.actual_refund_minor)], [VS.COMPLETED, 18_000], 'USD 200.00 at 0.9: EUR 180.00');
  } finally {
    await t.close();
  }
});
