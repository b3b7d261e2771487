// The sandbox airline's own reading of its refund rules (the world's airlines[].refundRules): which rule it
// applies to a ticket when a refund arrives, hence whether it pays in vouchers. Written apart from postbook's
// refund engine on purpose: a fake airline that asked the engine would agree with any engine bug, and no test
// against it could see one. The reading is the published one (docs/architecture.md "Refund arithmetic",
// steps 1-3); the amounts do not matter to the airline's choice of rule.
import { DateTime } from 'luxon';
import { BoundedMap } from '../../bounded-map.js';
import type { WorldRefundRule } from './world-schema.js';

export interface RuleQuery {
  passengerType: 'ADT' | 'CHD' | 'INF';
  /** The ticket's first departure, airport-local 'yyyy-MM-dd HH:mm', and its zone. */
  depLocal: string;
  depTimeZone: string;
  reason: '0' | '1' | '4';
  now: Date;
}

const compare = (a: number, b: number) => (a < b ? -1 : a > b ? 1 : 0);

/** The window (endMinute, startMinute], a missing bound open; `m` minutes before departure. */
function holds(r: WorldRefundRule, m: number): boolean {
  return m > (r.endMinute ?? -Infinity) && m <= (r.startMinute ?? Infinity);
}

function width(r: WorldRefundRule): number {
  return (r.startMinute ?? Infinity) - (r.endMinute ?? -Infinity);
}

/** Departure instants already read (airport-local time + zone → epoch ms, NaN when invalid); bounded. */
const departures = new BoundedMap<string, number>(10_000);

function departureMillis(depLocal: string, zone: string): number {
  const key = `${zone} ${depLocal}`;
  let ms = departures.get(key);
  if (ms === undefined) {
    const dep = DateTime.fromFormat(depLocal, 'yyyy-MM-dd HH:mm', { zone });
    ms = dep.isValid ? earliestReading(dep, depLocal) : NaN;
    departures.set(key, ms);
  }
  return ms;
}

/**
 * A wall time that occurs twice (the clocks going back) is its earlier instant, as the published arithmetic settles
 * it; luxon reads the later one (a review: the airline priced an hour later than the quote, and paid cash back where
 * the quote said voucher). Of the zone's offsets a day either side, each that holds at the instant it gives is a
 * reading. A time in the spring gap luxon already reads with the offset before the change.
 */
function earliestReading(dep: DateTime, depLocal: string): number {
  const zone = dep.zone;
  const wall = DateTime.fromFormat(depLocal, 'yyyy-MM-dd HH:mm', { zone: 'UTC' }).toMillis();
  const DAY = 86_400_000;
  const readings = [zone.offset(wall - DAY), zone.offset(wall + DAY)]
    .map((offset) => ({ offset, at: wall - offset * 60_000 }))
    .filter((r) => zone.offset(r.at) === r.offset)
    .map((r) => r.at);
  return Math.min(dep.toMillis(), ...readings);
}

/** The rule the airline applies, or null when none does. */
export function ruleTheAirlineApplies(rules: readonly WorldRefundRule[], q: RuleQuery): WorldRefundRule | null {
  const dep = departureMillis(q.depLocal, q.depTimeZone);
  if (Number.isNaN(dep)) return null;
  const m = Math.floor((dep - q.now.getTime()) / 60_000);
  const best = (ruleType: WorldRefundRule['ruleType']): WorldRefundRule | null => {
    const fits = rules
      .map((rule, index) => ({ rule, index }))
      .filter(({ rule }) => rule.ruleType === ruleType && (rule.passengerType === undefined || rule.passengerType === q.passengerType) && holds(rule, m));
    fits.sort(
      (a, b) =>
        compare(a.rule.passengerType === undefined ? 1 : 0, b.rule.passengerType === undefined ? 1 : 0) ||
        (width(a.rule) === width(b.rule) ? 0 : compare(width(a.rule), width(b.rule))) ||
        compare(a.index, b.index),
    );
    return fits[0]?.rule ?? null;
  };
  const chosen = best(q.reason);
  // A voluntary rule that refunds neither fare nor tax gives way to a tax-refund rule, when one fits.
  if (chosen && q.reason === '1' && chosen.fareRefundable !== true && chosen.taxRefundable !== true) return best('2') ?? chosen;
  return chosen;
}
