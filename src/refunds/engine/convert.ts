// Rule amounts ("USD 12.345") and ancillary prices → minor units of the quote currency, converting at most once.
import { MoneyError, exponentOf, formatMinor, parseMoney } from '../../money/money.js';
import { divHalfUp, parseDecimal, pow10, toSafeNumber, type Decimal } from './decimal.js';
import type { Rates } from './types.js';

/** A failed conversion says whether it failed for want of a rate (`noRate`), or for a bad amount. */
export type Conversion = { ok: true; minor: number; note: string } | { ok: false; why: string; noRate?: true };

/** Direct rate FROM->TO, or null when none is configured or it is not a positive decimal. */
export function lookupRate(rates: Rates, from: string, to: string): Decimal | null {
  const key = `${from}->${to}`;
  const raw = typeof rates === 'function' ? rates(from, to) : Object.hasOwn(rates, key) ? rates[key] : undefined;
  if (raw === undefined || raw === null) return null;
  const rate = parseDecimal(raw);
  return rate && rate.units > 0n ? rate : null;
}

/** amount (a decimal in `from`) × rate, rounded half-up once straight to `to`'s minor unit. */
function convertDecimal(amount: Decimal, from: string, to: string, rates: Rates): Conversion {
  const rate = lookupRate(rates, from, to);
  if (!rate) return { ok: false, why: `no usable rate ${from}->${to}`, noRate: true };
  const num = amount.units * rate.units * pow10(exponentOf(to));
  const den = pow10(amount.scale + rate.scale);
  const exact = divHalfUp(num, den);
  if (exact > BigInt(Number.MAX_SAFE_INTEGER) || exact < BigInt(Number.MIN_SAFE_INTEGER)) {
    return { ok: false, why: `${from} → ${to} conversion is out of range` };
  }
  const minor = toSafeNumber(exact);
  const rateText = formatDecimal(rate);
  return { ok: true, minor, note: `${from} ${formatDecimal(amount)} × ${rateText} = ${to} ${formatMinor(minor, to)}` };
}

function formatDecimal(d: Decimal): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, '0');
  const whole = d.scale === 0 ? digits : digits.slice(0, -d.scale);
  const frac = d.scale === 0 ? '' : '.' + digits.slice(-d.scale);
  return (negative ? '-' : '') + whole + frac;
}

/**
 * A rule's "CUR 12.34" string in the quote currency. Same currency: parseMoney (half-up to the exponent).
 * Other currency: the exact written decimal is converted, rounding once (edge cases: "converts once,
 * rounding half-up straight to the ticket currency's minor unit"), so "USD 10.005" is not first rounded to cents.
 */
export function ruleAmountIn(text: string, target: string, rates: Rates): Conversion {
  let currency: string;
  let sameCurrencyMinor: number;
  try {
    const parsed = parseMoney(text);
    currency = parsed.currency;
    sameCurrencyMinor = parsed.minor;
  } catch (e) {
    if (e instanceof MoneyError || e instanceof RangeError) return { ok: false, why: `amount ${JSON.stringify(text)} is unreadable: ${e.message}` };
    throw e;
  }
  if (sameCurrencyMinor < 0) return { ok: false, why: `amount ${JSON.stringify(text)} is negative` };
  if (currency === target) return { ok: true, minor: sameCurrencyMinor, note: `${target} ${formatMinor(sameCurrencyMinor, target)}` };
  const decimal = parseDecimal(text.trim().replace(currency, '').trim());
  if (!decimal) return { ok: false, why: `amount ${JSON.stringify(text)} is unreadable` };
  return convertDecimal(decimal, currency, target, rates);
}

/** minor units of `from` → minor units of `to` (identity when equal). */
export function convertMinor(minor: number, from: string, to: string, rates: Rates): Conversion {
  if (from === to) return { ok: true, minor, note: `${to} ${formatMinor(minor, to)}` };
  return convertDecimal({ units: BigInt(minor), scale: exponentOf(from) }, from, to, rates);
}
