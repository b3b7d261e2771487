// docs/architecture.md "Refund lifecycle": the workers carry refunds through their statuses by payment method, record
// every transition, and take the airline's actual amount. The sandbox airline decides per its world.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, orderNoOfPnr, type TestApp } from '../test-support/app.js';
import { DateTime } from 'luxon';
import { PLANTED } from '../test-support/planted.js';
import { refundSegment, refundWorld } from '../test-support/refund-world.js';
import { ConnectorError, type AirlineConnector } from '../airline/connector.js';
import { SandboxConnector, type SandboxBooks } from '../airline/sandbox/connector.js';
import type { World } from '../airline/sandbox/world.js';
import { waitFor } from '../test-support/wait.js';
import { voucherEndDate } from './query.js';
import { buildWorld } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { TestClock } from '../clock.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

describe('refund lifecycle (workers running)', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld(), workers: true });
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  const orderNoOf = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const statusOf = async (orderNo: string, refundCode: string) => {
    const q = await call(t.app, '/queryRefundOrders.do', { orderNo, refundCode });
    return (q.body as any).refundOrders[0];
  };
  const historyOf = async (refundCode: string) =>
    (await t.store.db.selectFrom('refund_status_history').selectAll().where('refund_code', '=', refundCode).orderBy('id').execute()).map((h) => [h.from_status, h.to_status]);

  test('deposit: 0 → 1 → 3 → 2, each transition recorded; the airline saw the refundCode once', async () => {
    const orderNo = await orderNoOf('DEP001');
    const res = await call(t.app, '/refund.do', {
      orderNo,
      refundRequestList: [
        { lastName: lastA, firstName: firstA, refundReason: '1', segments: [seg('out'), seg('ret')] },
        { lastName: lastB, firstName: firstB, refundReason: '1', segments: [seg('out'), seg('ret')] },
      ],
    });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const code = String(res.body.refundCode);
    await waitFor('status 1', async () => (await statusOf(orderNo, code)).refundStatus === 1);
    t.clock.advance(40_000); // past processingSeconds (30 s), before twice that: the airline accepts, money under way
    await waitFor('status 3', async () => (await statusOf(orderNo, code)).refundStatus === 3);
    t.clock.advance(30_000);
    const done = await waitFor('status 2', async () => {
      const r = await statusOf(orderNo, code);
      return r.refundStatus === 2 ? r : null;
    });
    assert.deepEqual(await historyOf(code), [[null, 0], [0, 1], [1, 3], [3, 2]]);
    assert.equal(done.cancelReason, null);
    assert.equal(done.refundFareAmount.estimatedRefundAmount, 945.8); // 2 × (505.40 − 50) + A's in-flow bag 35; B's post-ticketing bag is its own object
    const airline = await t.store.db.selectFrom('sandbox_refunds').selectAll().where('refund_code', '=', code).execute();
    assert.equal(airline.length, 1);
    assert.equal(airline[0]!.submit_calls, 1);
    // extract now shows the airline's coupons refunded
    const ex = await call(t.app, '/extractPnr.do', {
      airlinePnr: 'DEP001',
      carrier: 'XS',
      passengers: [{ firstName: firstA, lastName: lastA }],
      contact: { email: PLANTED.emails[0] },
      routing: { fromSegments: [] },
    });
    assert.equal((ex.body as any).paxTicketInfos[0].ticketStatus, 'REFUND');
  });
});

describe('refund lifecycle: outcomes by payment method and airline decision', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: refundWorld(), workers: true });
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  const claimSeg = (flightId: string) => {
    const f = t.world.flights.get(flightId)!;
    return { carrier: f.carrier, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.scheduled.dep.toFormat('yyyyMMddHHmm') };
  };
  const claim = async (pnr: string, email: string, names: string[], flightId: string) => {
    const res = await call(t.app, '/pnr/claim.do', { mmb: { airlinePnr: pnr, email }, passengers: names.map((name) => ({ name })), fromSegments: [claimSeg(flightId)] });
    assert.equal(res.body.status, 0, `${pnr}: ${res.body.msg}`);
    return String(res.body.orderNo);
  };
  const booked = (pnr: string) => orderNoOfPnr(t.store.db, pnr);
  const refund = async (orderNo: string, last: string, first: string, flightId: string, reason: string) => {
    const res = await call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: last, firstName: first, refundReason: reason, segments: [seg(flightId)] }] });
    assert.equal(res.body.status, 0, `${last}: ${res.body.msg}`);
    return { orderNo, code: String(res.body.refundCode), quote: res.body as any };
  };
  const final = async (r: { orderNo: string; code: string }) =>
    waitFor(`refund ${r.code} final`, async () => {
      const q = await call(t.app, '/queryRefundOrders.do', { orderNo: r.orderNo, refundCode: r.code });
      const o = (q.body as any).refundOrders[0];
      return [2, 4, 5, 6].includes(o.refundStatus) ? o : null;
    });

  test('card and claim 0→1→5, rejection →4, withdrawn claim →6, CannotQuote takes the airline amount, vouchers start on completion, below the fee →4', async () => {
    const [emailA, emailB] = PLANTED.emails;
    const card = await refund(await claim('TST002', emailB, [`${PLANTED.names[4]}/${PLANTED.names[5]}`], 'changed'), PLANTED.names[4], PLANTED.names[5], 'changed', '0');
    const rejected = await refund(await claim('REJ001', emailA, [`${lastA}/${firstA}`], 'out'), lastA, firstA, 'out', '1');
    const withdrawn = await refund(await claim('WDR001', emailA, [`${lastA}/${firstA}`], 'out'), lastA, firstA, 'out', '1');
    const cannot = await refund(await booked('CANQ01'), 'CANNOT', 'ANN', 'xc', '1');
    assert.equal(cannot.quote.refundQuoteType, 'CannotQuote');
    assert.equal(cannot.quote.refundFareAmount.estimatedRefundAmount, 0);
    const voucher = await refund(await booked('VCH001'), 'VOUCHERS', 'ANN', 'xv', '1');
    assert.equal(voucher.quote.refundMethod, 'Voucher');
    assert.equal(voucher.quote.refundFareAmount, null);
    assert.equal(voucher.quote.refundVouchers[0].estimatedRefundAmount, 220); // 240 − 10 % of the fare (200)
    const below = await refund(await booked('BELOW1'), 'BELOW', 'ANN', 'out', '1');
    const lifted = await refund(await booked('BELOW2'), 'BELOWPOST', 'ANN', 'out', '1');
    assert.equal(lifted.quote.refundPostTicketingServiceAmounts?.estimatedRefundAmount, 30, JSON.stringify(lifted.quote.refundPostTicketingServiceAmounts));

    await waitFor('all submitted', async () => {
      const rows = await t.store.db.selectFrom('refund_orders').select('status').execute();
      return rows.every((r) => r.status !== 0);
    });
    t.clock.advance(40_000);
    await new Promise((r) => setTimeout(r, 1500));
    t.clock.advance(40_000);

    const c = await final(card);
    assert.equal(c.refundStatus, 5);
    const rj = await final(rejected);
    assert.equal(rj.refundStatus, 4);
    assert.equal(rj.cancelReason, 'voluntary cancellation is non-refundable');
    const wd = await final(withdrawn);
    assert.equal(wd.refundStatus, 6);
    assert.equal(wd.cancelReason, 'refund request cancelled by the user');
    const cq = await final(cannot);
    assert.equal(cq.refundStatus, 2);
    assert.equal(cq.refundFareAmount.estimatedRefundAmount, 192); // 80 % of the 240 paid
    const v = await final(voucher);
    assert.equal(v.refundStatus, 2);
    const today = DateTime.fromJSDate(t.clock.now(), { zone: 'UTC' }).toFormat('yyyyMMdd');
    assert.equal(v.refundVouchers[0].voucherStartDate, today);
    assert.equal(v.refundVouchers[0].voucherEndDate, voucherEndDate(today));
    assert.match(v.refundVouchers[0].voucherCode, /^V-/);
    assert.deepEqual(v.refundVouchers[0].eligiblePassengers, [{ name: 'VOUCHERS/ANN' }]);
    // spec 2.4 / "Refund arithmetic" 9: what the airline pays (1 % of the quoted refund) + the EUR 30 post-ticketing
    // refund − alpha's EUR 5 fee is above zero: refunded (the same ticket without that refund is below: BELOW1)
    const l = await final(lifted);
    assert.equal(l.refundStatus, 2, `${l.cancelReason}`);
    const b = await final(below);
    assert.equal(b.refundStatus, 4);
    assert.equal(b.cancelReason, 'actual refund amount below the service fee, so rejected');
    // The airline refunded that ticket: it stays with this refund, never quoted again (a review: freed, it was
    // quoted in full and submitted a second time).
    const belowAgain = await call(t.app, '/refundQuotation.do', { orderNo: below.orderNo, refundRequestList: [{ lastName: 'BELOW', firstName: 'ANN', refundReason: '1', segments: [seg('out')] }] });
    assert.equal(belowAgain.body.status, 803, String(belowAgain.body.msg));
    assert.match(String(belowAgain.body.msg), new RegExp(b.refundCode));
    // A rejected or withdrawn refund frees the passenger for a new request.
    const again = await call(t.app, '/refundQuotation.do', { orderNo: rejected.orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '0', segments: [seg('out')] }] });
    assert.equal(again.body.status, 0, String(again.body.msg));
  });
});

describe('refund lifecycle: one batch of submissions, mixed outcomes', () => {
  /** The sandbox airline with its calls counted; `batches: false` hides submitRefunds (a connector without it). */
  function spied(batches: boolean) {
    const calls = { one: 0, many: 0 };
    const connectors = (world: World, books: SandboxBooks): AirlineConnector[] => {
      const sandbox = new SandboxConnector(world, books);
      const connector: AirlineConnector = {
        name: sandbox.name,
        booking: sandbox.booking,
        carriers: () => sandbox.carriers(),
        supports: (carrier, feature) => sandbox.supports(carrier, feature),
        readRecord: (carrier, pnr, opts) => sandbox.readRecord(carrier, pnr, opts),
        refundTerms: (carrier) => sandbox.refundTerms(carrier),
        refundStatus: (carrier, code, opts) => sandbox.refundStatus(carrier, code, opts),
        submitRefund: (carrier, s, opts) => {
          calls.one++;
          return sandbox.submitRefund(carrier, s, opts);
        },
      };
      if (batches) {
        connector.submitRefunds = (carrier, list, opts) => {
          calls.many++;
          return sandbox.submitRefunds(carrier, list, opts);
        };
      }
      return [connector];
    };
    return { calls, connectors };
  }

  for (const batches of [true, false]) {
    test(`${batches ? 'a connector taking batches: one airline call' : 'a connector without submitRefunds: one call per refund'}; accepted → 1, resent → 1, refused → 4, a failing booking stays at 0 and is retried`, async (ctx) => {
      const { calls, connectors } = spied(batches);
      const t = await makeTestApp({ world: refundWorld(), connectors });
      ctx.after(() => t.close());
      const lifecycle = t.workers.lifecycle;
      const refund = async (pnr: string, last: string, first: string, flights: string[]) => {
        const orderNo = await orderNoOfPnr(t.store.db, pnr);
        const res = await call(t.app, '/refund.do', { orderNo, refundRequestList: [{ lastName: last, firstName: first, refundReason: '1', segments: flights.map((f) => refundSegment(t.world, f)) }] });
        assert.equal(res.body.status, 0, `${pnr}: ${res.body.msg}`);
        return String(res.body.refundCode);
      };
      const accepted = await refund('DEP001', lastA, firstA, ['out', 'ret']);
      const resent = await refund('BELOW1', 'BELOW', 'ANN', ['out']);
      const refused = await refund('VOID01', 'VOIDER', 'VAL', ['out']);
      const failing = await refund('TWO001', 'TWOTICKETS', 'TIM', ['out', 'ret']);

      // `resent` reached the airline once already, but its move to 1 was lost (a crash in between).
      assert.deepEqual([...(await lifecycle.submitBatch([resent]))], [[resent, undefined]]);
      await t.store.db.updateTable('refund_orders').set({ status: 0, airline_refund_id: null }).where('refund_code', '=', resent).execute();
      await t.store.db.deleteFrom('refund_status_history').where('refund_code', '=', resent).where('to_status', '=', 1).execute();
      // The airline lost VOID01 (refused for good) and fails for TWO001 (retryable).
      t.world.bookings.delete('XS/VOID01');
      const two = t.world.bookings.get('XS/TWO001')!;
      t.world.bookings.set('XS/TWO001', { ...two, behaviour: { failure: 'error' } });
      const before = { ...calls };

      const outcomes = await lifecycle.submitBatch([accepted, resent, refused, failing, accepted]);
      assert.deepEqual(batches ? [calls.many - before.many, calls.one - before.one] : [calls.many, calls.one - before.one], batches ? [1, 0] : [0, 4]);
      assert.deepEqual([...outcomes.keys()], [accepted, resent, refused, failing]);
      assert.equal(outcomes.get(accepted), undefined);
      assert.equal(outcomes.get(resent), undefined);
      assert.equal(outcomes.get(refused), undefined);
      const err = outcomes.get(failing);
      assert.ok(err instanceof ConnectorError && err.kind === 'unavailable' && err.retryable, String(err));

      const row = (code: string) => t.store.db.selectFrom('refund_orders').select(['status', 'cancel_reason', 'airline_refund_id']).where('refund_code', '=', code).executeTakeFirstOrThrow();
      const causes = async (code: string) =>
        (await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status', 'cause']).where('refund_code', '=', code).orderBy('id').execute()).map((h) => [h.from_status, h.to_status, h.cause]);
      const airline = (code: string) => t.store.db.selectFrom('sandbox_refunds').select(['airline_refund_id', 'submit_calls']).where('refund_code', '=', code).executeTakeFirst();

      const a = await airline(accepted);
      assert.equal(a?.submit_calls, 1);
      assert.deepEqual(await row(accepted), { status: 1, cancel_reason: null, airline_refund_id: a.airline_refund_id });
      assert.deepEqual((await causes(accepted)).at(-1), [0, 1, `submitted to the airline (${a.airline_refund_id})`]);

      const r = await airline(resent);
      assert.equal(r?.submit_calls, 2);
      assert.deepEqual(await row(resent), { status: 1, cancel_reason: null, airline_refund_id: r.airline_refund_id });
      assert.deepEqual((await causes(resent)).at(-1), [0, 1, `submitted to the airline (${r.airline_refund_id}, resent)`]);

      assert.equal(await airline(refused), undefined);
      assert.deepEqual(await row(refused), { status: 4, cancel_reason: 'does not match airline policy', airline_refund_id: null });
      assert.deepEqual((await causes(refused)).at(-1), [0, 4, `airline refused the submission: sandbox airline XS refuses refund ${refused}: it has no booking VOID01`]);

      assert.equal(await airline(failing), undefined);
      assert.deepEqual(await row(failing), { status: 0, cancel_reason: null, airline_refund_id: null });

      // The retry, once the airline answers again, moves it; the others stay where they are.
      t.world.bookings.set('XS/TWO001', two);
      const retried = await lifecycle.submitBatch([failing, accepted, refused]);
      assert.deepEqual([...retried.values()], [undefined, undefined, undefined]);
      assert.equal((await row(failing)).status, 1);
      assert.equal((await airline(accepted))?.submit_calls, 1, 'a refund already at 1 is not sent again');
      assert.deepEqual((await causes(refused)).map(([from, to]) => [from, to]), [[null, 0], [0, 4]], 'refused once, for good');
    });
  }
});

// docs/refunds.md "How the airline paid": the airline applies its own rule when the refund reaches it; a window
// boundary crossed between the quote and the submission changes cash back into a voucher or back (a review: the query
// answered the quote's method and never showed the voucher the airline issued).
describe('the airline pays by its rule at submission, and the query says how it paid', () => {
  type Rules = WorldFile['airlines'][number]['refundRules'];
  /** Window Air's booking WIN001 (one passenger, deposit), its outbound flight 4 days out (or `outbound`) and its return 20. */
  async function windowAir(
    rules: (minutesToOutbound: number) => Rules,
    tickets: WorldFile['bookings'][number]['tickets'],
    outbound = { departure: '+4d 10:00', arrival: '+4d 14:00' },
    tweak: (w: WorldFile) => void = () => undefined,
  ) {
    const clock = new TestClock();
    const file = refundWorld();
    file.airlines.push({ code: 'XW', name: 'Window Air', confirmationDays: 1, refundDays: 3, fastConfirmation: false, refundRules: [], refundBehaviour: { processingSeconds: 30 } });
    tweak(file);
    file.flights.push(
      { id: 'xw-out', carrier: 'XW', flightNumber: 'XW77', from: 'HND', to: 'SGN', ...outbound, aircraft: '320' },
      { id: 'xw-ret', carrier: 'XW', flightNumber: 'XW78', from: 'SGN', to: 'HND', departure: '+20d 10:00', arrival: '+20d 17:00', aircraft: '320' },
    );
    file.bookings.push({
      carrier: 'XW', status: 'Ticketed', contact: { email: 'window.air@example.test' }, bookedBy: 'client-alpha', paymentMethod: 'deposit', issuedAt: '-5d 10:00', pnr: 'WIN001',
      passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
      segments: [{ flight: 'xw-out' }, { flight: 'xw-ret', direction: 'ret' }],
      tickets,
    });
    const dep = buildWorld(file, clock.now()).flights.get('xw-out')!.current.dep.toJSDate();
    file.airlines.at(-1)!.refundRules = rules(Math.floor((dep.getTime() - clock.now().getTime()) / 60_000));
    const app = await makeTestApp({ world: file, clock, workers: true });
    const orderNo = await orderNoOfPnr(app.store.db, 'WIN001');
    const segment = (id: string) => refundSegment(app.world, id);
    const query = async (refundCode: string) =>
      ((await call(app.app, '/queryRefundOrders.do', { orderNo, refundCode })).body as unknown as { refundOrders: Array<Record<string, any>> }).refundOrders[0]!;
    /** Submits the quote `minutesLater` and waits until the airline has paid: the final query answer and the airline's row. */
    const refundPaid = async (quote: Record<string, unknown>, minutesLater: number, quoted: string, finalStatus = 2) => {
      clock.advance(minutesLater * 60_000);
      const s = await call(app.app, '/refund.do', { orderNo, refundOfferId: quote.refundOfferId });
      assert.equal(s.body.status, 0, String(s.body.msg));
      const refundCode = String(s.body.refundCode);
      await waitFor('submitted to the airline', async () => (await query(refundCode)).refundStatus === 1);
      assert.equal((await query(refundCode)).refundMethod, quoted, 'as quoted while the airline has not paid');
      clock.advance(70_000);
      const done = await waitFor('refunded', async () => {
        const r = await query(refundCode);
        return r.refundStatus === finalStatus ? r : null;
      });
      const airline = await app.store.db.selectFrom('sandbox_refunds').select(['voucher', 'airline_refund_id']).where('refund_code', '=', refundCode).executeTakeFirstOrThrow();
      const row = await app.store.db.selectFrom('refund_orders').select('refund_method').where('refund_code', '=', refundCode).executeTakeFirstOrThrow();
      assert.equal(row.refund_method, done.refundMethod, 'the console and the webhooks read the same');
      return { done, airline };
    };
    return { app, orderNo, segment, refundPaid };
  }
  const oneTicket = [{ ticketNo: '111-2000000999', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE' as const, 'OPEN_FOR_USE' as const] }];

  for (const [quoted, paid] of [
    ['CashBackToOriginalPayment', 'Voucher'],
    ['Voucher', 'CashBackToOriginalPayment'],
  ] as const) {
    test(`quoted ${quoted}, paid ${paid}`, async () => {
      // the boundary 10 minutes from now: the quote falls in the first window, the submission 20 minutes later in the second
      const w = await windowAir(
        (m) => [
          { ruleType: '1', startMinute: 525600, endMinute: m - 10, fareRefundable: true, taxRefundable: true, refundMethod: quoted },
          { ruleType: '1', startMinute: m - 10, endMinute: -525600, fareRefundable: true, taxRefundable: true, refundMethod: paid },
        ],
        oneTicket,
      );
      try {
        const q = await call(w.app.app, '/refundQuotation.do', { orderNo: w.orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [w.segment('xw-out'), w.segment('xw-ret')] }] });
        assert.equal(q.body.status, 0, String(q.body.msg));
        assert.equal(q.body.refundMethod, quoted);
        const { done, airline } = await w.refundPaid(q.body, 20, quoted);
        assert.equal(airline.voucher, paid === 'Voucher', 'the airline applied its rule at submission');
        assert.equal(done.refundMethod, paid);
        if (paid === 'Voucher') {
          assert.equal(done.refundFareAmount, null);
          assert.equal(done.refundVouchers.length, 1);
          assert.equal(done.refundVouchers[0].voucherCode, `V-${airline.airline_refund_id}`);
          assert.equal(done.refundVouchers[0].airline, 'XW');
          assert.equal(done.refundVouchers[0].estimatedRefundAmount, 240);
          assert.deepEqual(done.refundVouchers[0].eligiblePassengers, [{ name: `${lastA}/${firstA}` }]);
        } else {
          assert.equal(done.refundVouchers, null);
          assert.equal(done.refundFareAmount.estimatedRefundAmount, 240);
        }
      } finally {
        await w.app.close();
      }
    });
  }

  test('paid in a voucher below the service fee (→ 4): the query still says how the airline paid, with its voucher code (a review)', async () => {
    const w = await windowAir(
      (m) => [
        { ruleType: '1', startMinute: 525600, endMinute: m - 10, fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment' },
        { ruleType: '1', startMinute: m - 10, endMinute: -525600, fareRefundable: true, taxRefundable: true, refundMethod: 'Voucher' },
      ],
      oneTicket,
      undefined,
      (file) => {
        const alpha = file.clients.find((c) => c.id === 'client-alpha')!;
        alpha.settings = { ...alpha.settings, refundServiceFee: 'EUR 100.00' };
        file.airlines.at(-1)!.refundBehaviour = { processingSeconds: 30, payPercentOfQuote: 10 };
      },
    );
    try {
      const q = await call(w.app.app, '/refundQuotation.do', { orderNo: w.orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [w.segment('xw-out'), w.segment('xw-ret')] }] });
      assert.equal(q.body.status, 0, String(q.body.msg));
      const { done, airline } = await w.refundPaid(q.body, 20, 'CashBackToOriginalPayment', 4);
      assert.equal(airline.voucher, true);
      assert.equal(done.refundMethod, 'Voucher');
      assert.equal(done.refundVouchers[0].voucherCode, `V-${airline.airline_refund_id}`);
      assert.equal(done.refundFareAmount, null);
    } finally {
      await w.app.close();
    }
  });

  test("a return ticket of a booking split per direction is timed from its own first flight, as the quote's", async () => {
    // vouchers within 7 days of departure (and after it), cash back beyond: the outbound flew 2 days ago, the return
    // leaves in 20 days, and only the return ticket is left to refund (the outbound one was refunded at the airline)
    const w = await windowAir(
      () => [
        { ruleType: '1', startMinute: 525600, endMinute: 7 * 1440, fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment' },
        { ruleType: '1', startMinute: 7 * 1440, endMinute: -525600, fareRefundable: true, taxRefundable: true, refundMethod: 'Voucher' },
      ],
      [
        { ticketNo: '111-2000000998', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [1], coupons: ['REFUND'] },
        { ticketNo: '111-2000000999', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [2], coupons: ['OPEN_FOR_USE'] },
      ],
      { departure: '-2d 10:00', arrival: '-2d 14:00' },
    );
    try {
      const q = await call(w.app.app, '/refundQuotation.do', { orderNo: w.orderNo, refundRequestList: [{ lastName: lastA, firstName: firstA, refundReason: '1', segments: [w.segment('xw-ret')] }] });
      assert.equal(q.body.status, 0, String(q.body.msg));
      assert.equal(q.body.refundMethod, 'CashBackToOriginalPayment');
      const { done, airline } = await w.refundPaid(q.body, 1, 'CashBackToOriginalPayment');
      assert.equal(airline.voucher, false, 'the airline reads the return ticket by its return flight (20 days out), not the booking\'s outbound');
      assert.equal(done.refundMethod, 'CashBackToOriginalPayment');
    } finally {
      await w.app.close();
    }
  });
});
