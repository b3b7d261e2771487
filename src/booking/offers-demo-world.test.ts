// docs/decisions/0024 is true on worlds/demo.yaml: XS111's fare families (LIGHT, STANDARD ×1.25, FLEX ×1.6)
// as getOffers.do offers with Sandbox Air's refund rules as penalties, and the statuses the demo provokes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadWorldFile } from '../airline/sandbox/world.js';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { testWorld } from '../test-support/world.js';

let t: TestApp;
before(async () => {
  const demo = loadWorldFile(path.resolve('worlds/demo.yaml'), new Date()).raw;
  t = await makeTestApp({ world: { ...demo, clients: testWorld().clients, bookings: [] } });
});
after(() => t.close());

function seg(id: string, flightNumber?: string) {
  const f = t.world.flights.get(id)!;
  return { carrier: f.carrier, departureAirport: f.from, arrivalAirport: f.to, departureDate: f.current.dep.toFormat('yyyyMMdd'), flightNumber: flightNumber ?? f.flightNumber.slice(2) };
}

type Offer = { offerID: string; paxFares: Array<{ paxType: string; price: { baseAmount: number } }>; penalties: Array<{ amount: number; rule: { paxTypes: string[]; effectiveMinutes: number; levelType: string } }>; services: Array<{ type: string; level: string }>; outboundJourney: { segments: Array<{ fareFamily: string }> } };

test('plan §3.3 on the demo: XS111 sells LIGHT, STANDARD and FLEX; penalties are Sandbox Air\'s refund rules', async () => {
  const res = await call(t.app, '/getOffers.do', { adults: 1, children: 1, outboundSegments: [seg('XS111-narrow')] });
  assert.equal(res.body.status, 0, res.body.msg ?? '');
  const offers = (res.body.data as Array<{ offer: Offer }>).map((d) => d.offer);
  assert.deepEqual(
    offers.map((o) => [o.outboundJourney.segments[0]!.fareFamily, o.paxFares[0]!.price.baseAmount]),
    [['LIGHT', 310], ['STANDARD', 387.5], ['FLEX', 496]],
  );
  const light = offers[0]!;
  const at = (minutes: number, paxType: string) => light.penalties.find((p) => p.rule.effectiveMinutes === minutes && p.rule.paxTypes.includes(paxType))!;
  assert.deepEqual([at(525600, 'ADT').amount, at(1440, 'ADT').amount, at(525600, 'CHD').amount], [50, 155, 25]);
  assert.deepEqual([at(0, 'ADT').amount, at(0, 'ADT').rule.levelType], [320, 'Partial'], 'after departure: the fare and the EUR 10 fee are kept, the tax comes back');
  assert.ok(offers[2]!.services.some((s) => s.type === 'Seat' && s.level === 'Free'), 'FLEX includes the seat');
  assert.ok(light.services.some((s) => s.type === 'Seat' && s.level === 'Chargeable'));
});

test('plan §3.3/§3.4 statuses the demo provokes: 112 (XT answers in 20 s), 116 (no such flight), 214', async () => {
  assert.equal((await call(t.app, '/getOffers.do', { adults: 1, maxResponseTime: 200, outboundSegments: [seg('XT9-out')] })).body.status, 112);
  assert.equal((await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [seg('XS111-narrow', '119')] })).body.status, 116);
  assert.equal((await call(t.app, '/getLuggage.do', { offerId: 'ofr_unknown' })).body.status, 214);
});
