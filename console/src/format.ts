// Display helpers: money from minor units (the currency's own decimals), times, status names.
const digits = new Map<string, number>();
function decimalsOf(currency: string): number {
  let d = digits.get(currency);
  if (d === undefined) {
    try {
      d = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      d = 2;
    }
    digits.set(currency, d);
  }
  return d;
}

export function money(minor: number | null | undefined, currency: string): string {
  if (minor === null || minor === undefined) return '—';
  const d = decimalsOf(currency);
  return `${currency} ${(minor / 10 ** d).toFixed(d)}`;
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
