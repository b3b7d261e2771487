// Facts derived from an airline record, shared by extraction, claims and orders.
import type { AirlineRecord } from './connector.js';

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
 * A flight number in one comparable form: carrier prefix added when missing, leading zeros dropped
 * ("0201" with XS → XS201, "XS0201" → XS201). Callers send either form.
 */
export function normalizeFlightNumber(carrier: string, flightNumber: string): string {
  const fn = flightNumber.toUpperCase();
  if (/^\d+$/.test(fn)) return `${carrier.toUpperCase()}${Number(fn)}`;
  const m = /^([A-Z0-9]{2})(\d+)$/.exec(fn);
  return m ? `${m[1]}${Number(m[2])}` : fn;
}
