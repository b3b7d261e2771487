// A small world for tests, built in code so each test can adjust a copy. Personal values are planted
// (planted.ts) so the log check can prove they never reach a log.
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { PLANTED } from './planted.js';

const [lastA, firstA, lastB, firstB, kidLast, kidFirst] = PLANTED.names;
const [emailA, emailB] = PLANTED.emails;
const [phoneA, phoneB] = PLANTED.phones;
const [docA, docB] = PLANTED.documents;
const [secretA, secretB, adminToken] = PLANTED.secrets;

export const TEST_CLIENTS = {
  alpha: { id: 'client-alpha', secret: secretA },
  beta: { id: 'client-beta', secret: secretB },
};
export const TEST_ADMIN_TOKEN = adminToken;

export function testWorld(): WorldFile {
  return {
    name: 'test world',
    sandbox: { adminToken },
    clients: [
      { id: TEST_CLIENTS.alpha.id, name: 'Alpha Travel', secret: secretA, settings: { refundServiceFee: 'EUR 5.00' } },
      { id: TEST_CLIENTS.beta.id, name: 'Beta Trips', secret: secretB },
    ],
    airlines: [
      { code: 'XS', name: 'Sandbox Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, refundRules: [] },
      { code: 'XN', name: 'No Claims Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, supports: { claims: false }, refundRules: [] },
      { code: 'XT', name: 'Tardy Air', confirmationDays: 2, refundDays: 7, fastConfirmation: false, behaviour: { latencyMs: 5000 }, refundRules: [] },
    ],
    airports: [
      { code: 'HND', name: 'Haneda', timeZone: 'Asia/Tokyo' },
      { code: 'SGN', name: 'Tan Son Nhat', timeZone: 'Asia/Ho_Chi_Minh' },
      { code: 'CDG', name: 'Charles de Gaulle', timeZone: 'Europe/Paris' },
      { code: 'JFK', name: 'JFK', timeZone: 'America/New_York' },
    ],
    aircraft: [
      {
        code: '320',
        name: 'A320',
        cabins: [
          {
            deck: 'Main',
            cabinClass: 1,
            columns: [
              { designator: 'A', characteristics: 'W' },
              { designator: 'C', characteristics: 'A' },
              { designator: 'D', characteristics: 'A' },
              { designator: 'F', characteristics: 'W' },
            ],
            rows: { first: 10, last: 20 },
          },
        ],
      },
    ],
    flights: [
      { id: 'out', carrier: 'XS', flightNumber: 'XS101', from: 'HND', to: 'SGN', departure: '+3d 10:30', arrival: '+3d 14:45', aircraft: '320', depTerminal: '3' },
      { id: 'ret', carrier: 'XS', flightNumber: 'XS102', from: 'SGN', to: 'HND', departure: '+9d 23:55', arrival: '+10d 07:40', aircraft: '320' },
      {
        id: 'changed',
        carrier: 'XS',
        flightNumber: 'XS201',
        from: 'CDG',
        to: 'JFK',
        departure: '+5d 13:00',
        arrival: '+5d 15:30',
        status: 'scheduleChanged',
        changedDeparture: '+5d 15:20',
        changedArrival: '+5d 17:50',
        aircraft: '320',
      },
      { id: 'past', carrier: 'XS', flightNumber: 'XS401', from: 'HND', to: 'SGN', departure: '-2d 09:00', arrival: '-2d 13:15', aircraft: '320' },
      { id: 'xn', carrier: 'XN', flightNumber: 'XN5', from: 'CDG', to: 'JFK', departure: '+8d 11:00', arrival: '+8d 14:05', aircraft: '320' },
      { id: 'xt', carrier: 'XT', flightNumber: 'XT9', from: 'JFK', to: 'CDG', departure: '+7d 19:00', arrival: '+8d 07:10', aircraft: '320' },
    ],
    bookings: [
      {
        pnr: 'TST001',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA, phone: phoneA, companyName: 'Planted Co' },
        passengers: [
          { ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA, gender: 'F', birthday: '19900101', document: { type: 'PP', number: docA, expiry: '20300101', nationality: 'JP' } },
          { ref: 'b', type: 'ADT', lastName: lastB, firstName: firstB, document: { type: 'PP', number: docB } },
        ],
        segments: [{ flight: 'out', fareFamily: 'STANDARD' }, { flight: 'ret', direction: 'ret' }],
        paymentMethod: 'deposit',
        issuedAt: '-3d 09:00',
        tickets: [
          {
            ticketNo: '999-1000000001',
            passenger: 'a',
            currency: 'EUR',
            fare: 420,
            tax: 85.4,
            coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'],
            ancillaries: [
              { category: 'StandardCheckInBaggage', segment: 1, price: 35, baggage: { piece: 1, weight: 23 } },
              { category: 'Seat', segment: 1, price: 25, seat: '12A' },
            ],
          },
          { ticketNo: '999-1000000002', passenger: 'b', currency: 'EUR', fare: 420, tax: 85.4, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] },
        ],
        postTicketingServices: [
          { orderNo: 'PT-1', passenger: 'b', category: 'StandardCheckInBaggage', segment: 2, price: 40, currency: 'EUR', baggage: { piece: 1, weight: 23 } },
        ],
      },
      {
        pnr: 'TST002',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailB, phone: phoneB },
        passengers: [{ ref: 'k', type: 'ADT', lastName: kidLast, firstName: kidFirst }],
        segments: [{ flight: 'changed' }],
        paymentMethod: 'virtualCard',
        tickets: [{ ticketNo: '999-1000000011', passenger: 'k', currency: 'EUR', fare: 1200, tax: 210.35, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'HOLD01',
        carrier: 'XS',
        status: 'OnHold',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
      },
      {
        pnr: 'CANC01',
        carrier: 'XS',
        status: 'Cancelled',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        tickets: [{ ticketNo: '999-1000000041', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['REFUND'] }],
      },
      {
        pnr: 'USED01',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'past' }, { flight: 'ret', direction: 'ret' }],
        tickets: [{ ticketNo: '999-1000000051', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['USED', 'OPEN_FOR_USE'] }],
      },
      {
        pnr: 'FAIL01',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        behaviour: { failure: 'error' },
        tickets: [{ ticketNo: '999-1000000061', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'HANG01',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        behaviour: { failure: 'timeout' },
        tickets: [{ ticketNo: '999-1000000071', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'SLOW01',
        carrier: 'XT',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'xt' }],
        tickets: [{ ticketNo: '666-1000000081', passenger: 'a', currency: 'USD', fare: 600, tax: 100, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'NOCLM1',
        carrier: 'XN',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'xn' }],
        tickets: [{ ticketNo: '777-1000000091', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'BETA01',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailB },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastB, firstName: firstB }],
        segments: [{ flight: 'out' }],
        bookedBy: TEST_CLIENTS.beta.id,
        tickets: [{ ticketNo: '999-1000000101', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      // Refund outcomes of the sandbox airline (booking-level refundBehaviour) and an unconfirmed tax status.
      {
        pnr: 'REJ001',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        paymentMethod: 'deposit',
        refundBehaviour: { decision: 'reject', cancelReason: 'voluntary cancellation is non-refundable' },
        tickets: [{ ticketNo: '999-1000000111', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'WDR001',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        paymentMethod: 'virtualCard',
        refundBehaviour: { decision: 'withdraw', cancelReason: 'refund request cancelled by the user' },
        tickets: [{ ticketNo: '999-1000000121', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'] }],
      },
      {
        pnr: 'TAX001',
        carrier: 'XS',
        status: 'Ticketed',
        contact: { email: emailA },
        passengers: [{ ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA }],
        segments: [{ flight: 'out' }],
        paymentMethod: 'deposit',
        tickets: [{ ticketNo: '999-1000000131', passenger: 'a', currency: 'EUR', fare: 100, tax: 20, coupons: ['OPEN_FOR_USE'], taxStatusUnconfirmed: true }],
      },
    ],
    rates: { 'EUR/USD': '1.08' },
  };
}
