// Generates a sandbox world for crash and scale-out runs: N one-adult, one-ticket bookings made through
// postbook by one client (bookedBy), paid by deposit, on one airline whose refund decisions take
// `processingSeconds` of the service clock and whose every answer takes `latencyMs`. Every name in it is
// fictional. Used by test/refund-crash.test.ts; by hand:
//   npx tsx scripts/make-crash-world.ts /tmp/crash.json [bookings] [processingSeconds] [latencyMs]
// then `WORLD=/tmp/crash.json REFUND_POLL_SECONDS=1 npm run dev`, and refund.do each booking (crashRefundBody).
import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { WorldFile } from '../src/airline/sandbox/world-schema.js';
import { invokedAsScript } from './invoked.js';

export const CRASH_CLIENT = { id: 'crash-agency', secret: 'crash-agency-secret-0001' };
export const CRASH_ADMIN_TOKEN = 'crash-admin-token-0001';
const CARRIER = 'XC';
const FLIGHT = { id: 'XC100-out', flightNumber: 'XC100', from: 'HND', to: 'SGN', daysAhead: 5 };

const LAST = ['MARTIN', 'OKAFOR', 'LINDQVIST', 'TANAKA', 'ROSSI', 'NOVAK', 'SILVA', 'MOREAU', 'HUANG', 'KOWALSKI', 'DUBOIS', 'HALVORSEN', 'OSEI'];
const FIRST = ['ALEX', 'SAM', 'ROBIN', 'KAI', 'NOOR', 'JULES', 'ELI', 'RIO', 'MIKA', 'ARI', 'SASHA'];

export interface CrashWorldOptions {
  bookings: number;
  /** How long the airline takes to decide (service clock); the money follows as long again. */
  processingSeconds: number;
  /** Delay of every airline answer (submission and status), so refunds are in flight for a while. */
  latencyMs: number;
  /** Tickets issued at start on an airline that voids the same day (UTC): for the void path (test/void-crash.test.ts). */
  voidable?: boolean;
}

export interface CrashBooking {
  pnr: string;
  lastName: string;
  firstName: string;
}

export function crashBookings(n: number): CrashBooking[] {
  return Array.from({ length: n }, (_, i) => ({
    pnr: `CR${String(i + 1).padStart(4, '0')}`,
    lastName: LAST[i % LAST.length]!,
    firstName: FIRST[Math.floor(i / LAST.length) % FIRST.length]!,
  }));
}

/** Every fictional name the world holds (a test checks none reaches a log). */
export const CRASH_NAMES: readonly string[] = [...LAST, ...FIRST];

export function crashWorld(opts: CrashWorldOptions): WorldFile {
  if (!Number.isInteger(opts.bookings) || opts.bookings < 1 || opts.bookings > 9999) throw new RangeError('bookings: 1 to 9999');
  return {
    name: `crash world (${opts.bookings} bookings)`,
    sandbox: { adminToken: CRASH_ADMIN_TOKEN },
    clients: [{ id: CRASH_CLIENT.id, name: 'Crash Test Agency', secret: CRASH_CLIENT.secret, settings: { refundServiceFee: 'EUR 5.00' } }],
    airlines: [
      {
        code: CARRIER,
        name: 'Crash Air',
        confirmationDays: 2,
        refundDays: 7,
        fastConfirmation: false,
        refundRules: [{ ruleType: '1', penaltyAmount: 'EUR 20.00', fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment' }],
        refundBehaviour: { decision: 'accept', processingSeconds: opts.processingSeconds },
        ...(opts.latencyMs > 0 ? { behaviour: { latencyMs: opts.latencyMs } } : {}),
        ...(opts.voidable ? { voidWindow: 'sameDay' as const, homeTimeZone: 'UTC' } : {}),
      },
    ],
    airports: [
      { code: 'HND', name: 'Tokyo Haneda', timeZone: 'Asia/Tokyo' },
      { code: 'SGN', name: 'Ho Chi Minh City', timeZone: 'Asia/Ho_Chi_Minh' },
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
            rows: { first: 10, last: 30 },
          },
        ],
      },
    ],
    flights: [
      {
        id: FLIGHT.id,
        carrier: CARRIER,
        flightNumber: FLIGHT.flightNumber,
        from: FLIGHT.from,
        to: FLIGHT.to,
        departure: `+${FLIGHT.daysAhead}d 10:00`,
        arrival: `+${FLIGHT.daysAhead}d 14:00`,
        aircraft: '320',
      },
    ],
    bookings: crashBookings(opts.bookings).map((b, i) => ({
      pnr: b.pnr,
      carrier: CARRIER,
      status: 'Ticketed' as const,
      contact: { email: `traveller${i + 1}@example.com` },
      bookedBy: CRASH_CLIENT.id,
      paymentMethod: 'deposit' as const,
      issuedAt: opts.voidable ? 'now' : '-1d 09:00',
      passengers: [{ ref: 'a', type: 'ADT' as const, lastName: b.lastName, firstName: b.firstName }],
      segments: [{ flight: FLIGHT.id }],
      tickets: [{ ticketNo: `999-3${String(i + 1).padStart(9, '0')}`, passenger: 'a', currency: 'EUR', fare: 300, tax: 50, coupons: ['OPEN_FOR_USE' as const] }],
    })),
  };
}

/**
 * refund.do body (by refundRequestList, quote and submit in one step) for one booking. World days count
 * from today's UTC date, so the local departure date is that date plus the days ahead.
 */
export function crashRefundBody(b: CrashBooking, now = DateTime.utc()) {
  return {
    orderNo: null,
    airlinePNR: b.pnr,
    carrier: CARRIER,
    refundOfferId: null,
    refundRequestList: [
      {
        lastName: b.lastName,
        firstName: b.firstName,
        refundReason: '1',
        segments: [{ depDate: now.plus({ days: FLIGHT.daysAhead }).toFormat('yyyyMMdd'), flightNo: FLIGHT.flightNumber, depAirport: FLIGHT.from, arrAirport: FLIGHT.to }],
      },
    ],
  };
}

/** voidQuotation.do body for one booking (void.do adds the voidOfferId). */
export function crashVoidBody(b: CrashBooking) {
  return { airlinePNR: b.pnr, carrier: CARRIER };
}

/** Writes the world as JSON (the loader reads any non-YAML extension as JSON). */
export function writeCrashWorld(file: string, opts: CrashWorldOptions): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(crashWorld(opts), null, 1));
}

if (invokedAsScript(import.meta.url)) {
  const [file, bookings = '200', processingSeconds = '3600', latencyMs = '200'] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx scripts/make-crash-world.ts <file.json> [bookings=200] [processingSeconds=3600] [latencyMs=200]');
    process.exit(2);
  }
  writeCrashWorld(file, { bookings: Number(bookings), processingSeconds: Number(processingSeconds), latencyMs: Number(latencyMs) });
  console.log(`wrote ${file}: ${bookings} bookings, client ${CRASH_CLIENT.id}, admin token ${CRASH_ADMIN_TOKEN}`);
}
