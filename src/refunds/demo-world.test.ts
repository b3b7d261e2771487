// Every refund status code of spec 7.1 has a scenario in the bundled demo world (docs/refunds.md), and the
// README's refund walk-through works: this test runs them all against worlds/demo.yaml.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { claimWorldBooking } from '../test-support/claim.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { refundSegment } from '../test-support/refund-world.js';

const DEMO = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };
const OTHER = { id: 'other-agency', secret: 'other-agency-secret-2026' };
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../../worlds/demo.yaml'), 'utf8')) as WorldFile;

describe('the demo world provokes every refund code', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world, workers: true });
  });
  after(() => t.close());

  const seg = (flightId: string) => refundSegment(t.world, flightId);
  const pax = (last: string, first: string, flights: string[], reason = '1') => ({ lastName: last, firstName: first, refundReason: reason, segments: flights.map(seg) });
  const carrierOf = (pnr: string) => [...t.world.bookings.values()].find((b) => b.record.pnr === pnr)!.record.carrier;
  const quote = async (pnr: string, items: unknown[], client = DEMO) =>
    call(t.app, '/refundQuotation.do', { airlinePNR: pnr, carrier: carrierOf(pnr), refundRequestList: items }, { client });
  const claim = (pnr: string) => claimWorldBooking(t, pnr, DEMO);
  const expect = async (name: string, res: Promise<{ body: { status: number; msg: string | null } }>, status: number) => {
    const r = await res;
    assert.equal(r.body.status, status, `${name}: ${r.body.status} ${r.body.msg}`);
  };

  test('README walk-through: DEMO20 quote → submit → 0 → 1 → 3 → 2', async () => {
    const q = await quote('DEMO20', [pax('REFUND', 'RUI', ['XS101-out', 'XS102-ret'])]);
    assert.equal(q.body.status, 0, String(q.body.msg));
    const s = await call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundOfferId: q.body.refundOfferId }, { client: DEMO });
    assert.equal(s.body.status, 0, String(s.body.msg));
    const statusNow = async () => (await call(t.app, '/queryRefundOrders.do', { refundCode: s.body.refundCode }, { client: DEMO })).body as any;
    const seen = new Set<number>();
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const st = (await statusNow()).refundOrders[0].refundStatus as number;
      seen.add(st);
      if (st === 2) break;
      if (st >= 1) t.clock.advance(12_000); // the demo airline takes 20 s per step; the test clock hurries it
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.ok(seen.has(2), `reached ${[...seen].join(',')}`);
    const hist = await t.store.db.selectFrom('refund_status_history').select(['from_status', 'to_status']).where('refund_code', '=', String(s.body.refundCode)).orderBy('id').execute();
    assert.deepEqual(hist.map((h) => h.to_status), [0, 1, 3, 2]);
    await expect('803 again', quote('DEMO20', [pax('REFUND', 'RUI', ['XS101-out', 'XS102-ret'])]), 803);
  });

  test('request shapes and bookings of demo-agency', async () => {
    await expect('810', quote('DEMO20', [pax('REFUND', 'RUI', ['XS101-out', 'XS102-ret'], '3')]), 810);
    await expect('801', call(t.app, '/refundQuotation.do', { orderNo: '4242424242424242', refundRequestList: [pax('REFUND', 'RUI', ['XS101-out'])] }, { client: DEMO }), 801);
    await expect('824', call(t.app, '/refundQuotation.do', { orderNo: 'PT-DEMO20-1', refundRequestList: [pax('REFUND', 'RUI', ['XS101-out'])] }, { client: DEMO }), 824);
    await expect('809', quote('DEMO21', [pax('UNPAID', 'UNA', ['XS101-out'])]), 809);
    await expect('841', quote('DEMO22', [pax('MERCHANT', 'MAX', ['XS101-out'])]), 841);
    await expect('806', quote('DEMO23', [pax('OWNACCOUNT', 'ODA', ['XS101-out'])]), 806);
    await expect('807', quote('DEMO23', [pax('NOBODY', 'ODA', ['XS101-out'])]), 807);
    await expect('812', quote('DEMO23', [pax('OWNACCOUNT', 'ODETTE', ['XS101-out'])]), 812);
    await expect('8041', quote('DEMO23', [pax('OWNACCOUNT', 'ODA', ['XS102-ret'])]), 8041);
    await expect('804', quote('DEMO24', [pax('TWOTICKETS', 'TIA', ['XS101-out'])]), 804);
    await expect('815', quote('DEMO25', [pax('LAP', 'LEO', ['XS101-out'])]), 815);
    await expect('lap infant leaves with the adult', quote('DEMO25', [pax('LAP', 'LIA', ['XS101-out'])]), 0);
    await expect('817', quote('DEMO26', [pax('ELSEWHERE', 'EDDA', ['XS101-out'])]), 817);
    await expect('823', quote('DEMO27', [pax('VOID', 'VERA', ['XS101-out'], '4')]), 823);
    await expect('void ok', quote('DEMO27', [pax('VOID', 'VERA', ['XS101-out'], '4'), pax('VOID', 'VIK', ['XS101-out'], '4')]), 0);
    await expect('840', quote('DEMO28', [pax('CRITERIA', 'CORA', ['XS101-out'])], OTHER), 840);
    const nonref = await quote('DEMO29', [pax('BASIC', 'BO', ['XB1-out'])]);
    assert.equal(nonref.body.isRefundable, false);
    await expect('808', call(t.app, '/refund.do', { airlinePNR: 'DEMO29', carrier: 'XB', refundOfferId: nonref.body.refundOfferId }, { client: DEMO }), 808);
    const late = await quote('DEMO31', [pax('NOSHOW', 'NILS', ['XS401-past'])]);
    assert.equal(late.body.status, 0);
    await expect('825', call(t.app, '/refund.do', { airlinePNR: 'DEMO31', carrier: 'XS', refundOfferId: late.body.refundOfferId }, { client: DEMO }), 825);
    await expect('842', quote('DEMO32', [pax('NOREFUND', 'NORA', ['XN5-out'])]), 842);
    await expect('813', call(t.app, '/refund.do', { airlinePNR: 'DEMO20', carrier: 'XS', refundOfferId: 'rfo_unknown' }, { client: DEMO }), 813);
    const old = await quote('DEMO27', [pax('VOID', 'VERA', ['XS101-out'], '0'), pax('VOID', 'VIK', ['XS101-out'], '0')]);
    t.clock.advance(31 * 60_000);
    await expect('805', call(t.app, '/refund.do', { airlinePNR: 'DEMO27', carrier: 'XS', refundOfferId: old.body.refundOfferId }, { client: DEMO }), 805);
    await expect('811 (checked before 803)', quote('DEMO20', [pax('REFUND', 'RUI', ['XS101-out'])]), 811);
  });

  test('claimed demo bookings', async () => {
    for (const pnr of ['DEMO05', 'DEMO12', 'DEMO13', 'DEMO14', 'DEMO15', 'DEMO30', 'DEMO06']) await claim(pnr);
    await expect('820', quote('DEMO05', [pax('FLOWN', 'FINN', ['XS401-past', 'XS402-future'], '0')]), 820);
    await expect('811', quote('DEMO05', [pax('FLOWN', 'FINN', ['XS402-future'], '0')]), 811);
    await expect('826', quote('DEMO12', [pax('TAXCHECK', 'TOM', ['XS101-out'])]), 826);
    await expect('821', quote('DEMO13', [pax('DEADLINE', 'NED', ['XD31-past'], '0')]), 821);
    await expect('843', quote('DEMO14', [pax('ROUTE', 'ROSA', ['XR21-out'])]), 843);
    await expect('816 first', call(t.app, '/refund.do', { airlinePNR: 'DEMO15', carrier: 'XO', refundRequestList: [pax('ONCE', 'OTTO', ['XO7-out'], '0')] }, { client: DEMO }), 0);
    await expect('816', quote('DEMO15', [pax('ONCE', 'OLGA', ['XO7-out'], '0')]), 816);
    await expect('819', quote('DEMO30', [pax('UNKNOWNPAY', 'UMA', ['XS101-out'])]), 819);
    await expect('802', quote('DEMO06', [pax('FAMILY', 'GIA', ['XS101-out'])]), 802);
    await expect('822', quote('DEMO06', [pax('FAMILY', 'GIA', ['XS101-out'], '4'), pax('FAMILY', 'HAL', ['XS101-out'], '4'), pax('FAMILY', 'IDA', ['XS101-out'], '4')]), 822);
    await expect('818 first', call(t.app, '/refund.do', { airlinePNR: 'DEMO27', carrier: 'XS', refundRequestList: [pax('VOID', 'VERA', ['XS101-out'], '1')] }, { client: DEMO }), 0);
    await expect('818', quote('DEMO27', [pax('VOID', 'VIK', ['XS101-out'], '4')]), 818);
  });
});
