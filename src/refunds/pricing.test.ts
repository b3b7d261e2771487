// pricedQuoteJson: a quote's stored document, its airline rules written from their kept JSON.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deepFreeze } from '../deep-freeze.js';
import { pricedQuoteJson, type PricedQuote } from './pricing.js';

function quote(refundRules: PricedQuote['refundRules']): PricedQuote {
  return {
    orderNo: '4229719024615452',
    reason: '1',
    quoteType: 'AccurateQuote',
    refundMethod: 'CashBackToOriginalPayment',
    isRefundable: true,
    fastConfirmation: 0,
    expectedConfirmationDate: '20261206',
    expectedRefundDate: '20261213',
    currency: 'EUR',
    tickets: [{ ticketNo: '999-2000000001', paxIndex: 1, lastName: 'MÜLLER-ŁĄCKA 王🙂', firstName: 'A "B" \\ C', paidMinor: 25270, refundMinor: 20270 }],
    fare: { originalMinor: 25270, refundMinor: 20270 },
    post: [],
    vouchers: null,
    serviceFee: { currency: 'EUR', minor: 500 },
    refundRules,
  };
}

const frozen = deepFreeze([
  { airline: 'XS', ruleType: '0', taxRefundable: true, fareRefundable: true, refundableAncillaries: ['StandardCheckInBaggage'], refundMethod: 'CashBackToOriginalPayment' },
  { airline: 'XS', ruleType: '1', passengerType: 'ADT', penaltyAmount: 'EUR 50.00', startMinute: 525600, endMinute: 1440 },
] as const) as unknown as PricedQuote['refundRules'];

describe('pricedQuoteJson', () => {
  test("is JSON.stringify's text, for frozen rules (kept) and rules that are not (written each time)", () => {
    const open = { airline: 'XS', ruleType: '4' as const, fareRefundable: false, penaltyPercent: 50 };
    for (const rules of [[...frozen], [], [open], [frozen[1]!, open, frozen[0]!]]) {
      const q = quote(rules);
      assert.equal(pricedQuoteJson(q), JSON.stringify(q));
      assert.equal(pricedQuoteJson(q), JSON.stringify(q), 'again, from the kept JSON');
    }
    // a rule that is not frozen is not kept: a change shows in the next document
    const q = quote([open]);
    pricedQuoteJson(q);
    open.penaltyPercent = 25;
    assert.equal(pricedQuoteJson(q), JSON.stringify(q));
  });

  test('a document without rules (or with nothing but rules) is still the JSON of the quote', () => {
    const bare = { orderNo: 'X', note: 'é' } as unknown as PricedQuote;
    assert.equal(pricedQuoteJson(bare), JSON.stringify(bare));
    const onlyRules = { refundRules: frozen } as unknown as PricedQuote;
    assert.deepEqual(JSON.parse(pricedQuoteJson(onlyRules)), JSON.parse(JSON.stringify(onlyRules)));
  });

  test('rules not last in the object: the same document, the rules written last', () => {
    const { refundRules, ...rest } = quote([...frozen]);
    const q: PricedQuote = { refundRules, ...rest };
    assert.deepEqual(JSON.parse(pricedQuoteJson(q)), JSON.parse(JSON.stringify(q)));
  });
});
