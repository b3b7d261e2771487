// Display helpers: money from minor units (the currency's own decimals), times, status names.
import { isoExponent } from '../../src/money/iso-exponent.js';

/**
 * Decimals of a currency's minor units: ISO 4217's, the table the server stores amounts with
 * (src/money/money.ts), not the browser's Intl/CLDR table, which says 0 for IDR, HUF, PKR, COP and IQD, LBP,
 * IRR, MMK, YER and others where ISO says 2 or 3. A code ISO does not list (none is stored) reads as 2.
 */
function decimalsOf(currency: string): number {
  return isoExponent(currency) ?? 2;
}

export function money(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '—';
  const d = decimalsOf(currency);
  // From the integer's digits, not minor / 10 ** d: no float rounding on the way.
  const digits = String(Math.abs(Math.trunc(minor))).padStart(d + 1, '0');
  const units = d === 0 ? digits : `${digits.slice(0, -d)}.${digits.slice(-d)}`;
  return `${currency} ${minor < 0 ? '-' : ''}${units}`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/:\d\dZ$/, ' UTC');
}

/** yyyyMMdd → yyyy-MM-dd */
export function day(ymd: string | null | undefined): string {
  return ymd && /^\d{8}$/.test(ymd) ? `${ymd.slice(0, 4)}-${ymd.slice(4, 6)}-${ymd.slice(6)}` : '—';
}

export const REFUND_STATUS: Record<number, string> = {
  0: 'processing by the service',
  1: 'airline processing',
  2: 'refunded',
  3: 'airline refunding',
  4: 'rejected',
  5: 'fulfilment done',
  6: 'withdrawn',
};
export const VOID_STATUS: Record<number, string> = {
  0: 'processing by the service',
  1: 'airline processing',
  2: 'voided',
  3: 'airline voiding',
  4: 'rejected',
  5: 'completed',
  6: 'withdrawn',
};
export const REASON: Record<string, string> = { '0': 'involuntary', '1': 'voluntary', '4': 'void' };
export const SLA_TEXT: Record<string, string> = {
  'confirmation-late': 'past confirmation date',
  'refund-late': 'past refund date',
  'not-submitted': 'not yet submitted',
};
