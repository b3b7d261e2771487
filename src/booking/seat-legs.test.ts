// Two legs under one flight number on one day (a through flight: XS751 HND→SGN→CDG): each leg has its own seat
// map — aircraft, occupied seats, prices — and seatAvailability.do answers each leg with its own, whichever was
// asked first and whether they are asked in one session or two (the seat map cache keys a map by its airports;
// spec 4.4, the map of the requested segment).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { bookingWorld } from '../test-support/booking-world.js';
import { contact, passenger, seatOf, seatSegments, verifyFlights, type Cabin } from '../test-support/booking.js';
import { PLANTED } from '../test-support/planted.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;

describe('seat maps of two legs under one flight number', () => {
  let t: TestApp;
  before(async () => {
    const world = bookingWorld();
    world.flights.push(
      { id: 'bk-leg1', carrier: 'XS', flightNumber: 'XS751', from: 'HND', to: 'SGN', departure: '+8d 08:00', arrival: '+8d 12:00', aircraft: '321', occupiedSeats: ['12A'] },
      { id: 'bk-leg2', carrier: 'XS', flightNumber: 'XS751', from: 'SGN', to: 'CDG', departure: '+8d 14:00', arrival: '+8d 22:00', aircraft: '321', occupiedSeats: ['14C'] },
    );
    t = await makeTestApp({ world });
  });
  after(() => t.close());

  const seatMap = async (ids: string[]) => {
    const s = await verifyFlights(t, ids);
    const res = await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ids) });
    assert.equal(res.body.status, 0, res.body.msg as string);
    return res.body.cabins as Cabin[];
  };

  test('each leg asked in a session of its own gets its own map, the second after the first', async () => {
    const first = await seatMap(['bk-leg1']);
    assert.equal(seatOf(first, 1, '12A').seatStatus, 'O', 'leg 1: its occupied seat');
    assert.equal(seatOf(first, 1, '14C').seatStatus, 'F', 'leg 1: leg 2\'s occupied seat is free here');
    const second = await seatMap(['bk-leg2']);
    assert.equal(seatOf(second, 1, '14C').seatStatus, 'O', 'leg 2: its occupied seat');
    assert.equal(seatOf(second, 1, '12A').seatStatus, 'F', 'leg 2: leg 1\'s occupied seat is free here');
    assert.match(seatOf(second, 1, '14C').productCode, /^SCI_SEAT_14C_XS_SGN_CDG_/);
  });

  test('a routing of the second leg, or of both, verifies by its routingIdentifier (found by a review: 213, its leg looked up without airports found the first)', async () => {
    const depDate = t.world.flights.get('bk-leg1')!.current.dep.toFormat('yyyyMMdd');
    for (const [fromCity, toCity, legs] of [['SGN', 'CDG', 1], ['HND', 'CDG', 2]] as const) {
      const found = await call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity, toCity, fromDate: depDate, airlines: ['XS'], fromFlightNumbers: [Array(legs).fill('XS751').join(',')] });
      assert.equal(found.body.status, 0, `${fromCity}-${toCity}: ${String(found.body.msg)}`);
      const routing = (found.body.routings as Array<{ routingIdentifier: string }>)[0]!;
      const verified = await call(t.app, '/verify.do', { routingIdentifier: routing.routingIdentifier });
      assert.equal(verified.body.status, 0, `${fromCity}-${toCity}: ${String(verified.body.msg)}`);
    }
  });

  test('both legs in one session: each segment of the answer is its own leg\'s map', async () => {
    const both = await seatMap(['bk-leg1', 'bk-leg2']);
    assert.equal(seatOf(both, 1, '12A').seatStatus, 'O');
    assert.equal(seatOf(both, 1, '14C').seatStatus, 'F');
    assert.equal(seatOf(both, 2, '14C').seatStatus, 'O');
    assert.equal(seatOf(both, 2, '12A').seatStatus, 'F');
  });

  test("a seat sold on one leg stays free on the other, and one passenger may take the same seat on both (found by a review: the legs shared their sales)", async () => {
    const s = await verifyFlights(t, ['bk-leg1', 'bk-leg2']);
    const maps = async () => (await call(t.app, '/seatAvailability.do', { sessionId: s.sessionId, carrier: 'XS', outboundSegments: seatSegments(t, ['bk-leg1', 'bk-leg2']) })).body.cabins as Cabin[];
    const before = await maps();
    // 20A on leg 1 only, STOP_TICKET: refused (328) if the airline thought it taken
    const one = await call(t.app, '/order.do', { contact, sessionId: s.sessionId, ifSeatOccupied: 'STOP_TICKET', passengers: [passenger(lastA, firstA, [{ productCode: seatOf(before, 1, '20A').productCode, segmentIndex: 1 }])] });
    assert.equal(one.body.status, 0, String(one.body.msg));
    const after = await maps();
    assert.equal(seatOf(after, 1, '20A').seatStatus, 'O', 'sold on leg 1');
    assert.equal(seatOf(after, 2, '20A').seatStatus, 'F', 'still free on leg 2');
    // the same seat on both legs for one passenger
    const both = await call(t.app, '/order.do', {
      contact,
      sessionId: s.sessionId,
      ifSeatOccupied: 'STOP_TICKET',
      passengers: [passenger(lastB, firstB, [{ productCode: seatOf(after, 1, '21C').productCode, segmentIndex: 1 }, { productCode: seatOf(after, 2, '21C').productCode, segmentIndex: 2 }])],
    });
    assert.equal(both.body.status, 0, String(both.body.msg));
    const last = await maps();
    assert.deepEqual([seatOf(last, 1, '21C').seatStatus, seatOf(last, 2, '21C').seatStatus, seatOf(last, 2, '20A').seatStatus], ['O', 'O', 'F']);
  });
});
