// Helpers of the booking and seat tests: flights of the test world as request segments, a verify session,
// seats out of a map, a passenger and a contact.
import assert from 'node:assert/strict';
import { DateTime } from 'luxon';
import { call, type TestApp } from './app.js';
import { PLANTED } from './planted.js';
import { TEST_CLIENTS } from './world.js';

const [lastA, firstA] = PLANTED.names;
const [emailA] = PLANTED.emails;
const [docA] = PLANTED.documents;

export const depDate = (t: TestApp, id: string) => t.world.flights.get(id)!.current.dep.toFormat('yyyyMMdd');
export const depTime = (t: TestApp, id: string) => t.world.flights.get(id)!.current.dep.toFormat('yyyyMMddHHmm');

export function flightSeg(t: TestApp, id: string, extra: Record<string, unknown> = {}) {
  const f = t.world.flights.get(id)!;
  return { carrier: f.carrier, flightNumber: f.flightNumber, depAirport: f.from, arrAirport: f.to, depTime: depTime(t, id), ...extra };
}

/** A flight as verify.do's outboundSegments/inboundSegments name it (plan §3.2: flight number without the carrier prefix). */
export function verifySeg(t: TestApp, id: string, extra: Record<string, unknown> = {}) {
  const f = t.world.flights.get(id)!;
  return { carrier: f.carrier, flightNumber: f.flightNumber.slice(f.carrier.length), departureAirport: f.from, arrivalAirport: f.to, departureDate: depDate(t, id), ...extra };
}

/** verify.do by flights; `pax` in the search's names (adultNum …, postbook's extension on the segment path). */
export async function verifyFlights(t: TestApp, out: string[], ret: string[] = [], pax: Record<string, number> = { adults: 1 }, client: { id: string; secret: string } = TEST_CLIENTS.alpha) {
  const counts = { adultNum: pax.adults ?? 1, childNum: pax.children ?? 0, infantNum: pax.infants ?? 0 };
  const res = await call(t.app, '/verify.do', { ...counts, outboundSegments: out.map((id) => verifySeg(t, id)), inboundSegments: ret.map((id) => verifySeg(t, id)) }, { client });
  assert.equal(res.body.status, 0, res.body.msg ?? '');
  return res.body as unknown as { sessionId: string; routing: { routingIdentifier: string; fromSegments: Array<Record<string, unknown>>; retSegments: Array<Record<string, unknown>>; currency: string } };
}

export function seatSegments(t: TestApp, ids: string[], first = 1) {
  return ids.map((id, i) => ({ segmentIndex: first + i, ...flightSeg(t, id) }));
}

export type Seat = { column: string; seatStatus: string; productCode: string; price: number; seatCharacteristics: string[] };
export type Cabin = { segmentIndex: number; cabin: { deck: string; cabinClass: number; rows: Array<{ number: number; seats: Seat[] }> } };

export function seatOf(cabins: Cabin[], segmentIndex: number, name: string): Seat {
  const row = Number(name.slice(0, -1));
  for (const c of cabins.filter((x) => x.segmentIndex === segmentIndex)) {
    const seat = c.cabin.rows.find((r) => r.number === row)?.seats.find((s) => s.column === name.slice(-1));
    if (seat) return seat;
  }
  throw new Error(`seat ${name} not in the map`);
}

/** A birthday (yyyyMMdd) of someone `years` and a half old today: a child's or an infant's stays one for months. */
export const birthdayAged = (years: number) => DateTime.utc().minus({ years, months: 6 }).toFormat('yyyyMMdd');

export const passenger = (last: string, first: string, ancillaries: Array<{ productCode: string; segmentIndex: number }> = []) => ({
  name: `${last}/${first}`,
  passengerType: 0,
  gender: 'F',
  birthday: '19900101',
  cardType: 'PP',
  cardNum: docA,
  cardExpired: '20991231',
  nationality: 'JP',
  ancillaries,
});
export const contact = { name: `${lastA} ${firstA}`, email: emailA, mobile: null };
/** pay.do's card number in tests: the planted one (the log check looks for it). */
export const CARD_NUMBER = PLANTED.cards[0];
/** A pay.do creditCard the sandbox airline accepts, held by the first planted passenger; `extra` replaces fields. */
export const testCard = (extra: Record<string, unknown> = {}) => ({
  cardNumber: CARD_NUMBER,
  cardCVV: '123',
  cardExpireMonth: '07',
  cardExpireYear: '2031',
  cardHolderFirstName: firstA,
  cardHolderLastName: lastA,
  ...extra,
});

