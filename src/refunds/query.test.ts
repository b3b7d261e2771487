// queryRefundOrders.do's voucher dates (spec 2.6: voucherEndDate "string yyyyMMdd, Expiry date"; decision 0010:
// one year after the voucher's start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { voucherEndDate } from './query.js';

test('a voucher ends one year after it starts, and always on a real date', () => {
  assert.equal(voucherEndDate('20261130'), '20271130');
  assert.equal(voucherEndDate('20271231'), '20281231');
  // 29 February has no twin a year later: the year's last day of February (found by a review: 20290229 before)
  assert.equal(voucherEndDate('20280229'), '20290228');
  assert.equal(voucherEndDate('20280228'), '20290228');
});
