// ISO 4217 exponents (minor-unit digits) from the maintained `currency-codes` table, not CLDR/Intl (Intl says 0
// for COP, HUF, IDR, IQD, PKR and others where ISO says 2 or 3). Shared by the server (money.ts) and the
// operator console (console/src/format.ts, bundled by Vite): the console shows stored minor units with the
// exponent the server stored them with. It imports nothing of src/ so the console bundle takes only the table.
import cc from 'currency-codes';

/** ISO 4217 exponent of an upper-case three-letter code, or undefined for a code ISO 4217 does not list. */
export function isoExponent(currency: string): number | undefined {
  return /^[A-Z]{3}$/.test(currency) ? cc.code(currency)?.digits : undefined;
}
