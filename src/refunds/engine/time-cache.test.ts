// The zone and offset memo of time.ts changes no answer: calendarDate equals luxon's own calendar arithmetic,
// and repeated or interleaved departures read the same as on first use (docs/architecture.md "Refund arithmetic").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { RefundEngineInputError, calendarDate, departureInstant } from './time.js';

const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/Santiago', 'Asia/Tokyo', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/Havana', 'Asia/Beirut'];

// step 10: expected dates are calendar days after the day of now in the zone.
void test('property: calendarDate is luxon fromMillis(now, zone).startOf(day).plus(days) as yyyyMMdd', () => {
  const start = Date.UTC(2019, 0, 1);
  fc.assert(
    fc.property(fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 12 * 366 * 24 * 4 }), fc.integer({ min: 0, max: 400 }), (zone, quarterHours, days) => {
      const now = start + quarterHours * 15 * 60_000 + 7 * 60_000;
      const expected = DateTime.fromMillis(now, { zone }).startOf('day').plus({ days }).toFormat('yyyyMMdd');
      assert.equal(calendarDate(now, days, zone), expected, `${new Date(now).toISOString()} ${zone} +${days}`);
    }),
    { numRuns: 3000 },
  );
});

void test('departures read the same on first and later use, interleaved across zones', () => {
  const locals = ['2024-10-27 02:30', '2024-03-31 02:30', '2024-11-03 01:30', '2024-03-10 02:30', '2024-07-01 12:00'];
  const first = new Map<string, number>();
  for (let round = 0; round < 3; round++) {
    for (const zone of ZONES) {
      for (const local of locals) {
        const got = departureInstant({ local, timeZone: zone });
        const key = `${zone} ${local}`;
        if (round === 0) first.set(key, got);
        else assert.equal(got, first.get(key), key);
      }
    }
  }
  // spot checks of the edge cases (time.test.ts holds the full table)
  assert.equal(new Date(first.get('Europe/Berlin 2024-10-27 02:30')!).toISOString(), '2024-10-27T00:30:00.000Z');
  assert.equal(new Date(first.get('America/New_York 2024-03-10 02:30')!).toISOString(), '2024-03-10T07:30:00.000Z');
});

void test('a departure is kept by zone and local time as given: neither a neighbour nor another zone reads it', () => {
  const berlin = departureInstant({ local: '2024-07-01 12:00', timeZone: 'Europe/Berlin' });
  assert.equal(new Date(berlin).toISOString(), '2024-07-01T10:00:00.000Z');
  // the same wall time elsewhere, asked after Berlin's reading is kept
  assert.equal(new Date(departureInstant({ local: '2024-07-01 12:00', timeZone: 'Asia/Tokyo' })).toISOString(), '2024-07-01T03:00:00.000Z');
  // spaces around it: the same reading, kept under its own text
  assert.equal(departureInstant({ local: ' 2024-07-01 12:00 ', timeZone: 'Europe/Berlin' }), berlin);
  for (let i = 0; i < 3; i++) {
    assert.throws(() => departureInstant({ local: '2024-07-01 12:00x', timeZone: 'Europe/Berlin' }), RefundEngineInputError);
    assert.throws(() => departureInstant({ local: '2024-02-30 12:00', timeZone: 'Europe/Berlin' }), RefundEngineInputError);
    assert.equal(departureInstant({ local: '2024-07-01 12:00', timeZone: 'Europe/Berlin' }), berlin);
  }
});

void test('an unknown zone stays an input error on every call (the memo keeps the refusal)', () => {
  for (let i = 0; i < 3; i++) {
    assert.throws(() => departureInstant({ local: '2024-07-01 12:00', timeZone: 'Mars/Olympus_Mons' }), RefundEngineInputError);
    assert.throws(() => calendarDate(0, 1, 'Mars/Olympus_Mons'), RefundEngineInputError);
  }
});
