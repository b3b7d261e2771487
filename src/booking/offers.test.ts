// getOffers.do, getLuggage.do, search.do includeMultipleFareFamily and the seatAvailability.do leniencies on the
// original interface's shapes (docs/plans/original-chain.md §3.3, §3.4, §3.1, §8.3–§8.5; docs/decisions/0024).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { call, makeTestApp, type TestApp } from '../test-support/app.js';
import { PLANTED } from '../test-support/planted.js';
import { TEST_CLIENTS, testWorld } from '../test-support/world.js';
import { contact, depDate, passenger, verifyFlights } from '../test-support/booking.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';

const [lastA, firstA] = PLANTED.names;

/** The test world plus Family Air (XF): three fare families with published inclusions, refund rules, a fee per ticket. */
function offersWorld(): WorldFile {
  const w = testWorld();
  w.airlines.push(
    {
      code: 'XF',
      name: 'Family Air',
      confirmationDays: 2,
      refundDays: 7,
      fastConfirmation: false,
      bookingFee: { amount: 2, currency: 'EUR', mode: 'PER_TICKET' },
      refundRules: [
        { ruleType: '0', fareRefundable: true, taxRefundable: true },
        { ruleType: '1', passengerType: 'ADT', startMinute: 525600, endMinute: 1440, penaltyAmount: 'EUR 50.00', airlineFee: 'EUR 5.00', fareRefundable: true, taxRefundable: true },
        { ruleType: '1', passengerType: 'ADT', startMinute: 1440, endMinute: 0, penaltyPercent: 50, penaltyPercentBase: 'fare', fareRefundable: true, taxRefundable: true },
        { ruleType: '1', passengerType: 'CHD', startMinute: 525600, endMinute: 0, fareRefundable: true, taxRefundable: true },
        { ruleType: '1', startMinute: 0, endMinute: -525600, fareRefundable: false, taxRefundable: false },
      ],
      fareFamilyTerms: [
        { name: 'LIGHT', baggage: [{ category: 'CabinBaggageUnderSeat', piece: 1, weight: 7, size: '40*30*20cm' }] },
        { name: 'STANDARD', fareFactor: 1.25, baggage: [{ category: 'StandardCheckInBaggage', piece: 1, weight: 23 }], meal: true },
        {
          name: 'FLEX',
          fareFactor: 1.5,
          baggage: [
            { category: 'StandardCheckInBaggage', piece: 2, weight: 23 },
            { category: 'CabinBaggageOverheadLocker', piece: 1, weight: 10, size: '56*36*23cm' },
          ],
          seat: true,
          meal: true,
        },
      ],
    },
    { code: 'XW', name: 'Slow Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, behaviour: { latencyMs: 400 }, refundRules: [] },
    { code: 'XE', name: 'Error Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, behaviour: { failure: 'error' }, refundRules: [] },
    // a wide rule and a narrower one inside it (a review: the wide one was left out); slow, three fare families
    {
      code: 'XP',
      name: 'Penalty Air',
      confirmationDays: 2,
      refundDays: 7,
      fastConfirmation: false,
      behaviour: { latencyMs: 300 },
      refundRules: [
        { ruleType: '1', endMinute: 0, penaltyAmount: 'EUR 30.00', fareRefundable: true, taxRefundable: true },
        { ruleType: '1', startMinute: 1440, endMinute: 0, penaltyAmount: 'EUR 80.00', fareRefundable: true, taxRefundable: true },
      ],
      fareFamilyTerms: [{ name: 'BASIC' }, { name: 'PLUS', fareFactor: 1.2 }, { name: 'TOP', fareFactor: 1.5 }],
    },
  );
  const eur = { currency: 'EUR', adult: { fare: 200, tax: 40 }, infant: { fare: 20, tax: 5 } };
  w.flights.push(
    { id: 'xf-out', carrier: 'XF', flightNumber: 'XF7', from: 'HND', to: 'SGN', departure: '+5d 09:00', arrival: '+5d 13:00', aircraft: '320', fareFamilies: ['LIGHT', 'STANDARD', 'FLEX'], fares: eur, seatsForSale: 4 },
    { id: 'xf-ret', carrier: 'XF', flightNumber: 'XF8', from: 'SGN', to: 'HND', departure: '+9d 22:00', arrival: '+10d 06:00', aircraft: '320', fareFamilies: ['LIGHT', 'FLEX'], fares: eur },
    { id: 'xf-none', carrier: 'XF', flightNumber: 'XF9', from: 'CDG', to: 'JFK', departure: '+6d 09:00', arrival: '+6d 11:00', aircraft: '320', fareFamilies: [], fares: eur },
    { id: 'xw', carrier: 'XW', flightNumber: 'XW1', from: 'CDG', to: 'JFK', departure: '+6d 09:00', arrival: '+6d 11:00', aircraft: '320' },
    { id: 'xe', carrier: 'XE', flightNumber: 'XE1', from: 'CDG', to: 'JFK', departure: '+6d 09:00', arrival: '+6d 11:00', aircraft: '320' },
    // a return whose flights' lowest families differ: STANDARD (its only one) out, LIGHT back
    { id: 'xf-mix-out', carrier: 'XF', flightNumber: 'XF21', from: 'JFK', to: 'HND', departure: '+7d 10:00', arrival: '+8d 14:00', aircraft: '320', fareFamilies: ['STANDARD'], fares: eur },
    { id: 'xf-mix-ret', carrier: 'XF', flightNumber: 'XF22', from: 'HND', to: 'JFK', departure: '+12d 10:00', arrival: '+12d 09:00', aircraft: '320', fareFamilies: ['LIGHT', 'STANDARD'], fares: eur },
    { id: 'xp', carrier: 'XP', flightNumber: 'XP1', from: 'SGN', to: 'CDG', departure: '+6d 09:00', arrival: '+6d 18:00', aircraft: '320', fareFamilies: ['BASIC', 'PLUS', 'TOP'], fares: eur },
  );
  return w;
}

type Offer = {
  offerID: string;
  offerToken: string;
  paxFares: Array<{ paxType: string; price: { baseAmount: number; taxes: number; currency: string } }>;
  penalties: Array<{ journeyRefIDs: string[]; amount: number; currency: string; rule: Record<string, unknown> & { paxTypes: string[]; effectiveMinutes: number } }>;
  services: Array<{ serviceID: string; segmentRefIDs: string[]; type: string; level: string; paxTypes: string[]; metadata?: Record<string, unknown> }>;
  outboundJourney: { journeyID: string; segments: Array<Record<string, unknown>> };
  inboundJourney: { journeyID: string; segments: Array<Record<string, unknown>> } | null;
  terms: unknown[];
};
type OfferElement = { offer: Offer; serviceFee: Record<string, unknown>; bookingRequirement: { passenger: Record<string, { type: string; required: boolean }> }; supportedPaymentMethods: string[] };
type Product = Record<string, unknown> & { productCode: string; categoryCode: string; segmentIndex: number };

describe('getOffers.do, getLuggage.do and fare families on the original shapes', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: offersWorld() });
  });
  after(() => t.close());

  const seg = (id: string, flightNumber?: string, extra: Record<string, unknown> = {}) => {
    const f = t.world.flights.get(id)!;
    return { carrier: f.carrier, departureAirport: f.from, arrivalAirport: f.to, departureDate: depDate(t, id), flightNumber: flightNumber ?? f.flightNumber.slice(2), ...extra };
  };
  const offers = async (body: Record<string, unknown>) => {
    const res = await call(t.app, '/getOffers.do', body);
    assert.equal(res.body.status, 0, res.body.msg ?? '');
    return res.body.data as OfferElement[];
  };

  test('plan §3.3: one offer per fare family; flight number without prefix, zero-padded, or with prefix', async () => {
    const data = await offers({ adults: 1, children: 0, infants: 0, outboundSegments: [seg('xf-out', '7')], residentCode: '', requestSource: 'test' });
    assert.deepEqual(
      data.map((d) => [d.offer.outboundJourney.segments[0]!.fareFamily, d.offer.paxFares.find((p) => p.paxType === 'ADT')!.price.baseAmount]),
      [['LIGHT', 200], ['STANDARD', 250], ['FLEX', 300]],
      'each family at its own price (fareFactor over the lowest)',
    );
    for (const flightNumber of ['007', 'XF7', 'xf007']) {
      const again = await offers({ adults: 1, outboundSegments: [seg('xf-out', flightNumber)] });
      assert.equal(again.length, 3, flightNumber);
    }
    assert.equal(new Set(data.map((d) => d.offer.offerID)).size, 3, 'offer ids are distinct');
  });

  test('plan §3.3: every field of an offer element', async () => {
    const [light] = await offers({ adults: '2', children: 1, infants: 1, outboundSegments: [seg('xf-out')] });
    const o = light!.offer;
    assert.match(o.offerID, /^ofr_/);
    assert.match(o.offerToken, /^rt_/);
    assert.deepEqual(o.paxFares, [
      { paxType: 'ADT', price: { baseAmount: 200, taxes: 40, currency: 'EUR' } },
      { paxType: 'CHD', price: { baseAmount: 150, taxes: 40, currency: 'EUR' } },
      { paxType: 'INF', price: { baseAmount: 20, taxes: 5, currency: 'EUR' } },
    ]);
    const f = t.world.flights.get('xf-out')!;
    assert.deepEqual(o.outboundJourney, {
      journeyID: 'oj',
      segments: [
        {
          segmentID: 'os-1',
          carrier: 'XF',
          flightNumber: '7',
          operatingCarrier: 'XF',
          operatingFlightNumber: '7',
          duration: f.current.arr.diff(f.current.dep, 'minutes').minutes,
          legs: [
            {
              departureAirport: 'HND',
              departureTime: f.current.dep.toFormat('yyyyMMddHHmm'),
              departureTerminal: null,
              arrivalAirport: 'SGN',
              arrivalTime: f.current.arr.toFormat('yyyyMMddHHmm'),
              arrivalTerminal: null,
              aircraftType: '320',
            },
          ],
          fareFamily: 'LIGHT',
          RBD: null,
          cabinClass: 'Economy',
          seatsLeft: 4,
        },
      ],
    });
    assert.equal(o.inboundJourney, null, 'one-way');
    assert.deepEqual(o.terms, []);
    assert.deepEqual(light!.serviceFee, { amountPerUnit: 2, currency: 'EUR', unit: 'PER_PAX' }, 'a fee per ticket is a fee per passenger (one airline order)');
    assert.deepEqual(light!.supportedPaymentMethods, ['Deposit', 'VCC_Passthrough'], 'the methods pay.do takes (4 BYOA and 5 MoR answer 403)');
    assert.deepEqual(light!.bookingRequirement.passenger.name, { type: 'string', required: true });
    assert.deepEqual(light!.bookingRequirement.passenger.passengerType, { type: 'int', required: true });
    assert.deepEqual(light!.bookingRequirement.passenger.birthday, { type: 'string', required: true }, 'children and infants travel: birthday needed');
    const [adultOnly] = await offers({ adults: 1, outboundSegments: [seg('xf-out')] });
    assert.equal(adultOnly!.bookingRequirement.passenger.birthday!.required, false);
  });

  test("plan §3.3: penalties are the airline's voluntary refund rules as the refund engine applies them", async () => {
    const [light, standard] = await offers({ adults: 1, outboundSegments: [seg('xf-out')] });
    const rule = (o: Offer, effectiveMinutes: number, paxType: string) => o.penalties.find((p) => p.rule.effectiveMinutes === effectiveMinutes && p.rule.paxTypes.includes(paxType));
    assert.deepEqual(rule(light!.offer, 525600, 'ADT'), {
      journeyRefIDs: ['oj'],
      amount: 55,
      currency: 'EUR',
      rule: { type: 'Refund', paxTypes: ['ADT'], levelType: 'Partial', effectiveMinutes: 525600, expirationMinutes: 1440, fixedAmount: 50, airlineFee: 5, currency: 'EUR', percent: 0, percentBase: 'fare' },
    });
    assert.equal(rule(light!.offer, 1440, 'ADT')!.amount, 100, '50 % of the fare 200');
    assert.equal(rule(standard!.offer, 1440, 'ADT')!.amount, 125, '50 % of the STANDARD fare 250');
    assert.deepEqual(rule(light!.offer, 525600, 'CHD')!.rule.levelType, 'Full', 'children refund free before departure');
    assert.equal(rule(light!.offer, 525600, 'CHD')!.amount, 0);
    const after = light!.offer.penalties.filter((p) => p.rule.effectiveMinutes === 0);
    assert.deepEqual(
      after.map((p) => [p.rule.paxTypes, p.amount, p.rule.levelType, p.rule.expirationMinutes]),
      [[['ADT'], 240, 'None', -525600], [['CHD'], 190, 'None', -525600], [['INF'], 25, 'None', -525600]],
      'after departure nothing is refunded: the whole ticket is kept, per passenger type',
    );
    assert.equal(light!.offer.penalties.length, 6, 'the involuntary rule is not a penalty; infants have no rule before departure');
  });

  test("plan §3.3: services are the fare family's inclusions and what the airline sells on top", async () => {
    const [light, standard, flex] = await offers({ adults: 1, outboundSegments: [seg('xf-out')] });
    const view = (o: Offer) => o.services.map((s) => `${s.serviceID} ${s.type} ${s.level} ${(s.metadata?.type as string | undefined) ?? ''} ${s.segmentRefIDs.join(',')} ${s.paxTypes.join(',')}`);
    assert.deepEqual(view(light!.offer), [
      'fbs-1 Baggage Free CabinBaggageUnderSeat os-1 ADT,CHD',
      'css-1 Seat Chargeable  os-1 ADT,CHD',
      'cbs-1 Baggage Chargeable StandardCheckInBaggage os-1 ADT,CHD',
      'cbs-2 Baggage Chargeable CabinBaggageOverheadLocker os-1 ADT,CHD',
    ]);
    assert.deepEqual(light!.offer.services[0]!.metadata, { type: 'CabinBaggageUnderSeat', maximumWeight: 7, maximumPiece: 1, maximumDimension: '40*30*20cm' });
    assert.deepEqual(view(standard!.offer), [
      'fbs-1 Baggage Free StandardCheckInBaggage os-1 ADT,CHD',
      'fms-1 Meal Free  os-1 ADT,CHD',
      'css-1 Seat Chargeable  os-1 ADT,CHD',
      'cbs-1 Baggage Chargeable CabinBaggageOverheadLocker os-1 ADT,CHD',
    ]);
    assert.deepEqual(view(flex!.offer), [
      'fbs-1 Baggage Free StandardCheckInBaggage os-1 ADT,CHD',
      'fbs-2 Baggage Free CabinBaggageOverheadLocker os-1 ADT,CHD',
      'fss-1 Seat Free  os-1 ADT,CHD',
      'fms-1 Meal Free  os-1 ADT,CHD',
    ]);
    const [none] = await offers({ adults: 1, outboundSegments: [seg('xf-none')] });
    assert.equal(none!.offer.outboundJourney.segments[0]!.fareFamily, null, 'a flight without fare families: one offer, no family');
    assert.ok(none!.offer.services.every((s) => s.level === 'Chargeable'));
  });

  test('plan §3.3: a return: journeys oj and ij, families both flights sell, penalties on both journeys', async () => {
    const data = await offers({ adults: 1, outboundSegments: [seg('xf-out')], inboundSegments: [seg('xf-ret')] });
    assert.deepEqual(data.map((d) => d.offer.inboundJourney!.segments[0]!.fareFamily), ['LIGHT', 'FLEX']);
    const flex = data[1]!.offer;
    assert.deepEqual([flex.outboundJourney.journeyID, flex.inboundJourney!.journeyID, flex.inboundJourney!.segments[0]!.segmentID], ['oj', 'ij', 'is-2']);
    assert.equal(flex.paxFares[0]!.price.baseAmount, 600);
    assert.ok(flex.penalties.every((p) => p.journeyRefIDs.join() === 'oj,ij'));
    assert.deepEqual(flex.services.find((s) => s.type === 'Seat')!.segmentRefIDs, ['os-1', 'is-2']);
  });

  test('plan §3.3: a wide rule is listed beside a narrower one inside its window (found by a review: it was left out)', async () => {
    const [basic] = await offers({ adults: 1, outboundSegments: [seg('xp')] });
    const windows = basic!.offer.penalties.filter((p) => p.rule.paxTypes.includes('ADT')).map((p) => [p.rule.effectiveMinutes, p.rule.expirationMinutes, p.rule.fixedAmount, p.amount]);
    assert.deepEqual(windows, [
      [525600, 0, 30, 30],
      [1440, 0, 80, 80],
    ]);
  });

  test('maxResponseTime is the whole request\'s budget, not each airline call\'s: the families it leaves no time for are not offered (found by a review)', async () => {
    // 300 ms an airline call: the lowest, then a family at 600 ms; the third would end at 900 ms, past the 800 ms budget
    const res = await call(t.app, '/getOffers.do', { adults: 1, maxResponseTime: 800, outboundSegments: [seg('xp')] });
    assert.equal(res.body.status, 0, String(res.body.msg));
    const n = (res.body.data as unknown[]).length;
    assert.ok(n >= 1 && n < 3, `${n} offers`);
    assert.equal((await offers({ adults: 1, outboundSegments: [seg('xp')] })).length, 3, 'all three within the default budget');
  });

  test('plan §3.3: statuses 100, 101, 102, 112, 116 (C29: 116 is "airline error" here)', async () => {
    const status = async (body: Record<string, unknown>) => (await call(t.app, '/getOffers.do', body)).body.status;
    assert.equal(await status({ outboundSegments: [seg('xf-out')] }), 100, 'adults missing');
    const blank = await call(t.app, '/getOffers.do', { adults: '', outboundSegments: [seg('xf-out')] });
    assert.equal(blank.body.status, 100);
    assert.equal(blank.body.msg, 'invalid request: adults is required', 'the field as getOffers.do names it (found by a review: adultNum)');
    assert.equal(await status({ adults: 1, outboundSegments: [] }), 100, 'no flight');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out', 'X7')] }), 101, 'not a flight number');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out', undefined, { departureDate: '2026-13-45' })] }), 101);
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out', undefined, { departureAirport: 'HN' })] }), 101);
    assert.equal(await status({ adults: 1, cabinClass: 7, outboundSegments: [seg('xf-out')] }), 101);
    assert.equal(await status({ adults: 1, currency: 'EURO', outboundSegments: [seg('xf-out')] }), 101);
    assert.equal(await status({ adults: 0, outboundSegments: [seg('xf-out')] }), 102, 'no adult');
    assert.equal(await status({ adults: 1, infants: 2, outboundSegments: [seg('xf-out')] }), 102, 'an infant without an adult');
    assert.equal(await status({ adults: 5, children: 5, outboundSegments: [seg('xf-out')] }), 102, 'more than 9');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out')], inboundSegments: [seg('out')] }), 102, 'two carriers');
    assert.equal(await status({ adults: 1, currency: 'USD', outboundSegments: [seg('xf-out')] }), 102, 'not the sale currency');
    assert.equal(await status({ adults: 1, currency: 'eur', outboundSegments: [seg('xf-out')] }), 0);
    assert.equal(await status({ adults: 1, maxResponseTime: 0, outboundSegments: [seg('xf-out')] }), 102);
    assert.equal(await status({ adults: 1, maxResponseTime: 100, outboundSegments: [seg('xw')] }), 112, 'the airline did not answer in time');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xe')] }), 116, 'the airline answered with an error');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out', '999')] }), 116, 'no such flight');
    assert.equal(await status({ adults: 1, outboundSegments: [seg('xf-out', undefined, { carrier: 'ZZ' })] }), 116, 'an airline not bookable here');
    assert.equal(await status({ adults: 5, outboundSegments: [seg('xf-out')] }), 116, 'sold out: 4 seats left');
  });

  test('plan §3.3: an offer of a family books that family; its offerToken re-prices it in verify.do', async () => {
    const flex = (await offers({ adults: 1, outboundSegments: [seg('xf-out')] }))[2]!.offer;
    const order = await call(t.app, '/order.do', { offerId: flex.offerID, passengers: [passenger(lastA, firstA)], contact });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
    const rows = await t.store.db.selectFrom('sandbox_bookings').select('booking').where('booking_key', '=', String(order.body.orderNo)).execute();
    const booked = rows[0]!.booking as { segments: Array<{ fareFamily: string }>; fares: Array<{ fareMinor: number }> };
    assert.deepEqual([booked.segments[0]!.fareFamily, booked.fares[0]!.fareMinor], ['FLEX', 30000]);

    // issue 9: the id getOffers.do answers as offerID is taken under either spelling, or in sessionId.
    for (const body of [{ offerID: flex.offerID }, { sessionId: flex.offerID }]) {
      const again = await call(t.app, '/order.do', { ...body, passengers: [passenger(lastA, firstA)], contact });
      assert.equal(again.body.status, 0, `${JSON.stringify(body)}: ${again.body.msg}`);
    }

    const v = await call(t.app, '/verify.do', { routingIdentifier: flex.offerToken });
    assert.equal(v.body.status, 0, v.body.msg ?? '');
    const routing = v.body.routing as { adultPrice: number; fromSegments: Array<{ fareFamily: string }> };
    assert.deepEqual([routing.adultPrice, routing.fromSegments[0]!.fareFamily, (v.body.priceChange as { isPriceChange: boolean }).isPriceChange], [300, 'FLEX', false]);
  });

  test('plan §3.1: search.do includeMultipleFareFamily — one routing per flight × family; verify.do and order.do price that family', async () => {
    const body = { tripType: '1', adultNum: 1, fromCity: 'HND', toCity: 'SGN', fromDate: depDate(t, 'xf-out'), airlines: ['XF'] };
    type R = { routingIdentifier: string; adultPrice: number; fromSegments: Array<{ fareFamily: string }>; rule: { hasBaggage: number; baggageElements: unknown[]; serviceElements: unknown[] | null } };
    const lowest = (await call(t.app, '/search.do', body)).body.routings as R[];
    assert.deepEqual(lowest.map((r) => [r.fromSegments[0]!.fareFamily, r.adultPrice]), [['LIGHT', 200]], 'absent: the lowest only');
    assert.equal(((await call(t.app, '/search.do', { ...body, includeMultipleFareFamily: false })).body.routings as R[]).length, 1);
    const all = (await call(t.app, '/search.do', { ...body, includeMultipleFareFamily: true })).body.routings as R[];
    assert.deepEqual(all.map((r) => [r.fromSegments[0]!.fareFamily, r.adultPrice]), [['LIGHT', 200], ['STANDARD', 250], ['FLEX', 300]]);
    assert.equal(new Set(all.map((r) => r.routingIdentifier)).size, 3);
    // plan §2.4: each routing's rule says what its family includes
    const standardBag = { segmentNo: 1, baggageType: 'StandardCheckInBaggage', baggagePiece: 1, baggageWeight: 23, baggageSize: '', isAllWeight: false };
    assert.deepEqual(all[1]!.rule, {
      hasBaggage: 1,
      baggageElements: [{ ...standardBag, passengerType: 0 }, { ...standardBag, passengerType: 1 }],
      refundRules: [],
      changesRules: [],
      serviceElements: [{ hasFreeSeat: 0, hasFreeMeal: 1 }],
    });
    assert.deepEqual(all[2]!.rule.serviceElements, [{ hasFreeSeat: 1, hasFreeMeal: 1 }]);
    assert.equal(all[2]!.rule.baggageElements.length, 4, 'FLEX: a checked and a cabin bag, for adults and children');
    const xs = (await call(t.app, '/search.do', { ...body, airlines: ['XS'], fromDate: depDate(t, 'out') })).body.routings as R[];
    assert.deepEqual([xs[0]!.rule.hasBaggage, xs[0]!.rule.serviceElements], [0, null], 'an airline that publishes no fare family terms');

    const v = await call(t.app, '/verify.do', { routingIdentifier: all[1]!.routingIdentifier });
    assert.equal(v.body.status, 0, v.body.msg ?? '');
    const routing = v.body.routing as R;
    assert.deepEqual([routing.adultPrice, routing.fromSegments[0]!.fareFamily, (v.body.priceChange as { isPriceChange: boolean }).isPriceChange], [250, 'STANDARD', false]);
    const order = await call(t.app, '/order.do', { sessionId: v.body.sessionId, passengers: [passenger(lastA, firstA)], contact });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
    const rows = await t.store.db.selectFrom('sandbox_bookings').select('booking').where('booking_key', '=', String(order.body.orderNo)).execute();
    const booked = rows[0]!.booking as { segments: Array<{ fareFamily: string }>; fares: Array<{ fareMinor: number }> };
    assert.deepEqual([booked.segments[0]!.fareFamily, booked.fares[0]!.fareMinor], ['STANDARD', 25000]);

    const ret = (await call(t.app, '/search.do', { ...body, tripType: '2', retDate: depDate(t, 'xf-ret'), includeMultipleFareFamily: true })).body.routings as R[];
    assert.deepEqual(ret.map((r) => [r.fromSegments[0]!.fareFamily, r.adultPrice]), [['LIGHT', 400], ['FLEX', 600]], 'a return: the families both flights sell');
    // decision 0021 (amended): what one passenger pays of XF's fee per ticket (0 before: only PER_PAX was shown)
    assert.deepEqual(ret.map((r) => (r as unknown as { transactionFeePerPax: number }).transactionFeePerPax), [2, 2]);
    assert.deepEqual(ret.map((r) => r.rule.serviceElements), [[{ hasFreeSeat: 0, hasFreeMeal: 0 }, { hasFreeSeat: 0, hasFreeMeal: 0 }], [{ hasFreeSeat: 1, hasFreeMeal: 1 }, { hasFreeSeat: 1, hasFreeMeal: 1 }]], 'one per direction');
  });

  test('decision 0024: a routing mixing its flights\' lowest families is verified, offered and booked at the price search.do showed', async () => {
    // a review: verify.do re-priced every flight in the first one's family (210, never verifiable) and order.do of
    // getOffers.do's lowest offer answered 308, then booked the LIGHT return at the STANDARD fare
    type R = { routingIdentifier: string; adultPrice: number; fromSegments: Array<{ fareFamily: string }>; retSegments: Array<{ fareFamily: string }> };
    const families = (r: R) => [...r.fromSegments, ...r.retSegments].map((x) => x.fareFamily);
    const search = await call(t.app, '/search.do', { tripType: '2', adultNum: 1, fromCity: 'JFK', toCity: 'HND', fromDate: depDate(t, 'xf-mix-out'), retDate: depDate(t, 'xf-mix-ret'), airlines: ['XF'] });
    const [lowest] = search.body.routings as R[];
    assert.deepEqual([families(lowest!), lowest!.adultPrice], [['STANDARD', 'LIGHT'], 400], 'each flight in its lowest family, each at factor 1');
    const v = await call(t.app, '/verify.do', { routingIdentifier: lowest!.routingIdentifier });
    assert.equal(v.body.status, 0, v.body.msg ?? '');
    assert.deepEqual([families(v.body.routing as R), (v.body.routing as R).adultPrice, (v.body.priceChange as { isPriceChange: boolean }).isPriceChange], [['STANDARD', 'LIGHT'], 400, false]);
    const booked = async (body: Record<string, unknown>) => {
      const order = await call(t.app, '/order.do', { ...body, passengers: [passenger(lastA, firstA)], contact });
      assert.equal(order.body.status, 0, order.body.msg ?? '');
      const rows = await t.store.db.selectFrom('sandbox_bookings').select('booking').where('booking_key', '=', String(order.body.orderNo)).execute();
      const b = rows[0]!.booking as { segments: Array<{ fareFamily: string }>; fares: Array<{ fareMinor: number }> };
      return [b.segments.map((x) => x.fareFamily), b.fares[0]!.fareMinor];
    };
    assert.deepEqual(await booked({ sessionId: v.body.sessionId }), [['STANDARD', 'LIGHT'], 40000]);
    const [first] = await offers({ adults: 1, outboundSegments: [seg('xf-mix-out')], inboundSegments: [seg('xf-mix-ret')] });
    assert.equal(first!.offer.paxFares[0]!.price.baseAmount, 400);
    assert.deepEqual(await booked({ offerId: first!.offer.offerID }), [['STANDARD', 'LIGHT'], 40000], 'the lowest offer books at its price (308 before)');
  });

  test('plan §3.4: getLuggage.do by an offerID (any spelling) or a verify sessionId: RoutingSegments and AncillaryProducts', async () => {
    const [light] = await offers({ adults: 1, outboundSegments: [seg('xf-out')] });
    const id = light!.offer.offerID;
    for (const body of [{ offerId: id }, { offerID: id }, { OfferId: id, offerId: '' }, { offerId: id, maxResponseTime: 3000 }]) {
      const res = await call(t.app, '/getLuggage.do', body);
      assert.equal(res.body.status, 0, `${JSON.stringify(body)}: ${res.body.msg}`);
      assert.equal((res.body.data as { offerId: string }).offerId, id);
    }
    const res = await call(t.app, '/getLuggage.do', { offerId: id });
    const data = res.body.data as { outboundSegments: Array<Record<string, unknown>>; inboundSegments: unknown[]; ancillaryProductElements: Product[] };
    assert.deepEqual(
      [data.outboundSegments[0]!.segmentIndex, data.outboundSegments[0]!.flightNumber, data.outboundSegments[0]!.fareFamily, data.outboundSegments[0]!.seatCount, data.outboundSegments[0]!.operatingFlightnumber],
      [1, 'XF7', 'LIGHT', 4, 'XF7'],
      'plan §2.2 RoutingSegment',
    );
    assert.deepEqual(data.inboundSegments, []);
    const checked = data.ancillaryProductElements.find((p) => p.categoryCode === 'StandardCheckInBaggage')!;
    assert.deepEqual(checked, {
      productCode: checked.productCode,
      ancillaryCode: checked.productCode,
      segmentIndex: 1,
      categoryCode: 'StandardCheckInBaggage',
      auxBaggageElement: { isAllWeight: false, piece: 1, weight: 23, size: null },
      canPurchaseWithTicket: 1,
      canPurchasePostTicket: 1,
      price: 35,
      currency: 'EUR',
      vendorPrice: 35,
      vendorCurrency: 'EUR',
      clientTechnicalServiceFee: 0,
      maxQty: 1,
      minQty: 1,
    });
    assert.equal(data.ancillaryProductElements.find((p) => p.categoryCode === 'CabinBaggageOverheadLocker')!.canPurchasePostTicket, 0);

    const session = await verifyFlights(t, ['xf-out']);
    const byVerify = await call(t.app, '/getLuggage.do', { offerId: session.sessionId });
    assert.equal(byVerify.body.status, 0);
    // the productCode answered here is what order.do takes (the luggage → order contract)
    const bag = (byVerify.body.data as { ancillaryProductElements: Product[] }).ancillaryProductElements[0]!;
    const order = await call(t.app, '/order.do', { sessionId: session.sessionId, passengers: [passenger(lastA, firstA, [{ productCode: bag.productCode, segmentIndex: bag.segmentIndex }])], contact });
    assert.equal(order.body.status, 0, order.body.msg ?? '');
  });

  test('getLuggage.do statuses 212, 214, 205, 299 (Atlas API_shopping and ticketing.md, getLuggage.do status: 212 illegal parameter, 214 offer not exists, 205, 299, 9999; no 100)', async () => {
    const [light] = await offers({ adults: 1, outboundSegments: [seg('xf-out')] });
    const id = light!.offer.offerID;
    const status = async (body: Record<string, unknown>, client: { id: string; secret: string } = TEST_CLIENTS.alpha) => (await call(t.app, '/getLuggage.do', body, { client })).body.status;
    // a missing id is an illegal parameter (212), as verify.do's missing routingIdentifier (a review: 100, undocumented)
    assert.equal(await status({}), 212);
    assert.equal(await status({ offerId: '' }), 212, '"" is absent');
    // a request failing the schema: 212 too (a review: 100)
    for (const body of [{ offerId: 42 }, { offerId: id, maxResponseTime: 'soon' }, { offerId: 'x'.repeat(300) }]) assert.equal(await status(body), 212, JSON.stringify(body).slice(0, 80));
    assert.equal(await status({ offerId: id, maxResponseTime: 0 }), 212);
    assert.equal(await status({ offerId: 'ofr_nope' }), 214);
    assert.equal(await status({ offerId: id }, TEST_CLIENTS.beta), 214, "another client's offer does not exist for this one");

    const [slow] = await offers({ adults: 1, outboundSegments: [seg('xw')] });
    assert.equal(await status({ offerId: slow!.offer.offerID, maxResponseTime: 100 }), 205);
    assert.equal(await status({ offerId: slow!.offer.offerID }), 0, 'with the default budget the slow airline answers');

    const xf = t.world.airlines.get('XF')!;
    // no maxResponseTime: the original's default 5000 ms (getLuggage.do request: "default 5000ms"; a review: 15000)
    xf.behaviour = { latencyMs: 6_000 };
    assert.equal(await status({ offerId: id }), 205, 'past the default 5000 ms');
    xf.behaviour = { failure: 'error' };
    try {
      assert.equal(await status({ offerId: id }), 299);
    } finally {
      delete xf.behaviour;
    }
    t.clock.advance(2 * 3_600_000 + 1000);
    assert.equal(await status({ offerId: id }), 214, 'expired (2 h)');
  });
});

describe('seatAvailability.do chain leniencies (plan §8.5)', () => {
  let t: TestApp;
  before(async () => {
    t = await makeTestApp({ world: offersWorld() });
  });
  after(() => t.close());

  const seatBody = (id: string, field: 'sessionId' | 'offerId' | 'offerID', cabinClass: unknown = 1) => {
    const f = t.world.flights.get('xf-out')!;
    return { [field]: id, carrier: 'XF', outboundSegments: [{ segmentIndex: 1, flightNumber: 'XF7', depAirport: 'HND', arrAirport: 'SGN', depTime: f.current.dep.toFormat('yyyyMMddHHmm'), cabinClass }] };
  };

  test('a verify sessionId in offerId, an offerID in sessionId, offerID spelled as getOffers.do spells it', async () => {
    const session = await verifyFlights(t, ['xf-out']);
    const offer = ((await call(t.app, '/getOffers.do', { adults: 1, outboundSegments: [{ carrier: 'XF', departureAirport: 'HND', arrivalAirport: 'SGN', flightNumber: '7', departureDate: depDate(t, 'xf-out') }] })).body.data as OfferElement[])[0]!.offer;
    const asSession = await call(t.app, '/seatAvailability.do', seatBody(offer.offerID, 'sessionId'));
    const asOffer = await call(t.app, '/seatAvailability.do', seatBody(offer.offerID, 'offerId'));
    assert.equal(asSession.body.status, 0, asSession.body.msg ?? '');
    assert.equal(asSession.raw, asOffer.raw, 'the same map, the same productCodes (bound to the id)');
    assert.equal((await call(t.app, '/seatAvailability.do', seatBody(offer.offerID, 'offerID'))).body.status, 0);
    assert.equal((await call(t.app, '/seatAvailability.do', seatBody(session.sessionId, 'offerId'))).body.status, 0);
    assert.equal((await call(t.app, '/seatAvailability.do', seatBody('ofr_nope', 'sessionId'))).body.status, 214, 'spec 7.2: unknown id');
  });

  test('cabinClass as the decimal string "1" (C26) answers the same bytes as 1; "5" and "one" are 220', async () => {
    const session = await verifyFlights(t, ['xf-out']);
    const asNumber = await call(t.app, '/seatAvailability.do', seatBody(session.sessionId, 'sessionId', 1));
    const asText = await call(t.app, '/seatAvailability.do', seatBody(session.sessionId, 'sessionId', '1'));
    assert.equal(asNumber.body.status, 0, asNumber.body.msg ?? '');
    assert.equal(asText.raw, asNumber.raw);
    assert.equal((await call(t.app, '/seatAvailability.do', seatBody(session.sessionId, 'sessionId', '5'))).body.status, 220);
    assert.equal((await call(t.app, '/seatAvailability.do', seatBody(session.sessionId, 'sessionId', 'one'))).body.status, 220);
  });
});
