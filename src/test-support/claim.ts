// Claims a booking of the test's world for a client (pnr/claim.do with the record's own passengers and
// booked schedule): the demo-world tests claim bookings that nobody booked through postbook.
import assert from 'node:assert/strict';
import { call, type TestApp } from './app.js';

export async function claimWorldBooking(t: TestApp, pnr: string, client: { id: string; secret: string }): Promise<void> {
  const b = [...t.world.bookings.values()].find((x) => x.record.pnr === pnr)!.record;
  const segs = (direction: 'out' | 'ret') =>
    b.segments
      .filter((s) => s.direction === direction)
      .map((s) => ({ carrier: s.carrier, flightNumber: s.flightNumber, depAirport: s.depAirport, arrAirport: s.arrAirport, depTime: s.bookedDepLocal.replace(/\D/g, '') }));
  const res = await call(
    t.app,
    '/pnr/claim.do',
    { mmb: { airlinePnr: pnr, email: b.contact.email }, passengers: b.passengers.map((p) => ({ name: `${p.lastName}/${p.firstName}` })), fromSegments: segs('out'), retSegments: segs('ret') },
    { client },
  );
  assert.equal(res.body.status, 0, `${pnr}: ${res.body.msg}`);
}
