// Facts derived from an airline record, shared by extraction, claims and orders.
import type { AirlineRecord } from './connector.js';
import { deepFreeze } from '../deep-freeze.js';

/** Sum of what the tickets cost (fare, tax, in-flow ancillaries), when they share one currency. */
export function recordPrice(record: AirlineRecord): { currency: string; minor: number } | null {
  const currencies = new Set(record.tickets.map((t) => t.currency));
  if (currencies.size !== 1) return null;
  const currency = [...currencies][0] as string;
  let minor = 0;
  for (const t of record.tickets) {
    minor += t.fareMinor + t.taxMinor;
    for (const a of t.ancillaries) if (a.kind === 'inflow' && a.currency === currency) minor += a.priceMinor;
  }
  return { currency, minor };
}

/**
 * Freezes a record in place, Dates included (a frozen Date still answers setTime, so it gets a prototype whose setters refuse: deep-freeze.ts),
 * and returns it. Connectors hand the same record object to every reader until the record changes: readers may
 * then cache what they derive from it by identity (extractPnr.do keeps its wire answer this way).
 */
export function freezeRecord(record: AirlineRecord): Readonly<AirlineRecord> {
  immutable.add(deepFreeze(record));
  return record;
}

const immutable = new WeakSet<AirlineRecord>();

/** True for a record made by freezeRecord: nothing in it can change, so what is derived from it may be kept. */
export function isImmutableRecord(record: AirlineRecord): boolean {
  return immutable.has(record);
}
