// A seat's productCode (docs/seats.md): what the seat map hands out, order.do reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSeatProductCode, seatProductCode } from './seat-product-code.js';

test('every price a seat map gives reads back from its code (a review: IDR 10,000,000.00, 10 digits, was refused 309)', () => {
  for (const priceMinor of [0, 1, 2500, 999_999_999, 1_000_000_000, 123_456_789_012, Number.MAX_SAFE_INTEGER]) {
    const code = seatProductCode('17A', 'XS', 'HND', 'SGN', priceMinor, 'abcdEFGH12');
    assert.deepEqual(parseSeatProductCode(code), { seat: '17A', carrier: 'XS', dep: 'HND', arr: 'SGN', priceMinor, binding: 'abcdEFGH12' }, code);
  }
  for (const bad of ['SCI_SEAT_17A_XS_HND_SGN_P01_abcdEFGH12', 'SCI_SEAT_17A_XS_HND_SGN_P99999999999999999_abcdEFGH12', 'SCI_SEAT_17A_XS_HND_SGN_P-1_abcdEFGH12']) {
    assert.equal(parseSeatProductCode(bad), null, bad);
  }
  assert.equal(parseSeatProductCode('SCI_SEAT_17A_XS_HND_SGN_abcdEFGH12')?.priceMinor, null, 'a code without a price (older maps)');
});
