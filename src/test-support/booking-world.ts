// The test world of the booking chain and seats: testWorld() plus a narrow-body with exit rows and paid
// seats, a wide-body with an upper deck, an airline without seat selection, one without seats on a route,
// a flight without fare families and flights whose seat map fails.
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { testWorld } from './world.js';

export function bookingWorld(): WorldFile {
  const w = testWorld();
  w.airlines.push(
    { code: 'XZ', name: 'No Seats Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, supports: { seatSelection: false }, refundRules: [] },
    {
      code: 'XQ',
      name: 'Route Seats Air',
      confirmationDays: 2,
      refundDays: 7,
      fastConfirmation: false,
      routesWithoutSeatSelection: ['CDG-JFK'],
      bookingFee: { amount: 5, currency: 'EUR', mode: 'PER_BOOKING' },
      refundRules: [],
    },
    { code: 'XI', name: 'No Infants Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, infantsAllowed: false, holdMinutes: 45, refundRules: [] },
  );
  w.aircraft.push(
    {
      code: '321',
      name: 'A321 (narrow-body)',
      cabins: [
        {
          deck: 'Main',
          cabinClass: 2,
          columns: [{ designator: 'A', characteristics: 'W' }, { designator: 'C', characteristics: 'A' }, { designator: 'D', characteristics: 'A' }, { designator: 'F', characteristics: 'W' }],
          rows: { first: 1, last: 3 },
        },
        {
          deck: 'Main',
          cabinClass: 1,
          columns: [
            { designator: 'A', characteristics: 'W' },
            { designator: 'B', characteristics: 'M' },
            { designator: 'C', characteristics: 'A' },
            { designator: 'D', characteristics: 'A' },
            { designator: 'E', characteristics: 'M' },
            { designator: 'F', characteristics: 'W' },
          ],
          rows: { first: 10, last: 30 },
          exitRows: [{ first: 12, last: 13 }],
          extraLegRoomRows: [12, 13],
          missingSeats: ['30B', '30E'],
        },
      ],
    },
    {
      code: '388',
      name: 'A380 (wide-body, two decks)',
      cabins: [
        {
          deck: 'Upper',
          cabinClass: 2,
          columns: [{ designator: 'A', characteristics: 'W' }, { designator: 'D', characteristics: 'A' }, { designator: 'G', characteristics: 'A' }, { designator: 'K', characteristics: 'W' }],
          rows: { first: 1, last: 10 },
        },
        {
          deck: 'Main',
          cabinClass: 1,
          columns: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'J', 'K'].map((d, i) => ({ designator: d, characteristics: i === 0 || i === 9 ? ('W' as const) : [2, 3, 6, 7].includes(i) ? ('A' as const) : ('M' as const) })),
          rows: { first: 20, last: 50 },
          exitRows: [{ first: 20, last: 20 }, { first: 35, last: 35 }],
        },
        {
          // the original's spelling; the business cabin above keeps the older Upper (both are Upper deck on the wire)
          deck: 'Upper deck',
          cabinClass: 1,
          columns: [{ designator: 'A', characteristics: 'W' }, { designator: 'C', characteristics: 'A' }, { designator: 'D', characteristics: 'A' }, { designator: 'F', characteristics: 'W' }],
          rows: { first: 60, last: 70 },
        },
      ],
    },
  );
  w.flights.push(
    {
      id: 'bk-narrow',
      carrier: 'XS',
      flightNumber: 'XS701',
      from: 'HND',
      to: 'SGN',
      departure: '+4d 10:00',
      arrival: '+4d 14:00',
      aircraft: '321',
      occupiedSeats: ['10A', '10B'],
      seatPrices: [{ rows: { first: 12, last: 13 }, price: 25, currency: 'EUR' }, { rows: { first: 14, last: 20 }, price: 8, currency: 'EUR' }],
      fareFamilies: ['LIGHT', 'STANDARD'],
      fares: { currency: 'EUR', adult: { fare: 300, tax: 50 } },
    },
    { id: 'bk-narrow-ret', carrier: 'XS', flightNumber: 'XS702', from: 'SGN', to: 'HND', departure: '+9d 23:00', arrival: '+10d 07:00', aircraft: '321', fares: { currency: 'EUR', adult: { fare: 280, tax: 45 } } },
    { id: 'bk-wide', carrier: 'XS', flightNumber: 'XS801', from: 'CDG', to: 'JFK', departure: '+6d 12:00', arrival: '+6d 14:30', aircraft: '388', seatPrices: [{ rows: { first: 1, last: 10 }, price: 120, currency: 'EUR' }] },
    { id: 'bk-nofamily', carrier: 'XS', flightNumber: 'XS811', from: 'CDG', to: 'JFK', departure: '+7d 12:00', arrival: '+7d 14:30', aircraft: '321', fareFamilies: [] },
    { id: 'bk-fail', carrier: 'XS', flightNumber: 'XS821', from: 'HND', to: 'SGN', departure: '+5d 08:00', arrival: '+5d 12:00', aircraft: '321', seatMapBehaviour: 'selectionFailed' },
    { id: 'bk-unknown', carrier: 'XS', flightNumber: 'XS831', from: 'HND', to: 'SGN', departure: '+5d 18:00', arrival: '+5d 22:00', aircraft: '321', seatMapBehaviour: 'unknownError' },
    { id: 'bk-noseats', carrier: 'XZ', flightNumber: 'XZ1', from: 'HND', to: 'SGN', departure: '+4d 09:00', arrival: '+4d 13:00', aircraft: '321' },
    { id: 'bk-route', carrier: 'XQ', flightNumber: 'XQ1', from: 'CDG', to: 'JFK', departure: '+4d 09:00', arrival: '+4d 11:00', aircraft: '321' },
    { id: 'bk-route-ok', carrier: 'XQ', flightNumber: 'XQ2', from: 'JFK', to: 'CDG', departure: '+8d 19:00', arrival: '+9d 07:00', aircraft: '321' },
    // order.do (docs/decisions/0023): few seats for sale (302), the airline's price moving after verify (308, 322),
    // an airline without infants and with a 45-minute hold (310, tktLimitTime)
    { id: 'bk-few', carrier: 'XS', flightNumber: 'XS761', from: 'JFK', to: 'SGN', departure: '+5d 09:00', arrival: '+6d 23:00', aircraft: '321', seatsForSale: 2 },
    { id: 'bk-fare-up', carrier: 'XS', flightNumber: 'XS771', from: 'JFK', to: 'SGN', departure: '+5d 11:00', arrival: '+6d 23:00', aircraft: '321', fares: { currency: 'EUR', adult: { fare: 300, tax: 50 } }, priceChangeAfterVerify: { fare: 20 } },
    {
      id: 'bk-seat-up',
      carrier: 'XS',
      flightNumber: 'XS781',
      from: 'JFK',
      to: 'SGN',
      departure: '+5d 13:00',
      arrival: '+6d 23:00',
      aircraft: '321',
      seatPrices: [{ rows: { first: 12, last: 13 }, price: 25, currency: 'EUR' }],
      priceChangeAfterVerify: { seat: 5 },
    },
    { id: 'bk-noinfant', carrier: 'XI', flightNumber: 'XI1', from: 'JFK', to: 'SGN', departure: '+5d 15:00', arrival: '+6d 23:00', aircraft: '321' },
  );
  return w;
}
