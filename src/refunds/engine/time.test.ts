// Departure instants, minutes to departure and calendar days: docs/architecture.md "Refund arithmetic" steps 1 and 10, edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { minutesBetween, NowRange } from './now-range.js';
import { RefundEngineInputError, calendarDate, departureInstant, departureIso, isoInstant } from './time.js';
import { quoteTicket, rangeOf } from './quote.js';
import { rule, ticket } from './test-fixtures.js';

const iso = (local: string, timeZone: string): string => new Date(departureInstant({ local, timeZone })).toISOString();

// step 1: departure is airport-local, converted with the airport's IANA zone (DST-aware).
// edge case: a nonexistent local time (spring-forward gap) is read with the offset BEFORE the change;
// one that occurs twice (fall-back) is the EARLIER instant.
const cases: { name: string; local: string; zone: string; utc: string }[] = [
  // Europe/Berlin: +01 → +02 at 2024-03-31 02:00 local; +02 → +01 at 2024-10-27 03:00 local.
  { name: 'Berlin winter', local: '2024-01-15 08:00', zone: 'Europe/Berlin', utc: '2024-01-15T07:00:00.000Z' },
  { name: 'Berlin summer', local: '2024-07-15 08:00', zone: 'Europe/Berlin', utc: '2024-07-15T06:00:00.000Z' },
  { name: 'Berlin last minute before the gap', local: '2024-03-31 01:59', zone: 'Europe/Berlin', utc: '2024-03-31T00:59:00.000Z' },
  { name: 'Berlin gap start 02:00 (offset before, +01)', local: '2024-03-31 02:00', zone: 'Europe/Berlin', utc: '2024-03-31T01:00:00.000Z' },
  { name: 'Berlin gap 02:30 (offset before, +01)', local: '2024-03-31 02:30', zone: 'Europe/Berlin', utc: '2024-03-31T01:30:00.000Z' },
  { name: 'Berlin after the gap 03:00 (+02)', local: '2024-03-31 03:00', zone: 'Europe/Berlin', utc: '2024-03-31T01:00:00.000Z' },
  { name: 'Berlin overlap 02:00 (earlier, +02)', local: '2024-10-27 02:00', zone: 'Europe/Berlin', utc: '2024-10-27T00:00:00.000Z' },
  { name: 'Berlin overlap 02:30 (earlier, +02)', local: '2024-10-27 02:30', zone: 'Europe/Berlin', utc: '2024-10-27T00:30:00.000Z' },
  { name: 'Berlin overlap 02:59 (earlier, +02)', local: '2024-10-27 02:59', zone: 'Europe/Berlin', utc: '2024-10-27T00:59:00.000Z' },
  { name: 'Berlin after the overlap 03:00 (+01)', local: '2024-10-27 03:00', zone: 'Europe/Berlin', utc: '2024-10-27T02:00:00.000Z' },
  // America/New_York: −05 → −04 at 2024-03-10 02:00; −04 → −05 at 2024-11-03 02:00.
  { name: 'New York gap 02:30 (offset before, −05)', local: '2024-03-10 02:30', zone: 'America/New_York', utc: '2024-03-10T07:30:00.000Z' },
  { name: 'New York after the gap 03:00 (−04)', local: '2024-03-10 03:00', zone: 'America/New_York', utc: '2024-03-10T07:00:00.000Z' },
  { name: 'New York overlap 01:00 (earlier, −04)', local: '2024-11-03 01:00', zone: 'America/New_York', utc: '2024-11-03T05:00:00.000Z' },
  { name: 'New York overlap 01:30 (earlier, −04)', local: '2024-11-03 01:30', zone: 'America/New_York', utc: '2024-11-03T05:30:00.000Z' },
  { name: 'New York after the overlap 02:00 (−05)', local: '2024-11-03 02:00', zone: 'America/New_York', utc: '2024-11-03T07:00:00.000Z' },
  // Southern hemisphere and half-hour shifts.
  { name: 'Sydney gap 02:30 (offset before, +10)', local: '2024-10-06 02:30', zone: 'Australia/Sydney', utc: '2024-10-05T16:30:00.000Z' },
  { name: 'Sydney overlap 02:30 (earlier, +11)', local: '2024-04-07 02:30', zone: 'Australia/Sydney', utc: '2024-04-06T15:30:00.000Z' },
  { name: 'Lord Howe 30-min gap 02:15 (offset before, +10:30)', local: '2024-10-06 02:15', zone: 'Australia/Lord_Howe', utc: '2024-10-05T15:45:00.000Z' },
  { name: 'Lord Howe 30-min overlap 01:45 (earlier, +11)', local: '2024-04-07 01:45', zone: 'Australia/Lord_Howe', utc: '2024-04-06T14:45:00.000Z' },
  // No DST at all.
  { name: 'Tokyo', local: '2024-03-31 02:30', zone: 'Asia/Tokyo', utc: '2024-03-30T17:30:00.000Z' },
  { name: 'Kolkata (+05:30)', local: '2024-11-03 01:30', zone: 'Asia/Kolkata', utc: '2024-11-02T20:00:00.000Z' },
  { name: 'UTC', local: '2024-02-29 23:59', zone: 'UTC', utc: '2024-02-29T23:59:00.000Z' },
];

for (const c of cases) {
  void test(`departureInstant: ${c.name}`, () => {
    assert.equal(iso(c.local, c.zone), c.utc);
  });
}

void test('departureInstant rejects malformed local times and unknown zones', () => {
  for (const [local, timeZone] of [
    ['2024-02-30 10:00', 'UTC'],
    ['2023-02-29 10:00', 'UTC'],
    ['2024-03-31T02:30', 'Europe/Berlin'],
    ['2024-03-31 24:00', 'Europe/Berlin'],
    ['2024-03-31 10:60', 'Europe/Berlin'],
    ['2024-03-31 10:00', 'Mars/Olympus_Mons'],
    ['2024-03-31 10:00', ''],
  ] as const) {
    assert.throws(() => departureInstant({ local, timeZone }), RefundEngineInputError, `${local} ${timeZone}`);
  }
});

// edge case: `m` is the floor of the exact difference (30 s after departure is −1).
void test('minutesBetween floors the exact difference', () => {
  const dep = Date.UTC(2025, 0, 1, 12, 0);
  const table: [offsetMs: number, m: number][] = [
    [0, 0],
    [59_999, 0],
    [60_000, 1],
    [90_000, 1],
    [-1, -1],
    [-30_000, -1],
    [-60_000, -1],
    [-60_001, -2],
    [1440 * 60_000, 1440],
  ];
  for (const [offset, m] of table) {
    const got = minutesBetween(dep - offset, dep);
    assert.ok(Object.is(got, m), `${offset} ms before departure: expected ${m}, got ${got}`);
  }
});

// step 1: across a DST change the wall-clock difference is not the real one.
void test('quoteTicket measures m in real minutes across a spring-forward night', () => {
  const t = ticket({ firstDeparture: { local: '2024-03-31 04:00', timeZone: 'Europe/Berlin' } }); // 02:00Z
  const q = quoteTicket({ ticket: t, rules: [rule({ fareRefundable: true })], reason: '1', now: new Date('2024-03-31T00:00:00Z'), rates: {} });
  assert.equal(q.minutesToDeparture, 120); // 01:00 local → 04:00 local is only two hours that night
  assert.equal(q.departureUtc, '2024-03-31T02:00:00.000Z');
});

void test('quoteTicket: a departure in the fall-back overlap is the earlier instant', () => {
  const t = ticket({ firstDeparture: { local: '2024-11-03 01:30', timeZone: 'America/New_York' } });
  const now = new Date('2024-11-03T05:00:00Z');
  const q = quoteTicket({ ticket: t, rules: [], reason: '1', now, rates: {} });
  assert.equal(q.minutesToDeparture, 30); // 05:30Z, not 06:30Z (90)
});

// step 10: calendar days from "today".
void test('calendarDate counts calendar days from the day of now in the zone', () => {
  const now = Date.parse('2025-06-01T23:30:00Z');
  assert.equal(calendarDate(now, 0, 'UTC'), '20250601');
  assert.equal(calendarDate(now, 2, 'UTC'), '20250603');
  assert.equal(calendarDate(now, 31, 'UTC'), '20250702');
  assert.equal(calendarDate(now, 0, 'Asia/Tokyo'), '20250602');
  assert.equal(calendarDate(Date.parse('2024-12-31T12:00:00Z'), 1, 'UTC'), '20250101');
  assert.equal(calendarDate(Date.parse('2024-02-28T12:00:00Z'), 1, 'UTC'), '20240229');
  assert.throws(() => calendarDate(now, -1, 'UTC'), RefundEngineInputError);
  assert.throws(() => calendarDate(now, 1.5, 'UTC'), RefundEngineInputError);
});

void test('departureIso is isoInstant of the departure, asked again or not', () => {
  const ms = departureInstant({ local: '2026-03-29 02:30', timeZone: 'Europe/Berlin' });
  assert.equal(departureIso(ms), isoInstant(ms));
  assert.equal(departureIso(ms), new Date(ms).toISOString());
  assert.equal(departureIso(ms + 60_000), new Date(ms + 60_000).toISOString());
});

// decision 0067: a NowRange holds exactly the instants at which the readings made through it answer the same — every
// instant inside it does, and the instant just outside either end does not.
void test('NowRange: after() and minutesUntil() keep exactly the instants with the same answer', () => {
  const dep = Date.parse('2026-12-10T10:00:00Z');
  const odd = dep + 12_345.5; // an instant that is not a whole minute, nor a whole millisecond
  for (const now of [dep - 61_000, dep - 60_000, dep - 59_999, dep - 1, dep, dep + 1, dep + 30_000, odd - 1, odd + 0.5]) {
    const t = Math.floor(now);
    const minutes = new NowRange(t);
    const m = minutes.minutesUntil(dep);
    assert.equal(m, minutesBetween(t, dep));
    assert.equal(minutesBetween(minutes.from, dep), m);
    assert.equal(minutesBetween(minutes.until, dep), m);
    assert.notEqual(minutesBetween(minutes.from - 1, dep), m, `${t}: the range starts where the minutes change`);
    assert.notEqual(minutesBetween(minutes.until + 1, dep), m, `${t}: the range ends where the minutes change`);
    assert.equal(minutes.until - minutes.from, 59_999);

    for (const edge of [dep, odd, dep - 1]) {
      const range = new NowRange(t);
      const isAfter = range.after(edge);
      assert.equal(isAfter, t > edge);
      assert.ok(range.holds(t));
      const inside = [range.from, range.until].filter(Number.isFinite);
      for (const i of inside) assert.equal(i > edge, isAfter, `${t} vs ${edge}: ${i} is inside`);
      if (Number.isFinite(range.from)) assert.equal(range.from - 1 > edge, !isAfter, `${t} vs ${edge}: just before the range`);
      if (Number.isFinite(range.until)) assert.equal(range.until + 1 > edge, !isAfter, `${t} vs ${edge}: just after the range`);
      assert.ok(Number.isFinite(range.from) !== Number.isFinite(range.until), 'one side of one edge: open at the other end');
    }
  }
  // readings narrow together; a range of another instant is refused by the engine
  const both = new NowRange(dep - 90_000);
  both.minutesUntil(dep);
  both.after(dep - 100_000);
  assert.deepEqual([both.from, both.until], [dep - 99_999, dep - 60_000]);
  assert.throws(() => quoteTicket({ ticket: ticket(), rules: [rule()], reason: '1', now: new Date(dep), rates: {}, nowRange: new NowRange(dep + 1) }), RefundEngineInputError);
  // the one check of it (the engine's and the refund checks'): the range of now as given, none as none
  assert.equal(rangeOf(both, dep - 90_000), both);
  assert.equal(rangeOf(undefined, dep), undefined);
  assert.throws(() => rangeOf(both, dep - 90_001), /another instant/);
});

void test("NowRange: calendarDate keeps UTC's day, and a zone's day at now alone", () => {
  const now = Date.parse('2026-12-10T13:14:15.678Z');
  const utc = new NowRange(now);
  assert.equal(calendarDate(now, 2, 'UTC', utc), '20261212');
  assert.deepEqual([utc.from, utc.until], [Date.parse('2026-12-10T00:00:00Z'), Date.parse('2026-12-11T00:00:00Z') - 1]);
  assert.equal(calendarDate(utc.from, 2, 'UTC'), '20261212');
  assert.equal(calendarDate(utc.until, 2, 'UTC'), '20261212');
  assert.notEqual(calendarDate(utc.from - 1, 2, 'UTC'), '20261212');
  assert.notEqual(calendarDate(utc.until + 1, 2, 'UTC'), '20261212');
  const tokyo = new NowRange(now);
  calendarDate(now, 2, 'Asia/Tokyo', tokyo);
  assert.deepEqual([tokyo.from, tokyo.until], [now, now]);
});
