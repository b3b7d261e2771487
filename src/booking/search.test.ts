// search.do and verify.do on the original interface's shapes (docs/plans/original-chain.md §3.1, §3.2, §6, §8;
// docs/decisions/0021): cities, one-stop connections, the statuses, "" as absent, integers sent as strings.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { createRatePools, DEFAULT_POOL_LIMITS } from '../ratelimit/pools.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';
import { cityTable, airportsForCode } from '../airline/sandbox/cities.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';

/** The test world plus Jakarta (CGK, HLP and QPG, an airport put in JKT by its own `city`), Surabaya and Bali. */
function citiesWorld(): WorldFile {
  const w = testWorld();
  w.airlines.push(
    { code: 'XE', name: 'Error Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, behaviour: { failure: 'error' }, refundRules: [] },
    { code: 'XI', name: 'No Infants Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, infantsAllowed: false, refundRules: [] },
  );
  w.airports.push(
    { code: 'CGK', name: 'Soekarno-Hatta', timeZone: 'Asia/Jakarta' },
    { code: 'HLP', name: 'Halim', timeZone: 'Asia/Jakarta' },
    { code: 'QPG', name: 'Jakarta Test Field', timeZone: 'Asia/Jakarta', city: 'JKT' },
    { code: 'SUB', name: 'Juanda', timeZone: 'Asia/Jakarta' },
    { code: 'DPS', name: 'Ngurah Rai', timeZone: 'Asia/Makassar' },
  );
  const usd = (fare: number) => ({ currency: 'USD', adult: { fare, tax: 10 } });
  w.flights.push(
    { id: 'cgk-sub', carrier: 'XS', flightNumber: 'XS771', from: 'CGK', to: 'SUB', departure: '+5d 07:00', arrival: '+5d 08:30', aircraft: '320', repeatDays: 3, fares: usd(80) },
    { id: 'hlp-sub', carrier: 'XS', flightNumber: 'XS773', from: 'HLP', to: 'SUB', departure: '+5d 16:00', arrival: '+5d 17:25', aircraft: '320', fares: usd(65) },
    { id: 'qpg-sub', carrier: 'XS', flightNumber: 'XS775', from: 'QPG', to: 'SUB', departure: '+5d 12:00', arrival: '+5d 13:30', aircraft: '320', fares: usd(60) },
    { id: 'sub-cgk', carrier: 'XS', flightNumber: 'XS772', from: 'SUB', to: 'CGK', departure: '+7d 19:00', arrival: '+7d 20:30', aircraft: '320', fares: usd(80) },
    // 90 minutes after XS771 lands: a connection; 20 minutes after XS775 lands: too short to connect
    { id: 'sub-dps', carrier: 'XS', flightNumber: 'XS781', from: 'SUB', to: 'DPS', departure: '+5d 10:00', arrival: '+5d 12:05', aircraft: '320', fares: usd(45) },
    { id: 'sub-dps-late', carrier: 'XS', flightNumber: 'XS783', from: 'SUB', to: 'DPS', departure: '+5d 13:50', arrival: '+5d 15:55', aircraft: '320', fares: usd(45) },
    { id: 'dps-sub', carrier: 'XS', flightNumber: 'XS782', from: 'DPS', to: 'SUB', departure: '+8d 09:00', arrival: '+8d 09:05', aircraft: '320', fares: usd(45) },
    { id: 'sub-cgk-2', carrier: 'XS', flightNumber: 'XS774', from: 'SUB', to: 'CGK', departure: '+8d 11:00', arrival: '+8d 12:30', aircraft: '320', fares: usd(80) },
    { id: 'few-seats', carrier: 'XS', flightNumber: 'XS791', from: 'CGK', to: 'DPS', departure: '+6d 07:00', arrival: '+6d 10:00', aircraft: '320', seatsForSale: 2, fares: usd(150) },
    { id: 'families', carrier: 'XS', flightNumber: 'XS795', from: 'HLP', to: 'DPS', departure: '+6d 08:00', arrival: '+6d 11:00', aircraft: '320', fareFamilies: ['LIGHT', 'FLEX'], fares: usd(120) },
    { id: 'error-air', carrier: 'XE', flightNumber: 'XE1', from: 'SUB', to: 'HLP', departure: '+6d 08:00', arrival: '+6d 09:30', aircraft: '320' },
    { id: 'padded', carrier: 'XS', flightNumber: 'XS0061', from: 'DPS', to: 'HLP', departure: '+5d 09:00', arrival: '+5d 11:00', aircraft: '320', fares: usd(70) },
    { id: 'no-infants', carrier: 'XI', flightNumber: 'XI5', from: 'DPS', to: 'CGK', departure: '+5d 09:00', arrival: '+5d 11:00', aircraft: '320', fares: usd(70) },
  );
  // 8 × 7 return combinations SUB–HLP, more than the sandbox answers (50), beside the failing XE1
  for (let i = 0; i < 8; i++) w.flights.push({ id: `sub-hlp-${i}`, carrier: 'XS', flightNumber: `XS80${i}`, from: 'SUB', to: 'HLP', departure: `+6d ${String(10 + i).padStart(2, '0')}:00`, arrival: `+6d ${String(11 + i).padStart(2, '0')}:30`, aircraft: '320', fares: usd(50) });
  for (let i = 0; i < 7; i++) w.flights.push({ id: `hlp-sub-${i}`, carrier: 'XS', flightNumber: `XS90${i}`, from: 'HLP', to: 'SUB', departure: `+9d ${String(10 + i).padStart(2, '0')}:00`, arrival: `+9d ${String(11 + i).padStart(2, '0')}:30`, aircraft: '320', fares: usd(50) });
  return w;
}

type Seg = { segmentIndex: number; flightNumber: string; depAirport: string; arrAirport: string; depTime: string; arrTime: string; seatCount: number; operatingFlightnumber: string | null };
type Routing = { routingIdentifier: string; currency: string; adultPrice: number; fromSegments: Seg[]; retSegments: Seg[] };

describe('search.do and verify.do (original shapes)', () => {
  let t: TestApp;
  before(async () => {
    // search.do's pool at 1,000 a second: these tests search faster than a caller may (10 a second: its own test in src/ratelimit)
    t = await makeTestApp({ world: citiesWorld(), pools: createRatePools({ redis: null, defaults: { ...DEFAULT_POOL_LIMITS, searchPerSecond: 1_000 } }) });
  });
  after(() => t.close());

  const date = (id: string) => t.world.flights.get(id)!.current.dep.toFormat('yyyyMMdd');
  const search = (body: Record<string, unknown>, client = TEST_CLIENTS.alpha) =>
    call(t.app, '/search.do', { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromDate: date('cgk-sub'), ...body }, { client });
  const routingsOf = (res: { body: Record<string, unknown> }) => res.body.routings as Routing[];
  const origins = (res: { body: Record<string, unknown> }) => [...new Set(routingsOf(res).map((r) => r.fromSegments[0]!.depAirport))].sort();

  test('plan §6: a city code matches every airport of the city, its own city field included', async () => {
    const res = await search({ fromCity: 'JKT', toCity: 'SUB', currency: 'USD', cid: 'tolerated', requestSource: 'test' });
    assert.equal(res.body.status, 0, String(res.body.msg));
    assert.deepEqual(origins(res), ['CGK', 'HLP', 'QPG']);
    const r = routingsOf(res).find((x) => x.fromSegments[0]!.flightNumber === 'XS771')!;
    assert.equal(r.currency, 'USD');
    assert.equal(r.adultPrice, 80);
    assert.deepEqual(r.retSegments, []);
    assert.equal(r.fromSegments[0]!.operatingFlightnumber, 'XS771');
    assert.equal(r.fromSegments[0]!.seatCount, 9);
  });

  test('plan §6: an airport code whose city differs matches that airport only; SUB is its own city', async () => {
    const res = await search({ fromCity: 'CGK', toCity: 'SUB' });
    assert.equal(res.body.status, 0, String(res.body.msg));
    assert.deepEqual(origins(res), ['CGK']);
    const pinned = await search({ fromCity: 'JKT', fromAirport: 'HLP', toCity: 'SUB' });
    assert.deepEqual(origins(pinned), ['HLP']);
    assert.equal((await search({ fromCity: 'SUB', fromAirport: 'CGK', toCity: 'DPS' })).body.status, 102, 'plan §3.1: fromAirport outside fromCity is 102');
  });

  test('plan §3.1: 102 unknown city code; a known city without flights is 114', async () => {
    const unknown = await search({ fromCity: 'QQQ', toCity: 'SUB' });
    assert.equal(unknown.body.status, 102);
    assert.match(String(unknown.body.msg), /unknown city code QQQ/);
    assert.equal((await search({ fromCity: 'TYO', toCity: 'SUB' })).body.status, 114, 'TYO is a city of the built-in table');
    assert.equal((await search({ fromCity: 'NRT', toCity: 'SUB' })).body.status, 114, 'NRT is an airport of TYO in the table');
  });

  test('plan §3.1: one-stop connections, segments continuous in segmentIndex, a change of at least 60 minutes', async () => {
    const res = await search({ fromCity: 'JKT', toCity: 'DPS', fromDate: date('sub-dps') });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const connections = routingsOf(res).filter((r) => r.fromSegments.length === 2);
    assert.deepEqual(
      connections.map((r) => r.fromSegments.map((s) => `${s.segmentIndex}:${s.flightNumber}`)),
      [
        ['1:XS771', '2:XS781'],
        ['1:XS771', '2:XS783'],
      ],
      'XS775 lands 20 minutes before XS783 leaves: too short to connect; XS773 lands after every onward flight',
    );
    assert.equal(connections[0]!.adultPrice, 125, 'the fares of both flights');
    const back = await search({ tripType: '2', fromCity: 'JKT', toCity: 'DPS', fromDate: date('sub-dps'), retDate: date('dps-sub') });
    const both = routingsOf(back).find((r) => r.fromSegments.length === 2 && r.retSegments.length === 2)!;
    assert.ok(both, 'a connection each way');
    assert.deepEqual([...both.fromSegments, ...both.retSegments].map((s) => s.segmentIndex), [1, 2, 3, 4]);
    // fromFlightNumbers names a connection by its flight numbers joined with a comma
    const only = await search({ fromCity: 'JKT', toCity: 'DPS', fromDate: date('sub-dps'), fromFlightNumbers: ['XS771,XS781'] });
    assert.deepEqual(routingsOf(only).map((r) => r.fromSegments.length), [2]);
    // zero-padded as verify.do and getOffers.do read them; a one-way search's retFlightNumbers ignored (a review: 114 each)
    const padded = await search({ fromCity: 'JKT', toCity: 'DPS', fromDate: date('sub-dps'), fromFlightNumbers: ['xs0771, XS00781'], retFlightNumbers: ['XS999'] });
    assert.equal(padded.body.status, 0, String(padded.body.msg));
    assert.deepEqual(routingsOf(padded).map((r) => r.fromSegments.map((x) => x.flightNumber)), [['XS771', 'XS781']]);
  });

  test('plan §8.0: "" is absent; tripType and counts as integers or strings', async () => {
    const res = await search({ tripType: 1, adultNum: '1', childNum: '0', fromCity: 'CGK', toCity: 'SUB', fromAirport: '', toAirport: '', retDate: '', currency: '', residentCode: '', displayCurrency: '' });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const v = await call(t.app, '/verify.do', { routingIdentifier: routingsOf(res)[0]!.routingIdentifier, requestSource: '', maxResponseTime: null });
    assert.equal(v.body.status, 0, String(v.body.msg));
  });

  test('plan §3.1: 100 missing, 101 format, 102 illegal values', async () => {
    const base = { fromCity: 'CGK', toCity: 'SUB' };
    const cases: Array<[Record<string, unknown>, number]> = [
      [{ ...base, adultNum: undefined }, 100],
      [{ ...base, tripType: '3' }, 101],
      [{ fromCity: 'J1', toCity: 'SUB' }, 101],
      [{ ...base, currency: 'DOLLARS' }, 101],
      [{ ...base, adultNum: 0 }, 102],
      [{ ...base, adultNum: 6, childNum: 4 }, 102],
      [{ ...base, adultNum: 1, infantNum: 2 }, 102],
      [{ ...base, adultNum: 'one' }, 102],
      [{ ...base, tripType: '2' }, 102],
      [{ ...base, fromDate: '2026-13-45' }, 102],
      [{ ...base, fromDate: '' }, 102],
      [{ fromCity: '', toCity: 'SUB' }, 102],
    ];
    for (const [body, status] of cases) {
      const res = await search(body);
      assert.equal(res.body.status, status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
    }
  });

  test('plan §3.1: 114 no flights; 124 settlement currency the airline does not sell in; airlines filter', async () => {
    assert.equal((await search({ fromCity: 'CGK', toCity: 'SUB', fromDate: '20200101' })).body.status, 114);
    assert.equal((await search({ fromCity: 'CDG', toCity: 'SUB' })).body.status, 114);
    const eur = await search({ fromCity: 'CGK', toCity: 'SUB', currency: 'EUR' });
    assert.equal(eur.body.status, 124);
    assert.equal((await search({ fromCity: 'CGK', toCity: 'SUB', currency: 'usd' })).body.status, 0);
    assert.equal((await search({ fromCity: 'CGK', toCity: 'SUB', airlines: ['XT'] })).body.status, 114);
  });

  test('plan §3.1: the airline is asked for the caller\'s carriers and flights (found by a review: its first 50 answers were filtered, and a carrier not asked for failed the search)', async () => {
    const trip = { tripType: '2', fromCity: 'SUB', toCity: 'HLP', fromDate: date('sub-hlp-0'), retDate: date('hlp-sub-0') };
    const named = await search({ ...trip, airlines: ['XS'], fromFlightNumbers: ['XS807'], retFlightNumbers: ['xs906'] });
    assert.equal(named.body.status, 0, String(named.body.msg));
    assert.deepEqual(routingsOf(named).map((r) => [r.fromSegments[0]!.flightNumber, r.retSegments[0]!.flightNumber]), [['XS807', 'XS906']]);
    const oneWay = await search({ fromCity: 'SUB', toCity: 'HLP', fromDate: date('sub-hlp-0'), airlines: ['XS'] });
    assert.equal(oneWay.body.status, 0, `XE's failure is not XS's: ${String(oneWay.body.msg)}`);
    assert.equal(routingsOf(oneWay).length, 8);
    assert.equal((await search({ fromCity: 'SUB', toCity: 'HLP', fromDate: date('sub-hlp-0') })).body.status, 113, 'asked for every carrier, XE fails the search');
  });

  test('plan §2.1: an airline that carries no infants: infantAllowed false with no infant price, and not offered to a search with infants', async () => {
    const res = await search({ fromCity: 'DPS', toCity: 'CGK', fromDate: date('no-infants') });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const r = (res.body.routings as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual([r.infantAllowed, r.infantPrice, r.infantTax], [false, 0, 0]);
    assert.equal((await search({ fromCity: 'DPS', toCity: 'CGK', fromDate: date('no-infants'), infantNum: 1 })).body.status, 114);
    const seg = { carrier: 'XI', flightNumber: '5', departureAirport: 'DPS', arrivalAirport: 'CGK', departureDate: date('no-infants') };
    const verify = await call(t.app, '/verify.do', { adultNum: 1, infantNum: 1, outboundSegments: [seg] });
    assert.equal(verify.body.status, 207, String(verify.body.msg));
    assert.match(String(verify.body.msg), /carries no infants/);
    const offers = await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [seg] });
    assert.equal(offers.body.status, 0, String(offers.body.msg));
    const fares = (offers.body.data as Array<{ offer: { paxFares: Array<{ paxType: string }> } }>)[0]!.offer.paxFares.map((f) => f.paxType);
    assert.deepEqual(fares, ['ADT', 'CHD'], 'a missing type is not sold');
    assert.equal((await call(t.app, '/getOffers.do', { adults: 1, infants: 1, outboundSegments: [seg] })).body.status, 102);
  });

  test('a world flight number written zero-padded (XS0061) is found by search.do, verify.do and getOffers.do under any spelling (found by a review: 207 and 116)', async () => {
    const found = await search({ fromCity: 'DPS', toCity: 'HLP', fromDate: date('padded') });
    assert.equal(found.body.status, 0, String(found.body.msg));
    for (const flightNumber of ['61', '0061', 'XS0061', 'XS61']) {
      const seg = { carrier: 'XS', flightNumber, departureAirport: 'DPS', arrivalAirport: 'HLP', departureDate: date('padded') };
      assert.equal((await call(t.app, '/verify.do', { outboundSegments: [seg] })).body.status, 0, `verify.do ${flightNumber}`);
      assert.equal((await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [seg] })).body.status, 0, `getOffers.do ${flightNumber}`);
    }
  });

  test('a cabin class the aircraft does not have is not sold (found by a review: business at three times the fare on an economy-only A320)', async () => {
    assert.equal((await search({ fromCity: 'CGK', toCity: 'SUB', cabinClass: 2 })).body.status, 114);
    const seg = { carrier: 'XS', flightNumber: '771', departureAirport: 'CGK', arrivalAirport: 'SUB', departureDate: date('cgk-sub') };
    assert.equal((await call(t.app, '/getOffers.do', { adults: 1, cabinClass: 2, outboundSegments: [seg] })).body.status, 116);
    assert.equal((await call(t.app, '/getOffers.do', { adults: 1, cabinClass: 1, outboundSegments: [seg] })).body.status, 0);
  });

  test('plan §3.1: repeatDays flights are found on each day', async () => {
    const later = t.world.flights.get('cgk-sub+3d')!;
    const res = await search({ fromCity: 'CGK', toCity: 'SUB', fromDate: later.current.dep.toFormat('yyyyMMdd') });
    assert.equal(res.body.status, 0);
    assert.equal(routingsOf(res)[0]!.fromSegments[0]!.depTime, later.current.dep.toFormat('yyyyMMddHHmm'));
  });

  test('plan §3.2: verify by routingIdentifier alone — sessionId, maxSeats, fresh routingIdentifier, priceChange, bookingRequirement', async () => {
    const res = await search({ fromCity: 'CGK', toCity: 'SUB', adultNum: 1, childNum: 1 });
    const r = routingsOf(res)[0]!;
    const v = await call(t.app, '/verify.do', { cid: 'x', routingIdentifier: r.routingIdentifier });
    assert.equal(v.body.status, 0, String(v.body.msg));
    assert.match(String(v.body.sessionId), /^ses_/);
    assert.equal(v.body.maxSeats, 9);
    const routing = v.body.routing as Routing & { ancillaryProductElements: Array<{ productCode: string }> };
    assert.notEqual(routing.routingIdentifier, r.routingIdentifier);
    assert.ok(routing.ancillaryProductElements.length > 0, 'bags sold with the ticket');
    assert.equal((v.body.priceChange as { isPriceChange: boolean }).isPriceChange, false);
    const req = (v.body.bookingRequirement as { passenger: Record<string, { required: boolean }> }).passenger;
    assert.equal(req.birthday!.required, true, 'a child travels: birthday needed');
    assert.equal(req.name!.required, true);
    // the fresh routingIdentifier verifies again
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: routing.routingIdentifier })).body.status, 0);
    // the session works for the next steps: getLuggage.do and order.do
    assert.equal((await call(t.app, '/getLuggage.do', { offerId: v.body.sessionId })).body.status, 0);
  });

  test('plan §3.2: verify by outboundSegments (flight number without prefix, or zero-padded)', async () => {
    const seg = { carrier: 'XS', flightNumber: '0771', departureAirport: 'CGK', arrivalAirport: 'SUB', departureDate: date('cgk-sub') };
    const v = await call(t.app, '/verify.do', { outboundSegments: [seg], inboundSegments: [] });
    assert.equal(v.body.status, 0, String(v.body.msg));
    assert.equal((v.body.routing as Routing).fromSegments[0]!.flightNumber, 'XS771');
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [{ ...seg, flightNumber: 'XS771' }] })).body.status, 0);
    const back = { carrier: 'XS', flightNumber: '772', departureAirport: 'SUB', arrivalAirport: 'CGK', departureDate: date('sub-cgk') };
    const trip = await call(t.app, '/verify.do', { adultNum: '2', outboundSegments: [seg], inboundSegments: [back] });
    assert.equal(trip.body.status, 0, String(trip.body.msg));
    const tr = trip.body.routing as Routing;
    assert.deepEqual([tr.fromSegments.map((s) => s.segmentIndex), tr.retSegments.map((s) => `${s.segmentIndex}:${s.flightNumber}`)], [[1], ['2:XS772']]);
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [{ ...seg, flightNumber: '9999' }] })).body.status, 207, 'plan §8.2: a flight the airline does not sell is 207');
  });

  test('plan §8.2: 200 unknown, altered or another client\'s routingIdentifier', async () => {
    const r = routingsOf(await search({ fromCity: 'CGK', toCity: 'SUB' }))[0]!;
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: 'rt_nope' })).body.status, 200);
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: r.routingIdentifier.slice(0, -1) + (r.routingIdentifier.endsWith('a') ? 'b' : 'a') })).body.status, 200);
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: r.routingIdentifier }, { client: TEST_CLIENTS.beta })).body.status, 200);
  });

  test("a routingIdentifier longer than ours (120 characters; the original's own run to hundreds) is an unknown routing: 200, not a refused field (Atlas API_shopping and ticketing.md VerifyResponseStatus 200 illegal routing identifier; a review: it answered 100)", async () => {
    const long = await call(t.app, '/verify.do', { routingIdentifier: `rt_${'A'.repeat(600)}` });
    assert.equal(long.body.status, 200, JSON.stringify(long.body));
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: `rt_${'A'.repeat(118)}` })).body.status, 200, 'at the limit: looked up, unknown');
  });

  test('a request failing the schema answers 212 illegal request parameter, never 100 (Atlas API_shopping and ticketing.md VerifyResponseStatus: 200–299 only, 212 illegal request parameter; a review: 100)', async () => {
    const cases: Array<Record<string, unknown>> = [
      { routingIdentifier: 42 },
      { outboundSegments: [{ carrier: 'XS', flightNumber: '771', departureAirport: 'CGKX', arrivalAirport: 'SUB', departureDate: '20300101' }] },
      { outboundSegments: [{ carrier: 'XS' }] },
      { outboundSegments: 'CGK-SUB' },
      { routingIdentifier: 'rt_x', maxResponseTime: 'soon' },
    ];
    for (const body of cases) {
      const res = await call(t.app, '/verify.do', body);
      assert.equal(res.body.status, 212, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
      assert.match(String(res.body.msg), /^invalid request/);
    }
  });

  test('plan §8.2: 203 airline not bookable, 205 time-out, 207 sold out, 212 illegal request, 299 airline error', async () => {
    const seg = (carrier: string, flightNumber: string, from: string, to: string, id: string) => ({ carrier, flightNumber, departureAirport: from, arrivalAirport: to, departureDate: date(id) });
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [seg('ZZ', '1', 'CGK', 'SUB', 'cgk-sub')] })).body.status, 203);
    const slow = await call(t.app, '/verify.do', { outboundSegments: [seg('XT', '9', 'JFK', 'CDG', 'xt')], maxResponseTime: 100 });
    assert.equal(slow.body.status, 205, JSON.stringify(slow.body));
    assert.equal((await call(t.app, '/verify.do', { adultNum: 3, outboundSegments: [seg('XS', '791', 'CGK', 'DPS', 'few-seats')] })).body.status, 207);
    assert.equal((await call(t.app, '/verify.do', {})).body.status, 212);
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: '' })).body.status, 212, '"" is absent');
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [seg('XS', 'X7', 'CGK', 'SUB', 'cgk-sub')] })).body.status, 212);
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')], maxResponseTime: 0 })).body.status, 212);
    assert.equal((await call(t.app, '/verify.do', { adultNum: 0, outboundSegments: [seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')] })).body.status, 212);
    assert.equal((await call(t.app, '/verify.do', { outboundSegments: [seg('XE', '1', 'SUB', 'HLP', 'error-air')] })).body.status, 299);
  });

  test("maxResponseTime absent: the original's default 5000 ms, not our longest 15 s (Atlas API_shopping and ticketing.md, verify.do request: maxResponseTime default 5000ms; a review: 15000)", async () => {
    const xt = t.world.airlines.get('XT')!;
    const before = xt.behaviour;
    xt.behaviour = { latencyMs: 6_000 };
    try {
      const seg = { carrier: 'XT', flightNumber: '9', departureAirport: 'JFK', arrivalAirport: 'CDG', departureDate: date('xt') };
      const started = Date.now();
      const res = await call(t.app, '/verify.do', { outboundSegments: [seg] });
      assert.equal(res.body.status, 205, JSON.stringify(res.body));
      assert.ok(Date.now() - started < 5_900, `answered after ${Date.now() - started} ms`);
    } finally {
      xt.behaviour = before;
    }
  });

  test('plan §8.2: the airline changed things since the search — price (priceChange), fare family (210), schedule (213)', async () => {
    const find = async (flightNumber: string, fromCity: string, toCity: string, id: string) =>
      routingsOf(await search({ fromCity, toCity, fromDate: date(id) })).find((r) => r.fromSegments[0]!.flightNumber === flightNumber)!;
    const families = t.world.flights.get('families')!;
    const priced = await find('XS795', 'HLP', 'DPS', 'families');
    const dropped = await find('XS795', 'HLP', 'DPS', 'families');
    const moved = await find('XS773', 'HLP', 'SUB', 'hlp-sub');

    families.source.fares = { currency: 'USD', adult: { fare: 135, tax: 10 } };
    const v = await call(t.app, '/verify.do', { routingIdentifier: priced.routingIdentifier });
    assert.equal(v.body.status, 0, String(v.body.msg));
    const change = v.body.priceChange as Record<string, number | boolean>;
    assert.deepEqual([change.isPriceChange, change.originalAdultPrice, change.newAdultPrice], [true, 120, 135]);

    families.source.fareFamilies = ['FLEX'];
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: dropped.routingIdentifier })).body.status, 210);

    const f = t.world.flights.get('hlp-sub')!;
    f.current = { dep: f.current.dep.plus({ hours: 2 }), arr: f.current.arr.plus({ hours: 2 }) };
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: moved.routingIdentifier })).body.status, 213);

    // an airport changed (decision 0021: 213; found by a review: the flight was looked for at its old airports, 207)
    const rerouted = await find('XS783', 'SUB', 'DPS', 'sub-dps-late');
    const late = t.world.flights.get('sub-dps-late')! as { from: string };
    late.from = 'CGK';
    try {
      const res = await call(t.app, '/verify.do', { routingIdentifier: rerouted.routingIdentifier });
      assert.equal(res.body.status, 213, String(res.body.msg));
      // the two airline calls share one maxResponseTime (a review: the second had a budget of its own, 2× the wait)
      const xs = t.world.airlines.get('XS')!;
      const behaviour = xs.behaviour;
      xs.behaviour = { latencyMs: 300 };
      try {
        const slow = await call(t.app, '/verify.do', { routingIdentifier: rerouted.routingIdentifier, maxResponseTime: 450 });
        assert.equal(slow.body.status, 205, String(slow.body.msg));
      } finally {
        xs.behaviour = behaviour;
      }
    } finally {
      late.from = 'SUB';
    }
  });

  test('plan §8.2: 212 for flights named one by one that make no itinerary search.do offers (found by a review: the same flight twice was verified at twice the fare)', async () => {
    const seg = (carrier: string, flightNumber: string, from: string, to: string, id: string) => ({ carrier, flightNumber, departureAirport: from, arrivalAirport: to, departureDate: date(id) });
    const verify = (outboundSegments: unknown[], inboundSegments: unknown[] = []) => call(t.app, '/verify.do', { outboundSegments, inboundSegments });
    const twice = await verify([seg('XS', '771', 'CGK', 'SUB', 'cgk-sub'), seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')]);
    assert.equal(twice.body.status, 212, String(twice.body.msg));
    assert.match(String(twice.body.msg), /named twice/);
    const tooShort = await verify([seg('XS', '775', 'QPG', 'SUB', 'qpg-sub'), seg('XS', '781', 'SUB', 'DPS', 'sub-dps')]);
    assert.equal(tooShort.body.status, 212, 'XS781 leaves before XS775 lands');
    const elsewhere = await verify([seg('XS', '771', 'CGK', 'SUB', 'cgk-sub'), seg('XS', '795', 'HLP', 'DPS', 'families')]);
    assert.equal(elsewhere.body.status, 212);
    assert.match(String(elsewhere.body.msg), /does not leave from SUB/);
    const backFirst = await verify([seg('XS', '774', 'SUB', 'CGK', 'sub-cgk-2')], [seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')]);
    assert.equal(backFirst.body.status, 212);
    assert.match(String(backFirst.body.msg), /leaves before/);
    // what search.do offers is verified: a connection of 90 minutes, a return after the outbound
    assert.equal((await verify([seg('XS', '771', 'CGK', 'SUB', 'cgk-sub'), seg('XS', '781', 'SUB', 'DPS', 'sub-dps')])).body.status, 0);
    assert.equal((await verify([seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')], [seg('XS', '774', 'SUB', 'CGK', 'sub-cgk-2')])).body.status, 0);
    const offers = await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [seg('XS', '771', 'CGK', 'SUB', 'cgk-sub'), seg('XS', '771', 'CGK', 'SUB', 'cgk-sub')] });
    assert.equal(offers.body.status, 102, String(offers.body.msg));
  });

  test('plan §7: 202 once the routingIdentifier expired (6 h): the id stays recognisable', async () => {
    const r = routingsOf(await search({ fromCity: 'CGK', toCity: 'SUB' }))[0]!;
    t.clock.advance(6 * 3_600_000 + 1000);
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: r.routingIdentifier })).body.status, 202);
    assert.equal((await call(t.app, '/verify.do', { routingIdentifier: 'rt_nope' })).body.status, 200);
  });
});

describe('the city table (src/airline/sandbox/cities.ts)', () => {
  test('built-in entries, replaced by cities[] and by an airport\'s own city', () => {
    const known = new Set(['CGK', 'HLP', 'SUB', 'LHR', 'XLO']);
    const t = cityTable(
      [{ code: 'CGK' }, { code: 'HLP', city: 'HLP' }, { code: 'SUB' }, { code: 'LHR' }, { code: 'XLO', city: 'LON' }],
      [{ code: 'SBY', airports: ['SUB'] }],
    );
    assert.deepEqual(airportsForCode(t, known, 'JKT'), ['CGK'], 'HLP left JKT for a city of its own');
    assert.deepEqual(airportsForCode(t, known, 'HLP'), ['HLP']);
    assert.deepEqual(airportsForCode(t, known, 'SBY'), ['SUB']);
    assert.deepEqual(airportsForCode(t, known, 'SUB'), ['SUB'], 'an airport of another city: that airport only');
    assert.ok(airportsForCode(t, known, 'LON')!.includes('XLO'));
    assert.equal(airportsForCode(t, known, 'QQQ'), null);
  });
});

describe('search.do in its rate pool (the original interface: 10 a second per client)', () => {
  test('a client over its searches a second is refused with 429 (limitType search); another client is not', async () => {
    const world = citiesWorld();
    world.clients[0]!.settings = { ...world.clients[0]!.settings, rateLimits: { searchPerSecond: 2 } };
    const t = await makeTestApp({ world });
    try {
      const body = { tripType: '1', adultNum: 1, childNum: 0, infantNum: 0, fromCity: 'CGK', toCity: 'SUB', fromDate: t.world.flights.get('cgk-sub')!.current.dep.toFormat('yyyyMMdd') };
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call(t.app, '/search.do', body));
      assert.deepEqual(answers.map((a) => a.body.status), [0, 0, 429], 'two a second for this client, as its settings say');
      assert.equal(answers[2]!.http, 429);
      assert.equal(answers[2]!.body.limitType, 'search');
      assert.equal((await call(t.app, '/search.do', body, { client: TEST_CLIENTS.beta })).body.status, 0, 'the other client has its own');
    } finally {
      await t.close();
    }
  });
});
