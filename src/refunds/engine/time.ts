// Airport-local departure → instant (DST rules: docs/architecture.md "Refund arithmetic", edge cases) and calendar dates; the minutes to departure are now-range.ts's.
import { IANAZone } from 'luxon';
import { BoundedMap } from '../../bounded-map.js';
import type { LocalDeparture } from './types.js';
import type { NowRange } from './now-range.js';

export class RefundEngineInputError extends Error {}

const MINUTE = 60_000;
const DAY = 86_400_000;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/;

/**
 * Zones by name, with a memo of their offsets. `IANAZone.isValidZone` builds a new Intl.DateTimeFormat on
 * every call and each `offset` formats a date: per quote that was most of the engine's time. An offset is
 * a pure function of (zone, instant), so memoising it changes no answer. Every map here is bounded (src/bounded-map.ts:
 * emptied when full; zone names come from the store and the airline terms: a handful in practice).
 */
const MAX_ZONES = 512;
const MAX_OFFSETS_PER_ZONE = 4096;
const MAX_DEPARTURES_PER_ZONE = 4096;
/** Departures' ISO strings (by instant) and calendar dates (by day number), each map. */
const MAX_FORMATTED = 4096;

interface CachedZone {
  zone: IANAZone;
  offsets: BoundedMap<number, number>;
  /** departureInstant's readings in this zone, by local time as given. */
  departures: BoundedMap<string, number>;
  /** UTC itself (the engine's default calendar zone): offset 0 at every instant, nothing to look up. */
  utc: boolean;
}

const UTC_NAMES = new Set(['UTC', 'Etc/UTC']);

const zones = new BoundedMap<string, CachedZone | null>(MAX_ZONES);

function readZone(name: string): CachedZone | null {
  if (!IANAZone.isValidZone(name)) return null;
  return { zone: IANAZone.create(name), offsets: new BoundedMap(MAX_OFFSETS_PER_ZONE), departures: new BoundedMap(MAX_DEPARTURES_PER_ZONE), utc: UTC_NAMES.has(name) };
}

function zoneOf(name: string): CachedZone | null {
  return zones.getOrMake(name, readZone);
}

/** Minutes east of UTC in force at `instant`. */
function offsetIn(z: CachedZone, instant: number): number {
  if (z.utc) return 0;
  let offset = z.offsets.get(instant);
  if (offset === undefined) {
    offset = z.zone.offset(instant);
    z.offsets.set(instant, offset);
  }
  return offset;
}

/**
 * Epoch milliseconds of an airport-local 'yyyy-MM-dd HH:mm' in an IANA zone (readDeparture), memoised per zone: a
 * pure function of the two, asked for every ticket of every quote and submission — the same few flights again and
 * again. A reading parses, builds a Date and up to three offset candidates (~2.4 µs, ~0.5 KB of garbage); a hit is
 * two map lookups. Only readings are kept: a refused departure is refused again on every call.
 */
export function departureInstant(departure: LocalDeparture): number {
  const known = zones.get(departure.timeZone)?.departures.get(departure.local);
  if (known !== undefined) return known;
  const instant = readDeparture(departure);
  // readDeparture has just found (and cached) the zone.
  zones.get(departure.timeZone)?.departures.set(departure.local, instant);
  return instant;
}

/**
 * Epoch milliseconds of an airport-local 'yyyy-MM-dd HH:mm' in an IANA zone.
 *
 * edge cases: a local time in the spring-forward gap is read with the offset in force BEFORE the change;
 * a local time that occurs twice (fall-back) is the EARLIER instant.
 *
 * Luxon's own `DateTime.fromFormat(..., { zone })` (3.7.2) gets the gap right but not the overlap: it picks the
 * LATER instant for 2024-10-27 02:30 Europe/Berlin (01:30Z, not 00:30Z) and for 2024-11-03 01:30
 * America/New_York (06:30Z, not 05:30Z), yet the earlier one for Australia/Lord_Howe's half-hour fall-back.
 * So we only ask luxon for the zone's offset at an instant and resolve the local time ourselves.
 */
function readDeparture(departure: LocalDeparture): number {
  const m = LOCAL.exec(departure.local.trim());
  if (!m) throw new RefundEngineInputError(`departure ${JSON.stringify(departure.local)} is not 'yyyy-MM-dd HH:mm'`);
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59) {
    throw new RefundEngineInputError(`departure ${JSON.stringify(departure.local)} is not a calendar date and time`);
  }
  const zone = zoneOf(departure.timeZone);
  if (!zone) throw new RefundEngineInputError(`time zone ${JSON.stringify(departure.timeZone)} is not an IANA zone`);
  const offsetAt = (instant: number): number => offsetIn(zone, instant); // minutes east of UTC

  // Offsets in force a day either side bracket any transition that can affect this wall time (|offset| ≤ 14 h).
  const before = offsetAt(wall - DAY);
  const after = offsetAt(wall + DAY);
  const candidates = [...new Set([before, after, offsetAt(wall)])]
    .map((offset) => ({ offset, instant: wall - offset * MINUTE }))
    .filter((c) => offsetAt(c.instant) === c.offset)
    .map((c) => c.instant);
  if (candidates.length > 0) return Math.min(...candidates); // one valid reading, or the earlier of two
  return wall - before * MINUTE; // in the gap: the offset before the change
}

export function instantOf(now: Date): number {
  const ms = now.getTime();
  if (!Number.isFinite(ms)) throw new RefundEngineInputError('now is an invalid Date');
  return ms;
}

/** yyyyMMdd of a day number (days since 1970-01-01): every quote asks for the same two or three days. */
const calendarDates = new BoundedMap<number, string>(MAX_FORMATTED);

function formatDayNumber(dayNumber: number): string {
  const day = new Date(dayNumber * DAY);
  return `${String(day.getUTCFullYear()).padStart(4, '0')}${String(day.getUTCMonth() + 1).padStart(2, '0')}${String(day.getUTCDate()).padStart(2, '0')}`;
}

/**
 * yyyyMMdd of the calendar day `days` after the day of `nowMs` in `zone`: the zone's wall-clock date of
 * `nowMs` plus `days` calendar days (what luxon's `fromMillis(…, {zone}).startOf('day').plus({days})` gives,
 * a test holds them equal), without building a DateTime per call.
 */
export function calendarDate(nowMs: number, days: number, zone: string, range?: NowRange): string {
  if (!Number.isSafeInteger(days) || days < 0) throw new RefundEngineInputError(`day count ${days} is not a whole number ≥ 0`);
  const z = zoneOf(zone);
  if (!z) throw new RefundEngineInputError(`time zone ${JSON.stringify(zone)} is not an IANA zone`);
  // the zone's calendar day of `now` as a day number since the epoch, then that day plus `days`
  const today = Math.floor((nowMs + offsetIn(z, nowMs) * MINUTE) / DAY);
  // UTC's day is the same from its midnight to the last millisecond before the next; a zone's day may be cut by an
  // offset's change, which this does not look for: the answer is kept to `now` alone.
  if (z.utc) range?.within(today * DAY, (today + 1) * DAY - 1);
  else range?.within(nowMs, nowMs);
  return calendarDates.getOrMake(today + days, formatDayNumber);
}

export function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** isoInstant of a departure (departureInstant's result), memoised: every ticket of every quote asks it of the same few flights. */
const departureIsos = new BoundedMap<number, string>(MAX_FORMATTED);

export function departureIso(ms: number): string {
  return departureIsos.getOrMake(ms, isoInstant);
}
