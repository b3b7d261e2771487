// The console's money display (console/src/format.ts) reads stored minor units with the server's ISO 4217
// exponents (src/money/money.ts), not the browser's Intl table, which disagrees for IDR, HUF, IQD and others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money } from '../console/src/format.js';
import { exponentOf, toMinor } from '../src/money/money.js';

test('money() shows minor units with ISO 4217 decimals, as the server stores them', () => {
  assert.equal(money(123456, 'IDR'), 'IDR 1234.56'); // Intl: 0 decimals ("IDR 123456", 100× off)
  assert.equal(money(123456, 'IQD'), 'IQD 123.456'); // Intl: 0 decimals (1000× off)
  assert.equal(money(123456, 'HUF'), 'HUF 1234.56');
  assert.equal(money(123456, 'COP'), 'COP 1234.56');
  assert.equal(money(123456, 'JPY'), 'JPY 123456');
  assert.equal(money(123456, 'KWD'), 'KWD 123.456');
  assert.equal(money(123456, 'EUR'), 'EUR 1234.56');
  assert.equal(money(5, 'EUR'), 'EUR 0.05');
  assert.equal(money(-5, 'KWD'), 'KWD -0.005');
  assert.equal(money(0, 'JPY'), 'JPY 0');
  assert.equal(money(null, 'EUR'), '—');
});

test('money() agrees with the server for every currency where Intl and ISO 4217 differ', () => {
  for (const currency of ['IDR', 'HUF', 'PKR', 'COP', 'IQD', 'LBP', 'IRR', 'MMK', 'YER', 'RSD', 'ISK', 'CLP', 'UGX']) {
    const minor = toMinor('1234.5', currency);
    const d = exponentOf(currency);
    assert.equal(money(minor, currency), `${currency} ${d === 0 ? '1235' : `1234.5${'0'.repeat(d - 1)}`}`, currency);
  }
});
