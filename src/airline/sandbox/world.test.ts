// The sandbox world loader: the bundled demo world, relative world times, and refusal of malformed worlds
// with the path of the bad field.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import YAML from 'yaml';
import { buildWorld, loadWorldFile, resolveWorldTime, WorldError, type World } from './world.js';
import type { WorldFile } from './world-schema.js';
import { TEST_CLIENTS, testWorld } from '../../test-support/world.js';
import { PLANTED } from '../../test-support/planted.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DEMO = path.join(REPO, 'worlds', 'demo.yaml');

// A fixed clock at an hour where every airport of both worlds is on the same local date as UTC
// (the test "loads at every hour of the day" below covers the other hours).
const NOW = new Date('2026-01-15T10:00:00Z');

function variant(mutate: (w: WorldFile) => void): WorldFile {
  const w = structuredClone(testWorld());
  mutate(w);
  return w;
}

/** Asserts that building the world fails with a WorldError on exactly `fieldPath`, naming the file. */
function assertRefused(data: unknown, fieldPath: string, problem?: RegExp, file = 'variant-world.yaml'): WorldError {
  let caught: unknown;
  try {
    buildWorld(data, NOW, file);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof WorldError, `expected a WorldError, got ${String(caught)}`);
  assert.equal(caught.fieldPath, fieldPath, caught.message);
  assert.ok(caught.message.includes(file), `message names the file: ${caught.message}`);
  if (fieldPath) assert.ok(caught.message.includes(fieldPath), `message names the field: ${caught.message}`);
  if (problem) assert.match(caught.message, problem);
  return caught;
}

function bookingIndex(w: WorldFile, pnr: string): number {
  const i = w.bookings.findIndex((b) => b.pnr === pnr);
  assert.ok(i >= 0, `test world has ${pnr}`);
  return i;
}

function flightIndex(w: WorldFile, id: string): number {
  const i = w.flights.findIndex((f) => f.id === id);
  assert.ok(i >= 0, `test world has flight ${id}`);
  return i;
}

const tmpDirs: string[] = [];
after(() => tmpDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function tmpFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-world-'));
  tmpDirs.push(dir);
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('the demo world (worlds/demo.yaml)', () => {
  const world: World = loadWorldFile(DEMO, NOW);
  const bookings = [...world.bookings.values()];

  test('loads, and every booking says what it demonstrates', () => {
    assert.equal(world.name, 'postbook demo world');
    assert.ok(bookings.length >= 10);
    for (const b of bookings) {
      assert.equal(typeof b.note, 'string', `${b.record.pnr} has a note`);
      assert.ok((b.note ?? '').trim().length > 10, `${b.record.pnr} note says something`);
    }
    assert.equal(world.raw.bookings.length, bookings.length, 'no booking key collides');
  });

  test('covers the PNR statuses Ticketed, OnHold and Cancelled', () => {
    const statuses = new Set(bookings.map((b) => b.record.status));
    for (const s of ['Ticketed', 'OnHold', 'Cancelled'] as const) assert.ok(statuses.has(s), `a ${s} booking`);
  });

  test('has a schedule-changed flight, booked, whose current times differ from the booked ones', () => {
    const changed = [...world.flights.values()].filter((f) => f.status === 'scheduleChanged');
    assert.ok(changed.length >= 1);
    const seg = bookings.flatMap((b) => b.record.segments).find((s) => s.scheduleStatus === 'scheduleChanged');
    assert.ok(seg, 'a booking flies the changed flight');
    assert.notEqual(seg.depLocal, seg.bookedDepLocal);
    assert.notEqual(seg.arrLocal, seg.bookedArrLocal);
  });

  test('has a cancelled flight and a flown (past) segment', () => {
    assert.ok([...world.flights.values()].some((f) => f.status === 'cancelled'));
    assert.ok(bookings.some((b) => b.record.segments.some((s) => s.depAt < NOW) && b.record.tickets.some((t) => t.coupons.some((c) => c.status === 'USED'))));
  });

  test('has a booking whose airline system answers with an error', () => {
    assert.ok(bookings.some((b) => b.behaviour.failure === 'error'));
  });

  test('has an airline with latency, and one that does not support claims', () => {
    const airlines = [...world.airlines.values()];
    assert.ok(airlines.some((a) => (a.behaviour?.latencyMs ?? 0) > 0), 'an airline with latency');
    assert.ok(airlines.some((a) => a.supports?.claims === false), 'an airline with supports.claims false');
    assert.ok(airlines.some((a) => a.refundRules.some((r) => r.refundMethod === 'Voucher')), 'an airline that refunds in vouchers');
  });

  test('has a booking priced in JPY (exponent 0), in whole yen', () => {
    const yen = bookings.flatMap((b) => b.record.tickets).filter((t) => t.currency === 'JPY');
    assert.ok(yen.length >= 1);
    const demo07 = world.bookings.get('XS/DEMO07');
    assert.ok(demo07);
    assert.equal(demo07.record.tickets[0]!.fareMinor, 48000);
    assert.equal(demo07.record.tickets[0]!.taxMinor, 5600);
  });

  test('has a booking booked by another client, a family with ADT/CHD/INF, in-flow and post-ticketing ancillaries', () => {
    const clientIds = new Set(world.clients.map((c) => c.id));
    assert.ok(bookings.some((b) => b.record.bookedByClient !== null && clientIds.has(b.record.bookedByClient)));
    assert.ok(bookings.some((b) => ['ADT', 'CHD', 'INF'].every((t) => b.record.passengers.some((p) => p.type === t))));
    const ancillaries = bookings.flatMap((b) => b.record.tickets.flatMap((t) => t.ancillaries));
    assert.ok(ancillaries.some((a) => a.kind === 'inflow' && a.category === 'Seat' && a.seat !== null));
    assert.ok(ancillaries.some((a) => a.kind === 'post' && a.postOrderNo !== null));
  });

  test('DEMO01 is resolved in airport-local times (HND 10:30 → SGN 14:45, 375 minutes)', () => {
    const demo01 = world.bookings.get('XS/DEMO01');
    assert.ok(demo01);
    const [out, ret] = demo01.record.segments;
    assert.equal(out!.depLocal, '2026-01-18 10:30');
    assert.equal(out!.arrLocal, '2026-01-18 14:45');
    assert.equal(out!.durationMinutes, 375);
    assert.equal(ret!.direction, 'ret');
    assert.equal(demo01.issuedAt?.toISOString(), '2026-01-12T09:00:00.000Z');
  });

  test(
    'loads at every hour of the day (relative days of departure and arrival counted from one date)',
    () => {
      const failures: string[] = [];
      for (let h = 0; h < 24; h++) {
        const now = new Date(Date.UTC(2026, 0, 15, h, 30));
        try {
          const w = loadWorldFile(DEMO, now);
          for (const f of w.flights.values()) {
            const hours = f.scheduled.arr.diff(f.scheduled.dep, 'hours').hours;
            if (hours > 16) failures.push(`${now.toISOString()}: ${f.id} lasts ${hours} h`);
          }
        } catch (err) {
          failures.push(`${now.toISOString()}: ${(err as Error).message}`);
        }
      }
      assert.deepEqual(failures, []);
    },
  );
});

describe('world times', () => {
  // 2026-03-10T02:00Z is 11:00 on 10 March in Tokyo (UTC+9) but 22:00 on 9 March in New York (UTC-4, EDT).
  const now = new Date('2026-03-10T02:00:00Z');
  const local = (zone: string, y: number, mo: number, d: number, h: number, mi: number) =>
    DateTime.fromObject({ year: y, month: mo, day: d, hour: h, minute: mi }, { zone });

  test('"+3d 10:30" is the airport-local date three days on, at 10:30 local (east of UTC)', () => {
    const t = resolveWorldTime('+3d 10:30', 'Asia/Tokyo', now);
    assert.ok(t);
    assert.equal(t.toMillis(), local('Asia/Tokyo', 2026, 3, 13, 10, 30).toMillis());
    assert.equal(t.toUTC().toISO(), '2026-03-13T01:30:00.000Z');
    assert.equal(t.setZone('Asia/Tokyo').toFormat('yyyy-MM-dd HH:mm'), '2026-03-13 10:30');
  });

  test('"+3d 10:30" counts days from the UTC date for every zone, so all times of a world share one calendar', () => {
    // New York is still on 9 March, but the world's "today" is the UTC date, 10 March: +3d is 13 March.
    const t = resolveWorldTime('+3d 10:30', 'America/New_York', now);
    assert.ok(t);
    assert.equal(t.toMillis(), local('America/New_York', 2026, 3, 13, 10, 30).toMillis());
    assert.equal(t.toUTC().toISO(), '2026-03-13T14:30:00.000Z');
  });

  test('"+3d 10:30" keeps the wall-clock time across a DST change', () => {
    // 2026-03-06 10:00 EST (UTC-5); three days on is 2026-03-09, after the switch to EDT (UTC-4).
    const t = resolveWorldTime('+3d 10:30', 'America/New_York', new Date('2026-03-06T15:00:00Z'));
    assert.ok(t);
    assert.equal(t.setZone('America/New_York').toFormat('yyyy-MM-dd HH:mm'), '2026-03-09 10:30');
    assert.equal(t.toUTC().toISO(), '2026-03-09T14:30:00.000Z');
  });

  test('"-2d 09:00" goes back in local days', () => {
    const t = resolveWorldTime('-2d 09:00', 'Europe/Paris', now);
    assert.ok(t);
    assert.equal(t.setZone('Europe/Paris').toFormat('yyyy-MM-dd HH:mm'), '2026-03-08 09:00');
  });

  test('"-2h", "+90m" and "now" are offsets of the instant, whatever the zone', () => {
    for (const zone of ['Asia/Tokyo', 'America/New_York', 'UTC']) {
      assert.equal(resolveWorldTime('-2h', zone, now)?.toMillis(), now.getTime() - 2 * 3_600_000, zone);
      assert.equal(resolveWorldTime('+90m', zone, now)?.toMillis(), now.getTime() + 90 * 60_000, zone);
      assert.equal(resolveWorldTime('now', zone, now)?.toMillis(), now.getTime(), zone);
    }
  });

  test('an absolute "2026-12-01 10:30" is wall-clock time in the given zone', () => {
    assert.equal(resolveWorldTime('2026-12-01 10:30', 'Asia/Tokyo', now)?.toUTC().toISO(), '2026-12-01T01:30:00.000Z');
    assert.equal(resolveWorldTime('2026-12-01 10:30', 'America/New_York', now)?.toUTC().toISO(), '2026-12-01T15:30:00.000Z');
    assert.equal(resolveWorldTime('2026-12-01 10:30', 'UTC', now)?.toUTC().toISO(), '2026-12-01T10:30:00.000Z');
  });

  test('impossible times resolve to null', () => {
    assert.equal(resolveWorldTime('+3d 24:00', 'UTC', now), null);
    assert.equal(resolveWorldTime('+3d 10:60', 'UTC', now), null);
    assert.equal(resolveWorldTime('2026-02-30 10:00', 'UTC', now), null);
    assert.equal(resolveWorldTime('tomorrow', 'UTC', now), null);
  });

  test('a segment across time zones: local times as written, duration from the instants', () => {
    const w = buildWorld(testWorld(), NOW, 'test');
    const tst001 = w.bookings.get('XS/TST001');
    assert.ok(tst001);
    const [out, ret] = tst001.record.segments;
    // HND 10:30 (UTC+9) → SGN 14:45 (UTC+7): 4 h 15 on the clocks, 6 h 15 in the air.
    assert.equal(out!.depLocal, '2026-01-18 10:30');
    assert.equal(out!.arrLocal, '2026-01-18 14:45');
    assert.equal(out!.depAt.toISOString(), '2026-01-18T01:30:00.000Z');
    assert.equal(out!.arrAt.toISOString(), '2026-01-18T07:45:00.000Z');
    assert.equal(out!.depTimeZone, 'Asia/Tokyo');
    assert.equal(out!.arrTimeZone, 'Asia/Ho_Chi_Minh');
    assert.equal(out!.durationMinutes, 375);
    // SGN 23:55 → HND 07:40 the next day: 5 h 45.
    assert.equal(ret!.depLocal, '2026-01-24 23:55');
    assert.equal(ret!.arrLocal, '2026-01-25 07:40');
    assert.equal(ret!.durationMinutes, 345);
  });

  test('a changed schedule: current times are the changed ones, booked times kept, duration from the changed ones', () => {
    const w = buildWorld(testWorld(), NOW, 'test');
    const seg = w.bookings.get('XS/TST002')?.record.segments[0];
    assert.ok(seg);
    assert.equal(seg.scheduleStatus, 'scheduleChanged');
    assert.equal(seg.bookedDepLocal, '2026-01-20 13:00');
    assert.equal(seg.bookedArrLocal, '2026-01-20 15:30');
    assert.equal(seg.depLocal, '2026-01-20 15:20');
    assert.equal(seg.arrLocal, '2026-01-20 17:50');
    // CDG 15:20 (UTC+1) → JFK 17:50 (UTC-5): 8 h 30.
    assert.equal(seg.durationMinutes, 510);
  });

  test('issuedAt is read in UTC', () => {
    const w = buildWorld(testWorld(), NOW, 'test');
    assert.equal(w.bookings.get('XS/TST001')?.issuedAt?.toISOString(), '2026-01-12T09:00:00.000Z');
    assert.equal(w.bookings.get('XS/TST001')?.record.tickets[0]?.issuedAt?.toISOString(), '2026-01-12T09:00:00.000Z');
  });

  test(
    'a flight keeps its length whatever the hour the world is loaded',
    () => {
      const at = new Date('2026-01-15T16:00:00Z'); // Tokyo 16 Jan 01:00, Ho Chi Minh City 15 Jan 23:00
      const w = buildWorld(testWorld(), at, 'test');
      assert.equal(w.bookings.get('XS/TST001')?.record.segments[0]?.durationMinutes, 375);
    },
  );
});

describe('a malformed world is refused with the path of the bad field', () => {
  test('the test world itself loads', () => {
    const w = buildWorld(testWorld(), NOW, 'test');
    assert.equal(w.bookings.size, testWorld().bookings.length);
  });

  test('YAML syntax error: refused at the root, naming the file', () => {
    const file = tmpFile('broken-world.yaml', 'name: broken\nclients: [\n  - id: x\n');
    let caught: unknown;
    try {
      loadWorldFile(file, NOW);
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof WorldError);
    assert.equal(caught.fieldPath, '');
    assert.ok(caught.message.includes('broken-world.yaml'), caught.message);
    assert.match(caught.message, /not valid YAML/);
  });

  test('JSON syntax error in a .json world', () => {
    const file = tmpFile('broken-world.json', '{"name": "broken",');
    assert.throws(() => loadWorldFile(file, NOW), (err: unknown) => {
      assert.ok(err instanceof WorldError);
      assert.equal(err.fieldPath, '');
      assert.ok(err.message.includes('broken-world.json'));
      assert.match(err.message, /not valid JSON/);
      return true;
    });
  });

  test("a syntax error is told by where it is, never by the file's text: a world holds secrets and passengers, and the message goes to the start-up's fatal log line (found by a review: the parsers quote the line or the characters about it)", () => {
    const secret = PLANTED.secrets[0];
    for (const [name, text, where] of [
      ['leaky.yaml', `name: leaky\nclients:\n  - id: x\n    secret: ${secret}: oops\n`, /at line 4, column \d+/],
      // JSON.parse quotes the characters about an unexpected token and gives no position: its kind only
      ['leaky.json', `{"name": "leaky", "clients": [{"id": "x", "secret": ${secret}}]}`, /not valid JSON \(unexpected token\)$/],
      ['cut.json', `{"name": "leaky",\n "clients": [{"id": "x", "secret": "${secret}"`, /not valid JSON at line 2, column \d+ \(syntax error\)$/],
    ] as const) {
      assert.throws(() => loadWorldFile(tmpFile(name, text), NOW), (err: unknown) => {
        assert.ok(err instanceof WorldError);
        assert.ok(!err.message.includes(secret) && !err.message.includes(secret.slice(0, 8)), err.message);
        assert.match(err.message, where);
        return true;
      });
    }
  });

  test('a missing file', () => {
    assert.throws(() => loadWorldFile(path.join(os.tmpdir(), 'no-such-dir-postbook', 'absent.yaml'), NOW), (err: unknown) => {
      assert.ok(err instanceof WorldError);
      assert.ok(err.message.includes('absent.yaml'));
      assert.match(err.message, /cannot be read/);
      return true;
    });
  });

  test('a world file on disk is refused with the path and the file name (YAML variant with an unknown field)', () => {
    const w = variant((v) => Object.assign(v.bookings[0]!.tickets![0]!, { fare_typo: 1 }));
    const file = tmpFile('typo-world.yaml', YAML.stringify(w));
    assert.throws(() => loadWorldFile(file, NOW), (err: unknown) => {
      assert.ok(err instanceof WorldError);
      assert.equal(err.fieldPath, 'bookings[0].tickets[0].fare_typo');
      assert.ok(err.message.includes('typo-world.yaml'), err.message);
      return true;
    });
  });

  test('unknown field', () => {
    assertRefused(
      variant((w) => Object.assign(w.bookings[0]!.tickets![0]!, { fare_typo: 1 })),
      'bookings[0].tickets[0].fare_typo',
    );
  });

  test('unknown field at the root', () => {
    assertRefused(
      variant((w) => Object.assign(w, { flight: [] })),
      'flight',
    );
  });

  test(
    'unknown field: the message says it is an unknown field',
    () => {
      assertRefused(
        variant((w) => Object.assign(w.bookings[0]!.tickets![0]!, { fare_typo: 1 })),
        'bookings[0].tickets[0].fare_typo',
        /unknown field/,
      );
    },
  );

  test('wrong type', () => {
    assertRefused(
      variant((w) => Object.assign(w.bookings[0]!.tickets![0]!, { fare: '420.00' })),
      'bookings[0].tickets[0].fare',
      /number/,
    );
    assertRefused(
      variant((w) => Object.assign(w.airlines[0]!, { confirmationDays: 'two' })),
      'airlines[0].confirmationDays',
      /integer/,
    );
  });

  test('missing required field', () => {
    assertRefused(
      variant((w) => {
        delete (w.bookings[0] as Partial<WorldFile['bookings'][number]>).contact;
      }),
      'bookings[0]',
      /contact/,
    );
  });

  test('bad pattern', () => {
    assertRefused(
      variant((w) => {
        w.airports[1]!.code = 'sgn';
      }),
      'airports[1].code',
      /pattern/,
    );
  });

  test('value outside an enumeration', () => {
    assertRefused(
      variant((w) => Object.assign(w.bookings[0]!, { status: 'Paid' })),
      'bookings[0].status',
    );
  });

  test('unknown IANA time zone', () => {
    assertRefused(
      variant((w) => {
        w.airports[1]!.timeZone = 'Asia/Saigon_Nowhere';
      }),
      'airports[1].timeZone',
      /IANA/,
    );
    assertRefused(
      variant((w) => {
        w.airlines[0]!.homeTimeZone = 'Mars/Olympus';
      }),
      'airlines[0].homeTimeZone',
      /IANA/,
    );
  });

  test('a time zone Luxon reads but the refund engine does not (an offset, the host\'s own): refused at load, not HTTP 500 at quote time', () => {
    for (const zone of ['UTC+9', 'UTC+09:00', 'local', 'system']) {
      assertRefused(
        variant((w) => {
          w.airports[1]!.timeZone = zone;
        }),
        'airports[1].timeZone',
        /IANA/,
      );
      assertRefused(
        variant((w) => {
          w.airlines[0]!.homeTimeZone = zone;
        }),
        'airlines[0].homeTimeZone',
        /IANA/,
      );
    }
    // the same offset as an IANA name loads (SGN is UTC+7 all year)
    assert.doesNotThrow(() => buildWorld(variant((w) => { w.airports[1]!.timeZone = 'Etc/GMT-7'; }), NOW, 'variant-world.yaml'));
  });

  test('flight names an unknown airport', () => {
    assertRefused(
      variant((w) => {
        w.flights[1]!.to = 'XXX';
      }),
      'flights[1].to',
      /XXX/,
    );
    assertRefused(
      variant((w) => {
        w.flights[1]!.from = 'YYY';
      }),
      'flights[1].from',
      /YYY/,
    );
  });

  test('flight names an unknown aircraft', () => {
    assertRefused(
      variant((w) => {
        w.flights[1]!.aircraft = '388';
      }),
      'flights[1].aircraft',
      /388/,
    );
  });

  test('flight names an unknown airline', () => {
    assertRefused(
      variant((w) => {
        w.flights[1]!.carrier = 'ZZ';
        w.flights[1]!.flightNumber = 'ZZ102';
      }),
      'flights[1].carrier',
      /ZZ/,
    );
  });

  test('flight number without its carrier prefix', () => {
    assertRefused(
      variant((w) => {
        w.flights[1]!.flightNumber = 'XN102';
      }),
      'flights[1].flightNumber',
    );
  });

  test('booking segment names an unknown flight id', () => {
    assertRefused(
      variant((w) => {
        w.bookings[1]!.segments[0]!.flight = 'no-such-flight';
      }),
      'bookings[1].segments[0].flight',
      /no-such-flight/,
    );
  });

  test('ticket names an unknown passenger ref', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets![1]!.passenger = 'zz';
      }),
      'bookings[0].tickets[1].passenger',
    );
  });

  test('coupon count differs from the segment count', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets![0]!.coupons = ['OPEN_FOR_USE'];
      }),
      'bookings[0].tickets[0].coupons',
      /1 coupon\(s\) for 2 segment\(s\)/,
    );
  });

  test('amount with more decimals than the currency allows', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets![0]!.tax = 12.345;
      }),
      'bookings[0].tickets[0].tax',
      /decimals than EUR/,
    );
    assertRefused(
      variant((w) => {
        const t = w.bookings[1]!.tickets![0]!;
        t.currency = 'JPY';
        t.fare = 100.5;
        t.tax = 0;
      }),
      'bookings[1].tickets[0].fare',
      /decimals than JPY/,
    );
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets![0]!.ancillaries![0]!.price = 35.001;
      }),
      'bookings[0].tickets[0].ancillaries[0].price',
    );
    assertRefused(
      variant((w) => {
        w.bookings[0]!.postTicketingServices![0]!.price = 40.123;
      }),
      'bookings[0].postTicketingServices[0].price',
    );
    assertRefused(
      variant((w) => {
        w.flights[0]!.fares = { currency: 'JPY', adult: { fare: 30000, tax: 5000 } };
        w.flights[0]!.seatPrices = [{ rows: { first: 10, last: 12 }, price: 100.5, currency: 'JPY' }];
      }),
      'flights[0].seatPrices[0].price',
    );
  });

  test("a booking's seat its aircraft does not have, or another booking holds too, is refused; a held seat is the flight's", () => {
    const withSeat = (seat: string) => (w: WorldFile) => {
      w.bookings[0]!.tickets![0]!.ancillaries = [{ category: 'Seat', segment: 1, price: 25, seat }];
    };
    assertRefused(variant(withSeat('99Z')), 'bookings[0]', /holds seat 99Z on flight \S+ \(ticket \S+\), which its aircraft \S+ does not have/);
    assertRefused(
      variant((w) => {
        withSeat('12A')(w);
        const other = structuredClone(w.bookings[0]!);
        other.pnr = 'SEAT02';
        other.tickets = other.tickets!.map((t, i) => ({ ...t, ticketNo: `999-19999999${i}0` }));
        w.bookings.push(other);
      }),
      `bookings[${testWorld().bookings.length}]`,
      /holds seat 12A .*which another booking holds/,
    );
    const world = buildWorld(variant(withSeat('12A')), NOW, 'variant-world.yaml');
    const flightId = testWorld().bookings[0]!.segments[0]!.flight;
    assert.ok(world.flights.get(flightId)!.heldSeats.has('12A'));
  });

  test('money texts, booking fees and price changes with more decimals than their currency allows (they were rounded silently)', () => {
    const rule = (amounts: { penaltyAmount?: string; airlineFee?: string }) => (w: WorldFile) => {
      w.airlines[0]!.refundRules.push({ ruleType: '1', startMinute: 525600, endMinute: 0, fareRefundable: true, taxRefundable: true, refundMethod: 'CashBackToOriginalPayment', ...amounts });
    };
    assertRefused(
      variant(rule({ penaltyAmount: 'JPY 50.55' })),
      'airlines[0].refundRules[0].penaltyAmount',
      /decimals/,
    );
    assertRefused(
      variant(rule({ airlineFee: 'EUR 1.234' })),
      'airlines[0].refundRules[0].airlineFee',
      /decimals/,
    );
    assertRefused(
      variant((w) => {
        w.clients[0]!.settings = { ...w.clients[0]!.settings, refundServiceFee: 'EUR 2.005' };
      }),
      'clients[0].settings.refundServiceFee',
      /decimals/,
    );
    assertRefused(
      variant((w) => {
        w.airlines[0]!.bookingFee = { amount: 1.234, currency: 'EUR', mode: 'PER_PAX' };
      }),
      'airlines[0].bookingFee.amount',
      /decimals than EUR/,
    );
    assertRefused(
      variant((w) => {
        w.flights[0]!.priceChangeAfterVerify = { fare: 10.005 };
      }),
      'flights[0].priceChangeAfterVerify.fare',
      /decimals/,
    );
    assertRefused(
      variant((w) => {
        w.flights[0]!.priceChangeAfterVerify = { seat: -2.501 };
      }),
      'flights[0].priceChangeAfterVerify.seat',
      /decimals/,
    );
    // what the currency allows still loads
    assert.doesNotThrow(() =>
      buildWorld(
        variant((w) => {
          rule({ penaltyAmount: 'EUR 50.50', airlineFee: 'JPY 500' })(w);
          w.airlines[0]!.bookingFee = { amount: 1.5, currency: 'EUR', mode: 'PER_PAX' };
          w.flights[0]!.priceChangeAfterVerify = { fare: -10.25, seat: 2.5 };
        }),
        NOW,
        'variant-world.yaml',
      ),
    );
  });

  test('a seat priced in another currency than its flight\'s fares (an order adds them up: 35000 JPY + EUR 25 read as 37500 JPY)', () => {
    assertRefused(
      variant((w) => {
        w.flights[0]!.fares = { currency: 'JPY', adult: { fare: 30000, tax: 5000 } };
        w.flights[0]!.seatPrices = [{ rows: { first: 10, last: 12 }, price: 25, currency: 'EUR' }];
      }),
      'flights[0].seatPrices[0].currency',
      /fares are in JPY/,
    );
  });

  test("a flight priced in another currency than its airline's booking fee (the fee was dropped from its offers, silently)", () => {
    const w = variant((v) => {
      v.airlines[0]!.bookingFee = { amount: 5, currency: 'EUR', mode: 'PER_BOOKING' };
      const i = v.flights.findIndex((f) => f.carrier === v.airlines[0]!.code);
      v.flights[i]!.fares = { currency: 'JPY', adult: { fare: 30000, tax: 5000 } };
    });
    const i = w.flights.findIndex((f) => f.carrier === w.airlines[0]!.code);
    assertRefused(w, `flights[${i}].fares.currency`, new RegExp(`is JPY, but airline ${w.airlines[0]!.code}'s bookingFee is in EUR`));
  });

  test('whole yen and trailing zeros are exact', () => {
    const w = buildWorld(
      variant((v) => {
        const t = v.bookings[1]!.tickets![0]!;
        t.currency = 'JPY';
        t.fare = 48000;
        t.tax = 5600;
      }),
      NOW,
      'test',
    );
    assert.equal(w.bookings.get('XS/TST002')?.record.tickets[0]?.fareMinor, 48000);
    assert.equal(w.bookings.get('XS/TST001')?.record.tickets[0]?.taxMinor, 8540);
  });

  test('duplicate PNR of one carrier', () => {
    const w = variant((v) => {
      v.bookings[bookingIndex(v, 'CANC01')]!.pnr = 'HOLD01';
    });
    assertRefused(w, `bookings[${bookingIndex(w, 'HOLD01') + 1}]`, /XS\/HOLD01/);
    // the same PNR at another carrier is another booking
    const other = variant((v) => {
      const b = v.bookings[bookingIndex(v, 'NOCLM1')]!;
      b.pnr = 'HOLD01';
    });
    assert.ok(buildWorld(other, NOW, 'test').bookings.has('XN/HOLD01'));
  });

  test('duplicate ticket number', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets![1]!.ticketNo = '9991000000001';
      }),
      'bookings[0].tickets[1].ticketNo',
    );
  });

  test('Ticketed booking without tickets', () => {
    assertRefused(
      variant((w) => {
        delete w.bookings[1]!.tickets;
      }),
      'bookings[1].tickets',
      /Ticketed/,
    );
    assertRefused(
      variant((w) => {
        w.bookings[1]!.tickets = [];
      }),
      'bookings[1].tickets',
    );
  });

  test('Ticketed booking with a passenger who has no ticket', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.tickets!.pop();
        w.bookings[0]!.postTicketingServices = [];
      }),
      'bookings[0].passengers[1]',
    );
  });

  test('changedDeparture without status scheduleChanged', () => {
    const i = (w: WorldFile) => flightIndex(w, 'changed');
    assertRefused(
      variant((w) => {
        delete w.flights[i(w)]!.status;
      }),
      `flights[${i(testWorld())}].status`,
      /scheduleChanged/,
    );
    assertRefused(
      variant((w) => {
        w.flights[i(w)]!.status = 'onTime';
      }),
      `flights[${i(testWorld())}].status`,
    );
  });

  test('arrival before departure (in instants, across zones)', () => {
    // SGN 08:00 (UTC+7) is HND 10:00 (UTC+9): before the 10:30 departure although 08:00 reads later on no clock.
    assertRefused(
      variant((w) => {
        w.flights[0]!.arrival = '+3d 08:00';
      }),
      'flights[0].arrival',
      /not after the departure/,
    );
    // equal instants are refused too: HND 10:30 = SGN 08:30
    assertRefused(
      variant((w) => {
        w.flights[0]!.arrival = '+3d 08:30';
      }),
      'flights[0].arrival',
    );
    // SGN 09:00 is HND 11:00: 30 minutes in the air, accepted
    const w = buildWorld(
      variant((v) => {
        v.flights[0]!.arrival = '+3d 09:00';
      }),
      NOW,
      'test',
    );
    assert.equal(w.flights.get('out')?.current.arr.diff(w.flights.get('out')!.current.dep, 'minutes').minutes, 30);
  });

  test('a daily flight does not fly on a day its repeat would land before it leaves (one airport changes clocks that day; found by a review)', () => {
    // KEF keeps UTC all year; LHR moves to UTC+1 on 2026-03-29: 10:00 KEF → 10:40 LHR is 40 minutes until then, and
    // on that day lands 20 minutes before it leaves
    const dstWorld = (repeatDays: number) =>
      variant((w) => {
        w.airports.push({ code: 'KEF', name: 'Keflavik', timeZone: 'Atlantic/Reykjavik' }, { code: 'LHR', name: 'Heathrow', timeZone: 'Europe/London' });
        w.flights.push({ ...structuredClone(w.flights[0]!), id: 'hop', from: 'KEF', to: 'LHR', departure: '+70d 10:00', arrival: '+70d 10:40', repeatDays });
      });
    // 2026-01-15 + 70 days = 2026-03-26; the fourth repeat is 03-30, after London's change on 03-29
    const w = buildWorld(dstWorld(4), NOW, 'test');
    assert.ok(w.flights.get('hop+2d'), 'the days before fly');
    assert.equal(w.flights.get('hop+3d'), undefined, 'not on the day it would land before it leaves');
    assert.equal(w.flights.get('hop+4d'), undefined, 'nor after');
    assert.equal(w.flights.get('hop')?.current.arr.diff(w.flights.get('hop')!.current.dep, 'minutes').minutes, 40);
  });

  test("a flight whose id is another flight's repeat is refused (it silently replaced the repeat; found by a review)", () => {
    const at = testWorld().flights.length;
    assertRefused(
      variant((w) => {
        w.flights[0]!.repeatDays = 1;
        w.flights.push({ ...structuredClone(w.flights[1]!), id: `${w.flights[0]!.id}+1d` });
      }),
      `flights[${at}].id`,
      /already a flight's id/,
    );
  });

  test('changed arrival before changed departure', () => {
    const i = flightIndex(testWorld(), 'changed');
    assertRefused(
      variant((w) => {
        w.flights[i]!.changedArrival = '+5d 09:00'; // JFK 09:00 = CDG 15:00, before the 15:20 departure
      }),
      `flights[${i}].changedArrival`,
    );
  });

  test('an impossible time', () => {
    assertRefused(
      variant((w) => {
        w.flights[0]!.departure = '+3d 25:00';
      }),
      'flights[0].departure',
      /not a valid time/,
    );
  });

  test('bookedBy names an unknown client', () => {
    const w = testWorld();
    const i = bookingIndex(w, 'BETA01');
    assert.equal(w.bookings[i]!.bookedBy, TEST_CLIENTS.beta.id);
    assertRefused(
      variant((v) => {
        v.bookings[i]!.bookedBy = 'client-gamma';
      }),
      `bookings[${i}].bookedBy`,
      /client-gamma/,
    );
  });

  test('post-ticketing service on a segment the booking does not have', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.postTicketingServices![0]!.segment = 3;
      }),
      'bookings[0].postTicketingServices[0].segment',
    );
  });

  test('outbound segment after a return segment', () => {
    assertRefused(
      variant((w) => {
        w.bookings[0]!.segments = [{ flight: 'ret', direction: 'ret' }, { flight: 'out' }];
      }),
      'bookings[0].segments[1].direction',
    );
  });

  test('refund rule money text that is not ISO 4217', () => {
    assertRefused(
      variant((w) => {
        w.airlines[0]!.refundRules = [{ ruleType: '1', penaltyAmount: 'XYZ 50.00' }];
      }),
      'airlines[0].refundRules[0].penaltyAmount',
    );
  });
});
