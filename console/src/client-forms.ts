// The clients page's form values read into what the API takes (console/src/pages/Clients.tsx), kept apart from
// the page so a test reads them without a browser (test/console-client-forms.test.ts). An empty field means
// "none" (null: the setting is removed); anything else must be a number the API accepts, or the form shows
// why and sends nothing: Number('14 h') is NaN, which JSON sends as null, and null removes the setting.
import type { EditableSettings } from '../../src/console/clients.ts';

export const SETTINGS_FIELDS: Array<{ key: string; label: string; hint: string }> = [
  { key: 'refundServiceFee', label: 'Refund service fee per passenger', hint: 'e.g. EUR 5.00; empty: none' },
  { key: 'minMinutesBeforeDeparture', label: 'Voluntary refunds need minutes before departure', hint: 'empty: no criterion (840)' },
  { key: 'ancillaryPerMinute', label: 'Ancillary pool per minute', hint: 'empty: the default' },
  { key: 'verifyPerMinute', label: 'Verify pool per minute', hint: 'empty: the default' },
  { key: 'pnrPerMinute', label: 'PNR pool per minute', hint: 'empty: PNR_RATE_PER_MINUTE' },
  { key: 'searchPerSecond', label: 'Search pool per second', hint: 'empty: the default (10)' },
  { key: 'maxRatio', label: 'Look-to-book: max seat requests per paid order', hint: 'empty: no check (223)' },
  { key: 'minRequests', label: 'Look-to-book: checked after requests', hint: 'with the ratio' },
];

const labelOf = (key: string) => SETTINGS_FIELDS.find((f) => f.key === key)?.label ?? key;

class FieldError extends Error {}

/** A whole number min..max, or null for an empty field; a FieldError naming the field otherwise. */
function whole(values: Record<string, string>, key: string, min: number, max: number): number | null {
  const text = (values[key] ?? '').trim();
  if (text === '') return null;
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new FieldError(`${labelOf(key)}: a whole number from ${min} to ${max}, or empty (not "${text}")`);
  return n;
}

/** A decimal number min..max, or null for an empty field. */
function decimal(values: Record<string, string>, key: string, min: number, max: number): number | null {
  const text = (values[key] ?? '').trim();
  if (text === '') return null;
  const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(n) || n < min || n > max) throw new FieldError(`${labelOf(key)}: a number from ${min} to ${max}, or empty (not "${text}")`);
  return n;
}

/** The settings form's fields → the API's body, or the first field's error (nothing is to be sent then). */
export function settingsEdit(values: Record<string, string>): { body: EditableSettings; error: null } | { body: null; error: string } {
  try {
    const fee = (values.refundServiceFee ?? '').trim();
    const maxRatio = decimal(values, 'maxRatio', 1, 1_000_000);
    const minRequests = whole(values, 'minRequests', 0, 1_000_000_000);
    if (maxRatio === null && minRequests !== null) throw new FieldError(`${labelOf('minRequests')}: give the max ratio too, or leave both empty`);
    return {
      body: {
        refundServiceFee: fee === '' ? null : fee,
        minMinutesBeforeDeparture: whole(values, 'minMinutesBeforeDeparture', 0, 525_600),
        ancillaryPerMinute: whole(values, 'ancillaryPerMinute', 1, 1_000_000),
        verifyPerMinute: whole(values, 'verifyPerMinute', 1, 1_000_000),
        pnrPerMinute: whole(values, 'pnrPerMinute', 1, 1_000_000),
        searchPerSecond: whole(values, 'searchPerSecond', 1, 1_000_000),
        lookToBook: maxRatio === null ? null : { maxRatio, minRequests: minRequests ?? 0 },
      },
      error: null,
    };
  } catch (err) {
    if (err instanceof FieldError) return { body: null, error: err.message };
    throw err;
  }
}

/** Grace hours the rotate API accepts (MAX_GRACE_HOURS of src/clients/clients.ts, which the bundle does not take). */
export const MAX_GRACE_HOURS = 720;

/**
 * The rotate form's grace field → hours, or why the rotation cannot be asked. Empty is an error, not 0:
 * Number('') is 0, which ended the old secret at once while the confirmation said it kept working.
 */
export function graceHours(text: string): { hours: number; error: null } | { hours: null; error: string } {
  const t = text.trim();
  const n = /^\d+(\.\d+)?$/.test(t) ? Number(t) : NaN;
  if (!Number.isFinite(n) || n > MAX_GRACE_HOURS) {
    return { hours: null, error: `grace period: give the hours the old secret keeps working, 0 to ${MAX_GRACE_HOURS}${t === '' ? '' : ` (not "${t}")`}` };
  }
  return { hours: n, error: null };
}

/** The rotation's confirmation: the hours it will ask for, and a warning when they are 0. */
export function rotateConfirmation(hours: number): string {
  if (hours === 0) return 'Grace 0 hours: the old secret stops working at once; every caller still using it is refused from now on.';
  return `The old secret keeps working for ${hours} ${hours === 1 ? 'hour' : 'hours'}.`;
}
