// Every void status code has a booking in the bundled demo world (docs/voids.md "Codes"), and the void
// walk-through of docs/voids.md works: this test runs them against worlds/demo.yaml.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { claimWorldBooking } from '../test-support/claim.js';
import { carrierVoidClock } from '../test-support/void-world.js';
import { refundSegment } from '../test-support/refund-world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';

const DEMO = { id: 'demo-agency', secret: 'demo-agency-secret-2026' };
const world = YAML.parse(fs.readFileSync(path.join(import.meta.dirname, '../../worlds/demo.yaml'), 'utf8')) as WorldFile;

describe('the demo world provokes every void code', () => {
  let t: TestApp;
  before(async () => {
    // XS voids until the end of the issue day in Asia/Tokyo, and the walk-through moves the clock minutes on
    t = await makeTestApp({ world, workers: true, clock: carrierVoidClock(world, 'XS') });
  });
  after(() => t.close());

  const carrierOf = (pnr: string) => [...t.world.bookings.values()].find((b) => b.record.pnr === pnr)!.record.carrier;
  const post = (url: string, pnr: string, extra: Record<string, unknown> = {}) => call(t.app, url, { airlinePNR: pnr, carrier: carrierOf(pnr), ...extra }, { client: DEMO });
  const expect = async (label: string, res: ReturnType<typeof call>, status: number) => {
    const r = await res;
    assert.equal(r.body.status, status, `${label}: ${r.body.msg}`);
    return r;
  };

  test('822 past the deadline, 843 outside coverage, 823 partial (a refunded ticket; some passengers named), 809, 824, 820, 807, 818', async () => {
    await expect('822', post('/voidQuotation.do', 'DEMO41'), 822);
    await expect('843', post('/voidQuotation.do', 'DEMO42'), 843);
    await expect('823 refunded ticket', post('/voidQuotation.do', 'DEMO43'), 823);
    await expect('823 one of two named', post('/voidQuotation.do', 'DEMO40', { passengers: [{ lastName: 'VOIDABLE', firstName: 'VAL' }] }), 823);
    await expect('809 unpaid', post('/voidQuotation.do', 'DEMO21'), 809);
    await expect('824 an ancillary order number', call(t.app, '/voidQuotation.do', { orderNo: 'PT-DEMO20-1' }, { client: DEMO }), 824);
    await claimWorldBooking(t, 'DEMO05', DEMO);
    await expect('820 a flown coupon', post('/voidQuotation.do', 'DEMO05'), 820);
    await expect('807 someone else named', post('/voidQuotation.do', 'DEMO40', { passengers: [{ lastName: 'VOIDABLE', firstName: 'VAL' }, { lastName: 'NOBODY', firstName: 'NED' }] }), 807);
    await expect('818 after a refund', (async () => {
      const refund = await post('/refund.do', 'DEMO26', { refundRequestList: [{ lastName: 'ELSEWHERE', firstName: 'ELLIS', refundReason: '0', segments: [seg()] }] });
      assert.equal(refund.body.status, 0, String(refund.body.msg));
      return post('/voidQuotation.do', 'DEMO26');
    })(), 818);
  });

  const seg = () => refundSegment(t.world, 'XS101-out');

  test('the walk-through: DEMO40 voided to status 2; then 803 for a second void and 818 for a refund', async () => {
    const q = await expect('quote', post('/voidQuotation.do', 'DEMO40'), 0);
    assert.equal(q.body.voidWindow && (q.body.voidWindow as { sameDayTimezone: string }).sameDayTimezone, 'Asia/Tokyo');
    const s = await expect('void', post('/void.do', 'DEMO40', { voidOfferId: q.body.voidOfferId }), 0);
    const voidCode = String(s.body.voidCode);
    const statusOf = async () => ((await call(t.app, '/queryVoidOrders.do', { voidCode }, { client: DEMO })).body.voidOrders as Array<{ voidStatus: number }>)[0]!.voidStatus;
    await expect('803 while under way', post('/voidQuotation.do', 'DEMO40'), 803);
    const deadline = Date.now() + 20_000;
    while ((await statusOf()) !== 2) {
      assert.ok(Date.now() < deadline, `voidStatus stuck at ${await statusOf()}`);
      t.clock.advance(15_000);
      await new Promise((r) => setTimeout(r, 300));
    }
    await expect('803 once voided', post('/voidQuotation.do', 'DEMO40'), 803);
    await expect('818 refund of a voided order', post('/refundQuotation.do', 'DEMO40', { refundRequestList: [{ lastName: 'VOIDABLE', firstName: 'VAL', refundReason: '1', segments: [seg()] }] }), 818);
  });
});
