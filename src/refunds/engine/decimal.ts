// Exact decimal arithmetic for the two places the engine multiplies money (percent penalty, currency
// conversion): BigInt numerators, one half-up rounding at the end, never a float in between.

/** value = units / 10^scale */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** Reads a decimal string or a finite JS number (its shortest round-trip form); null when it is not one. */
export function parseDecimal(value: number | string): Decimal | null {
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  const text = (typeof value === 'number' ? String(value) : value).trim();
  const m = DECIMAL.exec(text);
  if (!m) return null;
  const [, sign = '', intPart = '', fracPart = '', expPart = '0'] = m;
  if (intPart === '' && fracPart === '') return null;
  const exp = Number(expPart);
  let units = BigInt((intPart || '0') + fracPart);
  let scale = fracPart.length - exp;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: sign === '-' ? -units : units, scale };
}

export function pow10(n: number): bigint {
  return 10n ** BigInt(n);
}

/** num / den rounded half-up (ties away from zero, as money.ts does); den must be positive. */
export function divHalfUp(num: bigint, den: bigint): bigint {
  if (den <= 0n) throw new RangeError('divHalfUp: denominator must be positive');
  const q = num / den;
  const r = num % den;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice >= den) return num < 0n ? q - 1n : q + 1n;
  return q;
}

/** BigInt → safe JS integer, or throws RangeError. */
export function toSafeNumber(value: bigint): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`amount ${value.toString()} is out of range`);
  return n === 0 ? 0 : n;
}
