// The test world of the void path (src/voids/*.test.ts): the refund world (XS voids the same day in UTC,
// its airline decides in 30 s) and one booking per void case.
import { DateTime } from 'luxon';
import type { WorldFile } from '../airline/sandbox/world-schema.js';
import { TestClock } from '../clock.js';
import { refundWorld } from './refund-world.js';
import { TEST_CLIENTS } from './world.js';

/** Bookings of client alpha, two adults on XS flight `out`, issued now, paid by deposit unless `extra` says. */
export function voidWorld(): WorldFile {
  const w = refundWorld();
  let n = 0;
  const two = (pnr: string, extra: Record<string, unknown> = {}) => {
    n++;
    const t = (k: number) => `999-31000${String(n).padStart(3, '0')}0${k}`;
    w.bookings.push({
      pnr,
      carrier: 'XS',
      status: 'Ticketed',
      contact: { email: 'void.case@example.com' },
      bookedBy: TEST_CLIENTS.alpha.id,
      paymentMethod: 'deposit',
      issuedAt: 'now',
      passengers: [
        { ref: 'a', type: 'ADT', lastName: 'VOIDCASE', firstName: 'AVA' },
        { ref: 'b', type: 'ADT', lastName: 'VOIDCASE', firstName: 'BEN' },
      ],
      segments: [{ flight: 'out' }],
      tickets: [
        { ticketNo: t(1), passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'], ancillaries: [{ category: 'StandardCheckInBaggage', segment: 1, price: 35, baggage: { piece: 1, weight: 23 } }] },
        { ticketNo: t(2), passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
      ],
      ...extra,
    });
  };
  for (const pnr of ['VDEP01', 'VDEP02', 'VREF01', 'VREF02', 'VREF03', 'VREF04', 'VCONC1', 'VHOOK1', 'VQRY01', 'VOFR01']) two(pnr);
  two('VCARD1', { paymentMethod: 'virtualCard' });
  two('VREJ01', { refundBehaviour: { decision: 'reject', cancelReason: 'does not match airline policy' } });
  two('VSLOW1', { behaviour: { failure: 'error' } });
  two('VLATE1', { issuedAt: '-1d 10:00' });
  two('VPART1', {
    tickets: [
      { ticketNo: '999-3109900001', passenger: 'a', currency: 'EUR', fare: 200, tax: 40, coupons: ['REFUND'] },
      { ticketNo: '999-3109900002', passenger: 'b', currency: 'EUR', fare: 200, tax: 40, coupons: ['OPEN_FOR_USE'] },
    ],
  });
  two('VHOLD1', { status: 'OnHold', tickets: [], issuedAt: undefined });
  two('VXN001', { carrier: 'XN', segments: [{ flight: 'xn' }] });
  two('VKEPT1');
  return w;
}

const MINUTE = 60_000;
/** Hours a test of the void world may move its clock before its bookings' void deadline. */
const DEADLINE_MARGIN_MS = 3 * 60 * MINUTE;

/**
 * A clock for an app of this world whose bookings stay voidable for hours: XS voids until 23:59:59 UTC of the
 * issue day and the bookings are issued "now", so a test that moves the clock half an hour at 23:38 UTC saw
 * 822 instead of its void (voids.test.ts in a CI run). Within 3 h of midnight the clock starts 5 minutes into the
 * next day instead. `zone`: the carrier's home time zone, whose day the void deadline ends (the demo world's XS:
 * Asia/Tokyo, where a walk-through that moved its clock across 15:00 UTC saw its void rejected in a CI run).
 */
export function voidWorldClock(zone = 'UTC'): TestClock {
  const clock = new TestClock();
  const now = clock.now().getTime();
  const nextMidnight = DateTime.fromMillis(now, { zone }).startOf('day').plus({ days: 1 }).toMillis();
  if (nextMidnight - now < DEADLINE_MARGIN_MS) clock.advance(nextMidnight - now + 5 * MINUTE);
  return clock;
}

/**
 * voidWorldClock for the bookings of `carrier` in a world file, voidable until the end of their issue day in the
 * carrier's home time zone (UTC when it names none): the demo world's XS, Asia/Tokyo.
 */
export function carrierVoidClock(world: WorldFile, carrier: string): TestClock {
  const airline = world.airlines.find((a) => a.code === carrier);
  if (!airline) throw new Error(`no airline ${carrier} in the world`);
  return voidWorldClock(airline.homeTimeZone); // UTC when it names none (the parameter's default)
}
