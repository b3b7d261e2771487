import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exponentOf, toMinor, toAmount, formatMinor, parseMoney, isExact, MoneyError } from './money.js';

test('ISO 4217 exponents, not CLDR ones', () => {
  assert.equal(exponentOf('EUR'), 2);
  assert.equal(exponentOf('JPY'), 0);
  assert.equal(exponentOf('KWD'), 3);
  assert.equal(exponentOf('COP'), 2); // Intl says 0; ISO says 2
  assert.equal(exponentOf('IDR'), 2);
  assert.throws(() => exponentOf('XYZ'), MoneyError);
  assert.throws(() => exponentOf('eur'), MoneyError);
});

test('toMinor rounds half-up on decimal digits', () => {
  assert.equal(toMinor(12.34, 'EUR'), 1234);
  assert.equal(toMinor('0.285', 'EUR'), 29);
  assert.equal(toMinor(0.285, 'EUR'), 29);
  assert.equal(toMinor(1.005, 'USD'), 101);
  assert.equal(toMinor('1.004', 'USD'), 100);
  assert.equal(toMinor(1500.5, 'JPY'), 1501);
  assert.equal(toMinor('1.2345', 'KWD'), 1235);
  assert.equal(toMinor(-2.5, 'JPY'), -3);
  assert.equal(toMinor(1e-7, 'EUR'), 0);
  assert.throws(() => toMinor('abc', 'EUR'), MoneyError);
});

test('format and back', () => {
  assert.equal(formatMinor(1234, 'EUR'), '12.34');
  assert.equal(formatMinor(5, 'EUR'), '0.05');
  assert.equal(formatMinor(-5, 'EUR'), '-0.05');
  assert.equal(formatMinor(1501, 'JPY'), '1501');
  assert.equal(formatMinor(1235, 'KWD'), '1.235');
  assert.equal(toAmount(1230, 'EUR'), 12.3);
  assert.equal(isExact(12.3, 'EUR'), true);
  assert.equal(isExact(12.345, 'EUR'), false);
  assert.equal(isExact(12, 'JPY'), true);
});

test('parseMoney reads the spec amount strings', () => {
  assert.deepEqual(parseMoney('EUR 12.34'), { currency: 'EUR', minor: 1234 });
  assert.deepEqual(parseMoney('12.345 EUR'), { currency: 'EUR', minor: 1235 });
  assert.deepEqual(parseMoney('JPY 3000'), { currency: 'JPY', minor: 3000 });
  assert.throws(() => parseMoney('12 euros'), MoneyError);
});

test('parseMoney: a reading kept for its text is the same again, and a caller changing its copy changes no later one', () => {
  const first = parseMoney('EUR 7.05');
  first.minor = 1;
  first.currency = 'USD';
  assert.deepEqual(parseMoney('EUR 7.05'), { currency: 'EUR', minor: 705 });
  // a refused text is refused every time (nothing is kept for it)
  assert.throws(() => parseMoney('7.05 euros'), MoneyError);
  assert.throws(() => parseMoney('7.05 euros'), MoneyError);
});
