// The console's one use of `currency-codes` (src/money/iso-exponent.ts: `cc.code(code)?.digits`) served from the ISO
// 4217 exponents alone, taken from the same package when the bundle is built (console/vite.config.ts): its whole table
// (names, countries) took 17 KB of the entry script's 59 (18.4 KB of brotli → 14.5), loaded before any page shows.
// The server and the tests import the package itself; test/console-format.test.ts holds this module to its answers.
import cc from 'currency-codes';
import type { Plugin } from 'vite';

/** The id the bundle's `currency-codes` resolves to. */
export const ISO_EXPONENTS_ID = '\0postbook-iso-exponents';

/** The module served for `currency-codes`: `code(code)` answers `{ digits }` for a code of the table, else undefined. */
export function isoExponentsModule(): string {
  const digits = Object.fromEntries(cc.data.map((c) => [c.code, c.digits]));
  return `const DIGITS = ${JSON.stringify(digits)};
export default { code: (code) => (Object.prototype.hasOwnProperty.call(DIGITS, code) ? { digits: DIGITS[code] } : undefined) };
`;
}

export function isoExponentsOnly(): Plugin {
  return {
    name: 'postbook-iso-exponents',
    enforce: 'pre',
    apply: 'build',
    resolveId(source) {
      return source === 'currency-codes' ? ISO_EXPONENTS_ID : null;
    },
    load(id) {
      return id === ISO_EXPONENTS_ID ? isoExponentsModule() : null;
    },
  };
}
