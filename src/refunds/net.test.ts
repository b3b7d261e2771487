// The net of a refund against the client's service fee at the airline's answer (docs/architecture.md "Refund
// arithmetic" step 9), each amount converted into the refund's currency (found by a review: post-ticketing refunds
// of several currencies were added as one number of minor units, and a fee in another currency was dropped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { worldRates } from './pricing.js';
import { refundNet } from './net.js';

const rates = worldRates({ rates: { 'EUR/USD': '1.10', 'JPY/EUR': '0.00625' } });

test('same currency: refund + post-ticketing − fee', () => {
  assert.deepEqual(refundNet({ refund: { minor: 1_000, currency: 'EUR' }, post: [{ refundMinor: 500, currency: 'EUR' }], fee: { minor: 300, currency: 'EUR' }, rates }), { known: true, minor: 1_200 });
});

test('a fee in another currency is converted, not dropped: USD 1.00 refunded against an EUR 5.00 fee is below it', () => {
  const net = refundNet({ refund: { minor: 100, currency: 'USD' }, post: [], fee: { minor: 500, currency: 'EUR' }, rates });
  assert.deepEqual(net, { known: true, minor: 100 - 550 });
});

test('post-ticketing refunds in yen and euros are converted each, not added as minor units', () => {
  // EUR 1.00 refunded; a JPY 160 post-ticketing refund is EUR 1.00 (not 160 cents), less an EUR 3.00 fee
  const net = refundNet({ refund: { minor: 100, currency: 'EUR' }, post: [{ refundMinor: 160, currency: 'JPY' }], fee: { minor: 300, currency: 'EUR' }, rates });
  assert.deepEqual(net, { known: true, minor: 100 + 100 - 300 });
});

test('without a rate the net is not known (the refund is not rejected on a sum that could not be made)', () => {
  assert.deepEqual(refundNet({ refund: { minor: 100, currency: 'GBP' }, post: [], fee: { minor: 500, currency: 'EUR' }, rates }), { known: false, missing: 'EUR/GBP' });
  assert.deepEqual(refundNet({ refund: { minor: 100, currency: 'GBP' }, post: [], fee: { minor: 0, currency: 'EUR' }, rates }), { known: true, minor: 100 }, 'no fee: nothing to convert');
});
