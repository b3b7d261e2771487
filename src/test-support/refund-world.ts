// The test world with the refund rules and bookings the refund tests need (see refunds/*.test.ts).
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { PLANTED } from './planted.js';
import { TEST_CLIENTS, testWorld } from './world.js';

const [lastA, firstA, lastB, firstB] = PLANTED.names;
const [emailA] = PLANTED.emails;

/** The test world with refund rules and the bookings the refund cases need. */
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
  const bookedBase = {
    carrier: 'XS',
    status: 'Ticketed' as const,
    contact: { email: emailA },
    bookedBy: TEST_CLIENTS.alpha.id,
    paymentMethod: 'deposit' as const,
    issuedAt: 'now',
  };
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
  return w;
}

