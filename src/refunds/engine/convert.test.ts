// Rule amounts and prices in the quote currency: docs/architecture.md "Refund arithmetic" step 5 and edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { convertMinor, lookupRate, ruleAmountIn } from './convert.js';
import { divHalfUp, parseDecimal } from './decimal.js';

void test('parseDecimal reads decimal strings and JS numbers exactly', () => {
  const table: [input: number | string, expected: { units: bigint; scale: number } | null][] = [
    ['12.34', { units: 1234n, scale: 2 }],
    ['0.92', { units: 92n, scale: 2 }],
    [' 7 ', { units: 7n, scale: 0 }],
    ['.5', { units: 5n, scale: 1 }],
    ['-1.25', { units: -125n, scale: 2 }],
    [12.5, { units: 125n, scale: 1 }],
    [0.1, { units: 1n, scale: 1 }],
    [1e-7, { units: 1n, scale: 7 }],
    [1e21, { units: 10n ** 21n, scale: 0 }],
    ['', null],
    ['.', null],
    ['1.2.3', null],
    ['abc', null],
    [NaN, null],
    [Infinity, null],
  ];
  for (const [input, expected] of table) assert.deepEqual(parseDecimal(input), expected, String(input));
});

void test('divHalfUp rounds ties away from zero, like money.ts', () => {
  const table: [bigint, bigint, bigint][] = [
    [5n, 2n, 3n],
    [4n, 2n, 2n],
    [7n, 4n, 2n], // 1.75
    [5n, 4n, 1n], // 1.25
    [-5n, 2n, -3n],
    [-7n, 4n, -2n],
    [0n, 3n, 0n],
  ];
  for (const [num, den, expected] of table) assert.equal(divHalfUp(num, den), expected, `${num}/${den}`);
  assert.throws(() => divHalfUp(1n, 0n), RangeError);
});

// edge case: a rule amount in another currency converts once, rounding half-up straight to the target unit.
void test('ruleAmountIn: same currency via parseMoney, other currency through the rate', () => {
  const rates = { 'USD->EUR': '0.92', 'EUR->KWD': '0.3333', 'KWD->JPY': '480.5' };
  const table: [text: string, target: string, minor: number | null][] = [
    ['EUR 12.34', 'EUR', 1234],
    ['12.34 EUR', 'EUR', 1234],
    ['EUR 0.285', 'EUR', 29],
    ['JPY 1500.5', 'JPY', 1501],
    ['USD 100', 'EUR', 9200],
    ['USD 0.005', 'EUR', 0], // 0.0046 → 0.00
    ['USD 0.006', 'EUR', 1], // 0.00552 → 0.01
    ['EUR 1.00', 'KWD', 333], // 0.3333 → 0.333
    ['EUR 1.5', 'KWD', 500], // 0.49995 → 0.500
    ['KWD 1.001', 'JPY', 481], // 480.9805 → 481
    ['USD 1', 'JPY', null], // no rate
    ['EUR 1', 'USD', null], // the inverse is not derived
    ['EUR -1', 'EUR', null],
    ['EURO 1', 'EUR', null],
    ['', 'EUR', null],
  ];
  for (const [text, target, minor] of table) {
    const got = ruleAmountIn(text, target, rates);
    assert.deepEqual(got.ok ? got.minor : null, minor, `${text} → ${target}${got.ok ? '' : `: ${got.why}`}`);
  }
});

void test('convertMinor is the identity in one currency and converts minor units otherwise', () => {
  assert.deepEqual(convertMinor(1234, 'EUR', 'EUR', {}).ok, true);
  const c = convertMinor(1234, 'EUR', 'JPY', { 'EUR->JPY': '160.5' });
  assert.ok(c.ok && c.minor === 1981); // 12.34 × 160.5 = 1980.57
  const k = convertMinor(1, 'KWD', 'EUR', { 'KWD->EUR': '3.05' });
  assert.ok(k.ok && k.minor === 0); // 0.001 × 3.05 = 0.00305
  assert.equal(convertMinor(1, 'KWD', 'EUR', {}).ok, false);
});

void test('lookupRate: own keys only, positive decimals only, function form allowed', () => {
  assert.equal(lookupRate({}, 'toString', 'x'), null);
  assert.equal(lookupRate(Object.create({ 'USD->EUR': '0.9' }) as Record<string, string>, 'USD', 'EUR'), null);
  assert.equal(lookupRate({ 'USD->EUR': '0' }, 'USD', 'EUR'), null);
  assert.equal(lookupRate({ 'USD->EUR': '-0.9' }, 'USD', 'EUR'), null);
  assert.deepEqual(lookupRate({ 'USD->EUR': 0.9 }, 'USD', 'EUR'), { units: 9n, scale: 1 });
  assert.deepEqual(lookupRate(() => '1.1', 'USD', 'EUR'), { units: 11n, scale: 1 });
  assert.equal(lookupRate(() => null, 'USD', 'EUR'), null);
});
