// The console's money display (console/src/format.ts) reads stored minor units with the server's ISO 4217
// exponents (src/money/money.ts), not the browser's Intl table, which disagrees for IDR, HUF, IQD and others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { money } from '../console/src/format.js';
import { approveConfirmation, estimateText } from '../console/src/case-estimate.js';
import { adoptSandboxTime, onSandboxTime, sandboxNow } from '../console/src/sandbox-time.js';
import { exponentOf, toMinor } from '../src/money/money.js';
import cc from 'currency-codes';
import { isoExponentsModule } from '../console/iso-exponents-plugin.js';

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

test("a console case's estimate and its Approve confirmation name the amount in its currency's decimals, say it is priced again, warn that a deposit refund cannot be withdrawn, and say why when there is none (a review: Approve named no amount)", () => {
  const e = { currency: 'KWD', refundMinor: 123456, quoteType: 'AccurateQuote' as const, refundMethod: 'Original', postRefunds: [], serviceFee: { currency: 'KWD', minor: 0 }, path: 'deposit' as const, pricedAt: '2026-01-01T00:00:00.000Z' };
  assert.equal(estimateText(e), 'KWD 123.456, service fee KWD 0.000 (Original)');
  assert.equal(approveConfirmation(e), 'Create a refund of an estimated KWD 123.456, service fee KWD 0.000 (Original) and submit it to the airline? The amount is priced again at approval. Paid by deposit: the refund cannot be withdrawn once created.');
  const card = Object.assign({}, e, { currency: 'IDR', path: 'card' as const, postRefunds: [{ currency: 'EUR', minor: 500 }], serviceFee: { currency: 'EUR', minor: 250 } });
  assert.equal(approveConfirmation(card), 'Create a refund of an estimated IDR 1234.56 + post-ticketing EUR 5.00, service fee EUR 2.50 (Original) and submit it to the airline? The amount is priced again at approval.');
  assert.match(estimateText(Object.assign({}, e, { quoteType: 'CannotQuote' as const, refundMinor: 0 })), /^an amount the airline decides/);
  const why = { unavailable: 'the refund cannot be created: refund already submitted for this passenger; query status (code 803)' };
  assert.equal(estimateText(why), `no estimate: ${why.unavailable}`);
  assert.match(approveConfirmation(why), /^No estimate: the refund cannot be created: .*\(code 803\)\. Create the refund and submit it to the airline anyway\?/);
});

test("the header's sandbox time runs on from its last read, and a read after a move replaces it (a review: the time the session was loaded with, for good)", () => {
  const seen: number[] = [];
  const stop = onSandboxTime(() => seen.push(1));
  const browser = Date.parse('2026-03-01T10:00:00.000Z');
  adoptSandboxTime('2026-05-01T08:00:00.000Z', browser);
  assert.equal(sandboxNow(browser), '2026-05-01T08:00:00.000Z');
  assert.equal(sandboxNow(browser + 90_000), '2026-05-01T08:01:30.000Z', 'ticks with the browser clock');
  // the panel moved it a day forward, read 5 min later
  adoptSandboxTime('2026-05-02T08:05:00.000Z', browser + 300_000);
  assert.equal(sandboxNow(browser + 360_000), '2026-05-02T08:06:00.000Z');
  adoptSandboxTime('not a time', browser);
  assert.equal(sandboxNow(browser + 360_000), '2026-05-02T08:06:00.000Z', 'an unreadable time changes nothing');
  assert.equal(seen.length, 2, 'the header is told of each read');
  stop();
});

test("the console bundle's currency-codes (console/iso-exponents-plugin.ts) answers every code's exponent as the package does, and nothing else", async () => {
  const served = (await import(`data:text/javascript,${encodeURIComponent(isoExponentsModule())}`)) as { default: { code(c: string): { digits: number } | undefined } };
  assert.ok(cc.data.length > 150);
  for (const c of cc.data) assert.deepEqual(served.default.code(c.code), { digits: cc.code(c.code)!.digits }, c.code);
  for (const c of ['XYZ', 'eur', 'constructor', '__proto__', '']) assert.equal(served.default.code(c), undefined, c);
});
