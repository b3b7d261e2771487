// docs/seats.md is true: every seat status it says the demo world provokes, on worlds/demo.yaml.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadWorldFile } from '../airline/sandbox/world.js';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';

let t: TestApp;
before(async () => {
  const demo = loadWorldFile(path.resolve('worlds/demo.yaml'), new Date()).raw;
  // the demo's airlines, aircraft and flights, with the test clients (planted secrets)
  t = await makeTestApp({ world: { ...demo, clients: testWorld().clients, bookings: [] } });
});
after(() => t.close());

function seg(id: string) {
  const f = t.world.flights.get(id)!;
  return { carrier: f.carrier, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: f.current.dep.toFormat('yyyyMMddHHmm') };
}

async function seatStatus(id: string, cabinClass?: number): Promise<number> {
  const f = t.world.flights.get(id)!;
  const out = { carrier: f.carrier, flightNumber: f.flightNumber.slice(f.carrier.length), departureAirport: f.from, arrivalAirport: f.to, departureDate: f.current.dep.toFormat('yyyyMMdd') };
  const v = await call(t.app, '/verify.do', { outboundSegments: [out] }, { client: TEST_CLIENTS.alpha });
  assert.equal(v.body.status, 0, `${id}: ${v.body.msg}`);
  const { carrier, ...rest } = seg(id);
  const res = await call(t.app, '/seatAvailability.do', { sessionId: v.body.sessionId, carrier, outboundSegments: [{ segmentIndex: 1, ...rest, ...(cabinClass ? { cabinClass } : {}) }] });
  return res.body.status;
}

test('demo world: the seat statuses of docs/seats.md', async () => {
  assert.equal(await seatStatus('XS111-narrow'), 0);
  assert.equal(await seatStatus('XS901-wide'), 0);
  assert.equal(await seatStatus('XS951-upper'), 0);
  assert.equal(await seatStatus('XS111-narrow', 3), 216);
  assert.equal(await seatStatus('XS921-seatfail'), 216);
  assert.equal(await seatStatus('XS931-seaterror'), 217);
  assert.equal(await seatStatus('XN5-out'), 218);
  assert.equal(await seatStatus('XR21-out'), 219);
  assert.equal(await seatStatus('XS911-nofamily'), 221);
});
