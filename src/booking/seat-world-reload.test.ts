// Decision 0014: a cached seat map can never show a sold or occupied seat as free. A world reload (the console's
// sandbox panel, another process's reload followed) changes a flight's occupied seats; the map's version carries
// the world's generation. A reload that lands while a map is being read must not tag the old world's map with the
// new generation (found by a review: the generation was read after the inventory read's await).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp } from '../test-support/app.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { seatOf, seatSegments, verifyFlights } from '../test-support/booking.js';
import { SandboxConnector } from '../airline/sandbox/connector.js';
import { buildWorld } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import type { SeatInventory } from '../airline/sandbox/seat-inventory.js';

test('a world reloaded while a seat map is read: the next request shows the reloaded world\'s occupied seat', async () => {
  let connector: SandboxConnector | undefined;
  const t = await makeTestApp({ world: bookingWorld(), connectors: (world, books) => [(connector = new SandboxConnector(world, books))] });
  try {
    const s = await verifyFlights(t, ['bk-narrow']);
    const body = { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-narrow']) };
    const inventory = (connector!.booking as unknown as { inventory: SeatInventory }).inventory;
    const read = inventory.read.bind(inventory);
    let reloadDuringRead = true;
    inventory.read = async (...args: Parameters<SeatInventory['read']>) => {
      const r = await read(...args);
      if (reloadDuringRead) {
        reloadDuringRead = false;
        // the reload lands while this read is under way: 22F occupied from now on
        const raw = structuredClone<WorldFile>(t.world.raw);
        const f = raw.flights.find((x) => x.id === 'bk-narrow')!;
        f.occupiedSeats = [...(f.occupiedSeats ?? []), '22F'];
        Object.assign(t.world, buildWorld(raw, t.clock.now(), 'reloaded'));
      }
      return r;
    };
    const first = await call(t.app, '/seatAvailability.do', body);
    assert.equal(first.body.status, 0, String(first.body.msg));
    assert.equal(seatOf(first.body.cabins as never, 1, '22F').seatStatus, 'F', 'read from the world before the reload');
    const next = await call(t.app, '/seatAvailability.do', body);
    assert.equal(seatOf(next.body.cabins as never, 1, '22F').seatStatus, 'O', 'the reloaded world: 22F occupied');
  } finally {
    await t.close();
  }
});
