// Money: integer minor units with ISO 4217 exponents (from the maintained `currency-codes` table, not CLDR/Intl).
import { BoundedMap } from '../bounded-map.js';
import { isoExponent } from './iso-exponent.js';

export class MoneyError extends Error {}

const exponentCache = new Map<string, number>();

/** ISO 4217 exponent (number of minor-unit digits). Throws MoneyError for codes ISO 4217 does not list. */
export function exponentOf(currency: string): number {
  const cached = exponentCache.get(currency);
  if (cached !== undefined) return cached;
  const digits = isoExponent(currency);
  if (digits === undefined) throw new MoneyError(`unknown currency ${JSON.stringify(currency)}`);
  exponentCache.set(currency, digits);
  return digits;
}

export function isCurrency(code: string): boolean {
  try {
    exponentOf(code);
    return true;
  } catch {
    return false;
  }
}

/** Expand a JS number or decimal string to a plain decimal string (no exponent notation). */
function plainDecimal(value: number | string): string {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new MoneyError(`amount ${value} is not finite`);
    // toFixed(20) would print float noise; the shortest round-trip form is what the author wrote.
    const s = String(value);
    if (!/e/i.test(s)) return s;
    return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
  }
  const s = value.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(s)) throw new MoneyError(`amount ${JSON.stringify(value)} is not a decimal number`);
  return s;
}

/**
 * Decimal amount → integer minor units of `currency`, rounding half-up (away from zero on .5) once.
 * Works on the decimal digits, so 0.285 EUR is 29 cents, not 28 as float arithmetic would give.
 */
export function toMinor(amount: number | string, currency: string): number {
  const exp = exponentOf(currency);
  let s = plainDecimal(amount);
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  const [intPart = '0', fracPart = ''] = s.split('.');
  const padded = (fracPart + '0'.repeat(exp + 1)).slice(0, exp + 1);
  const digits = BigInt((intPart || '0') + padded.slice(0, exp));
  const roundDigit = Number(padded[exp] ?? '0');
  const magnitude = digits + (roundDigit >= 5 ? 1n : 0n);
  const result = Number(negative ? -magnitude : magnitude);
  if (!Number.isSafeInteger(result)) throw new MoneyError(`amount ${s} ${currency} is out of range`);
  return result === 0 ? 0 : result;
}

/** Whether `amount` has no more decimals than the currency allows (so toMinor does not round). */
export function isExact(amount: number | string, currency: string): boolean {
  const exp = exponentOf(currency);
  const s = plainDecimal(amount);
  const frac = s.split('.')[1] ?? '';
  return frac.replace(/0+$/, '').length <= exp;
}

/** Minor units → the JSON number callers see (12.34 for 1234 EUR cents). */
export function toAmount(minor: number, currency: string): number {
  return Number(formatMinor(minor, currency));
}

/** Minor units → fixed decimal string with the currency's exponent ("12.30"). */
export function formatMinor(minor: number, currency: string): string {
  const exp = exponentOf(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exp + 1, '0');
  const whole = exp === 0 ? digits : digits.slice(0, -exp);
  const frac = exp === 0 ? '' : '.' + digits.slice(-exp);
  return (negative ? '-' : '') + whole + frac;
}

export interface Money {
  currency: string;
  minor: number;
}

/**
 * parseMoney's readings by text. A reading is a pure function of the text, and the same few texts come back on
 * every refund quote and submission: the client's service fee setting and each airline rule's amounts (a regular
 * expression, a split and a BigInt each time, ~3 % of a quote's server thread, 2026-11-30). Bounded: cleared when
 * full. A text that fails to parse is not kept (it throws again).
 */
const readings = new BoundedMap<string, Money>(1024);

/** Parse the spec's amount strings ("EUR 12.34", also "12.34 EUR"); more decimals than ISO allows round half-up. */
export function parseMoney(text: string): Money {
  const money = readings.getOrMake(text, readMoney);
  // a copy: a caller may change what it is given
  return { currency: money.currency, minor: money.minor };
}

function readMoney(text: string): Money {
  const { currency, amount } = splitMoneyText(text);
  return { currency, minor: toMinor(amount, currency) };
}

/** "EUR 12.34" or "12.34 EUR" → its currency and its amount as written. */
function splitMoneyText(text: string): { currency: string; amount: string } {
  const t = text.trim();
  const lead = /^([A-Z]{3})\s*([+-]?[\d.]+)$/.exec(t);
  const trail = lead ? null : /^([+-]?[\d.]+)\s*([A-Z]{3})$/.exec(t);
  const currency = lead?.[1] ?? trail?.[2];
  const amount = lead?.[2] ?? trail?.[1];
  if (!currency || !amount) throw new MoneyError(`amount ${JSON.stringify(text)} is not shaped like "EUR 12.34"`);
  return { currency, amount };
}

/**
 * Whether a money text ("EUR 12.34") has no more decimals than its currency allows (parseMoney rounds the rest
 * half-up). Throws MoneyError for a text that is not money at all, as parseMoney does.
 */
export function isExactMoneyText(text: string): boolean {
  const { currency, amount } = splitMoneyText(text);
  toMinor(amount, currency); // an unknown currency or a malformed number refuses as parseMoney would
  return isExact(amount, currency);
}

export function formatMoney(money: Money): string {
  return `${money.currency} ${formatMinor(money.minor, money.currency)}`;
}
