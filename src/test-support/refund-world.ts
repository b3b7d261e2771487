// The test world with the refund rules and bookings the refund tests need (see refunds/*.test.ts).
import type { World } from '../airline/sandbox/world.js';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { PLANTED } from './planted.js';
import { TEST_CLIENTS, testWorld } from './world.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;
const [emailA] = PLANTED.emails;

/** A client with its own cancellation criteria (840). */
export const GAMMA = { id: 'client-gamma', secret: 'gamma-secret-not-planted-0003' };

/** The test world with refund rules and the bookings the refund cases need. */
/** What a refund world's booking made through postbook by client alpha shares: XS, ticketed now, paid by deposit. */
export const BOOKED_BY_ALPHA = {
  carrier: 'XS',
  status: 'Ticketed' as const,
  contact: { email: emailA },
  bookedBy: TEST_CLIENTS.alpha.id,
  paymentMethod: 'deposit' as const,
  issuedAt: 'now',
};

/** The last name of order UTF001's one passenger: letters beyond ASCII and beyond the BMP. */
export const UTF_NAME = 'MÜLLER-ŁĄCKA 王🙂';

export function refundWorld(): WorldFile {
  const w = testWorld();
  const xs = w.airlines.find((a) => a.code === 'XS')!;
  Object.assign(xs, {
    voidWindow: 'sameDay',
    homeTimeZone: 'UTC',
    refundRules: [
      { ruleType: '0', fareRefundable: true, taxRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'], refundMethod: 'CashBackToOriginalPayment' },
      { ruleType: '1', passengerType: 'ADT', startMinute: 525600, endMinute: 1440, penaltyAmount: 'EUR 50.00', fareRefundable: true, taxRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'] },
      { ruleType: '1', startMinute: 1440, endMinute: 0, penaltyPercent: 50, fareRefundable: true, taxRefundable: true },
      { ruleType: '1', startMinute: 0, endMinute: -525600, fareRefundable: false, taxRefundable: true, airlineFee: 'EUR 10.00' },
      { ruleType: '4', fareRefundable: true, taxRefundable: true },
    ],
    refundBehaviour: { decision: 'accept', processingSeconds: 30 },
  });
  const bookedBase = BOOKED_BY_ALPHA;
  w.bookings.push(
    {
      ...bookedBase,
      pnr: 'DEP001',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: lastA, firstName: firstA },
        { ref: 'b', type: 'ADT', lastName: lastB, firstName: firstB },
      ],
      segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
      tickets: [
        { ticketNo: '999-2000000001', passenger: 'a', currency: 'EUR', fare: 420, tax: 85.4, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'], ancillaries: [{ category: 'StandardCheckInBaggage', segment: 1, price: 35, baggage: { piece: 1, weight: 23 } }] },
        { ticketNo: '999-2000000002', passenger: 'b', currency: 'EUR', fare: 420, tax: 85.4, coupons: ['OPEN_FOR_USE', 'OPEN_FOR_USE'] },
      ],
      postTicketingServices: [{ orderNo: 'PT-DEP1', passenger: 'b', category: 'StandardCheckInBaggage', segment: 2, price: 40, currency: 'EUR', baggage: { piece: 1, weight: 23 } }],
    },
    {
      ...bookedBase,
      pnr: 'FAM001',
      passengers: [
        { ref: 'm', type: 'ADT', lastName: 'PARENT', firstName: 'PAT' },
        { ref: 'k', type: 'CHD', lastName: 'PARENT', firstName: 'KIM' },
      ],
      segments: [{ flight: 'out' }],
      tickets: [
        { ticketNo: '999-2000000011', passenger: 'm', currency: 'EUR', fare: 300, tax: 60, coupons: ['OPEN_FOR_USE'] },
        { ticketNo: '999-2000000012', passenger: 'k', currency: 'EUR', fare: 200, tax: 60, coupons: ['OPEN_FOR_USE'] },
      ],
    },
    { ...bookedBase, pnr: 'HOLD02', status: 'OnHold', passengers: [{ ref: 'a', type: 'ADT', lastName: 'WAIT', firstName: 'WALT' }], segments: [{ flight: 'out' }] },
    {
      ...bookedBase,
      pnr: 'USED02',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'FLOWN', firstName: 'FIA' }],
      segments: [{ flight: 'past' }, { flight: 'ret', direction: 'ret' }],
      tickets: [{ ticketNo: '999-2000000021', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['USED', 'OPEN_FOR_USE'] }],
    },
    {
      ...bookedBase,
      pnr: 'OWN001',
      paymentMethod: 'ownAccount',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'OWNER', firstName: 'OLA' }],
      segments: [{ flight: 'out' }],
      tickets: [{ ticketNo: '999-2000000031', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE'] }],
    },
    {
      ...bookedBase,
      pnr: 'MER001',
      paymentMethod: 'merchant',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'MERCH', firstName: 'MO' }],
      segments: [{ flight: 'out' }],
      tickets: [{ ticketNo: '999-2000000041', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE'] }],
    },
    {
      ...bookedBase,
      pnr: 'OLD001',
      issuedAt: '-2d 08:00',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'OLDIE', firstName: 'OZ' }],
      segments: [{ flight: 'out' }],
      tickets: [{ ticketNo: '999-2000000051', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE'] }],
    },
    {
      ...bookedBase,
      pnr: 'PAST01',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'LATE', firstName: 'LOU' }],
      segments: [{ flight: 'past' }],
      tickets: [{ ticketNo: '999-2000000061', passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE'] }],
    },
  );
  // Airlines and bookings for the remaining spec 7.1 codes.
  const airline = (code: string, name: string, extra: Record<string, unknown> = {}) =>
    w.airlines.push({ code, name, confirmationDays: 1, refundDays: 3, fastConfirmation: false, refundRules: [{ ruleType: '0', fareRefundable: true, taxRefundable: true }, { ruleType: '1', fareRefundable: true, taxRefundable: true }], ...extra });
  airline('XQ', 'No Refunds Here', { supports: { refunds: false } });
  airline('XR', 'Route Gaps', { routesWithoutRefund: ['HND-SGN'] });
  airline('XD', 'Deadline Air', { refundDeadlineDaysAfterDeparture: 1 });
  airline('XO', 'Once Air', { oneRefundPerBooking: true });
  airline('XZ', 'Zero Refund', { refundRules: [{ ruleType: '1', fareRefundable: false, taxRefundable: false }] });
  const flight = (id: string, carrier: string, departure: string, arrival: string) =>
    w.flights.push({ id, carrier, flightNumber: `${carrier}77`, from: 'HND', to: 'SGN', departure, arrival, aircraft: '320' });
  flight('xq', 'XQ', '+4d 10:00', '+4d 14:00');
  flight('xr', 'XR', '+4d 10:00', '+4d 14:00');
  flight('xd', 'XD', '-3d 10:00', '-3d 14:00');
  flight('xo', 'XO', '+4d 10:00', '+4d 14:00');
  flight('xz', 'XZ', '+4d 10:00', '+4d 14:00');
  const one = (pnr: string, carrier: string, flightId: string, last: string, ticketNo: string, extra: Record<string, unknown> = {}) =>
    w.bookings.push({
      ...bookedBase,
      pnr,
      carrier,
      passengers: [{ ref: 'a', type: 'ADT', lastName: last, firstName: 'ANN' }],
      segments: [{ flight: flightId }],
      tickets: [{ ticketNo, passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] }],
      ...extra,
    });
  one('NSV001', 'XQ', 'xq', 'NOSERVICE', '111-2000000101');
  one('RTE001', 'XR', 'xr', 'ROUTE', '111-2000000102');
  one('DDL001', 'XD', 'xd', 'DEADLINE', '111-2000000103');
  one('NRF001', 'XZ', 'xz', 'NONREF', '111-2000000104');
  one('TAX002', 'XS', 'out', 'TAXY', '999-2000000105', {
    tickets: [{ ticketNo: '999-2000000105', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'], taxStatusUnconfirmed: true }],
  });
  one('CRIT01', 'XS', 'out', 'CRITERIA', '999-2000000106', { bookedBy: 'client-gamma' });
  one('CLM001', 'XS', 'out', 'CLAIMED', '999-2000000107', { bookedBy: undefined, paymentMethod: undefined });
  // a name beyond ASCII, a character beyond the BMP among them (the documents' byte offsets, src/store/json-documents.ts)
  one('UTF001', 'XS', 'out', UTF_NAME, '999-2000000108');
  w.bookings.push(
    {
      ...bookedBase,
      pnr: 'ONE001',
      carrier: 'XO',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'ONCE', firstName: 'OTTO' },
        { ref: 'b', type: 'ADT', lastName: 'ONCE', firstName: 'OLGA' },
      ],
      segments: [{ flight: 'xo' }],
      tickets: [
        { ticketNo: '111-2000000111', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
        { ticketNo: '111-2000000112', passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
      ],
    },
    {
      ...bookedBase,
      pnr: 'TWO001',
      passengers: [{ ref: 'a', type: 'ADT', lastName: 'TWOTICKETS', firstName: 'TIM' }],
      segments: [{ flight: 'out' }, { flight: 'ret', direction: 'ret' }],
      tickets: [
        { ticketNo: '999-2000000121', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [1], coupons: ['OPEN_FOR_USE'] },
        { ticketNo: '999-2000000122', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, segments: [2], coupons: ['OPEN_FOR_USE'] },
      ],
    },
    {
      ...bookedBase,
      pnr: 'INF001',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'LAP', firstName: 'LENA' },
        { ref: 'i', type: 'INF', lastName: 'LAP', firstName: 'LIO' },
      ],
      segments: [{ flight: 'out' }],
      tickets: [{ ticketNo: '999-2000000131', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] }],
    },
    {
      ...bookedBase,
      pnr: 'RFD001',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'ELSEWHERE', firstName: 'ED' },
        { ref: 'b', type: 'ADT', lastName: 'ELSEWHERE', firstName: 'EVA' },
      ],
      segments: [{ flight: 'out' }],
      tickets: [
        { ticketNo: '999-2000000141', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['REFUND'] },
        { ticketNo: '999-2000000142', passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
      ],
    },
    {
      ...bookedBase,
      pnr: 'VOID01',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'VOIDER', firstName: 'VAL' },
        { ref: 'b', type: 'ADT', lastName: 'VOIDER', firstName: 'VIC' },
      ],
      segments: [{ flight: 'out' }],
      tickets: [
        { ticketNo: '999-2000000151', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
        { ticketNo: '999-2000000152', passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
      ],
    },
  );
  airline('XC', 'Cannot Quote Air', { refundRules: [{ ruleType: '0', fareRefundable: true, taxRefundable: true }], refundBehaviour: { processingSeconds: 30, cannotQuotePercentOfPaid: 80 } });
  airline('XV', 'Voucher Air', {
    refundRules: [{ ruleType: '1', fareRefundable: true, taxRefundable: true, penaltyPercent: 10, refundMethod: 'Voucher' }],
    refundBehaviour: { processingSeconds: 30 },
  });
  flight('xc', 'XC', '+4d 10:00', '+4d 14:00');
  flight('xv', 'XV', '+4d 10:00', '+4d 14:00');
  one('CANQ01', 'XC', 'xc', 'CANNOT', '111-2000000161');
  one('VCH001', 'XV', 'xv', 'VOUCHERS', '111-2000000162');
  one('BELOW1', 'XS', 'out', 'BELOW', '999-2000000163', {
    tickets: [{ ticketNo: '999-2000000163', passenger: 'a', currency: 'EUR', fare: 20, tax: 2, coupons: ['OPEN_FOR_USE'] }],
    refundBehaviour: { payPercentOfQuote: 1 },
  });
  // As BELOW1, with a post-ticketing service whose refund lifts the net above the service fee: refunded, not rejected
  // (the net of docs/architecture.md "Refund arithmetic" step 9 counts the quote's post-ticketing refunds).
  one('BELOW2', 'XS', 'out', 'BELOWPOST', '999-2000000164', {
    tickets: [{ ticketNo: '999-2000000164', passenger: 'a', currency: 'EUR', fare: 20, tax: 2, coupons: ['OPEN_FOR_USE'] }],
    postTicketingServices: [{ orderNo: 'PT-BLW2', passenger: 'a', category: 'StandardCheckInBaggage', segment: 1, price: 30, currency: 'EUR', baggage: { piece: 1, weight: 23 } }],
    refundBehaviour: { payPercentOfQuote: 1 },
  });
  w.clients.push({ ...GAMMA, name: 'Gamma Tours', settings: { refundServiceFee: 'EUR 1.00', refundCriteria: { minMinutesBeforeDeparture: 14_400 } } });
  return w;
}


/** A flight of the refund world as a refund request names it (spec 4.1 segments). */
export function refundSegment(world: World, flightId: string) {
  const f = world.flights.get(flightId)!;
  return { depDate: f.current.dep.toFormat('yyyyMMdd'), flightNo: f.flightNumber, depAirport: f.from, arrAirport: f.to };
}
