// The sandbox airline's own choice of refund rule (refund-rules.ts), by table: it must read the rules as they
// are published without borrowing postbook's engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleTheAirlineApplies, type RuleQuery } from './refund-rules.js';
import type { WorldRefundRule } from './world-schema.js';

const now = new Date('2026-03-01T00:00:00Z');
// 2026-03-11 10:00 in Tokyo (+09:00) = 2026-03-11T01:00Z: 14,460 minutes after `now`.
const q = (over: Partial<RuleQuery> = {}): RuleQuery => ({ passengerType: 'ADT', depLocal: '2026-03-11 10:00', depTimeZone: 'Asia/Tokyo', reason: '1', now, ...over });
const r = (over: Partial<WorldRefundRule>): WorldRefundRule => ({ ruleType: '1', fareRefundable: true, ...over });

const cases: Array<{ name: string; rules: WorldRefundRule[]; query?: Partial<RuleQuery>; expect: number | null }> = [
  { name: 'no rule of the reason → none', rules: [r({ ruleType: '0' })], expect: null },
  { name: 'the window (end, start] in minutes before departure', rules: [r({ startMinute: 14_000 }), r({ startMinute: 14_460, endMinute: 14_459 })], expect: 1 },
  { name: 'a window whose end is not below its start holds nothing', rules: [r({ startMinute: 10, endMinute: 20_000 })], expect: null },
  { name: 'a rule of the passenger type before a generic one', rules: [r({}), r({ passengerType: 'ADT' })], expect: 1 },
  { name: 'another passenger type is no candidate', rules: [r({ passengerType: 'CHD' })], expect: null },
  { name: 'the narrower window first', rules: [r({ startMinute: 100_000 }), r({ startMinute: 20_000, endMinute: 0 })], expect: 1 },
  { name: 'two open windows tie: list order', rules: [r({ refundMethod: 'Voucher' }), r({})], expect: 0 },
  { name: 'voluntary refunding neither fare nor tax: a tax-refund rule decides', rules: [r({ fareRefundable: false }), r({ ruleType: '2', taxRefundable: true })], expect: 1 },
  { name: 'no tax-refund rule: the voluntary rule stands', rules: [r({ fareRefundable: false })], expect: 0 },
  { name: 'after departure, a window with negative bounds', rules: [r({ startMinute: 0 }), r({ startMinute: 20_000, endMinute: 0 })], query: { depLocal: '2026-02-28 10:00' }, expect: 0 },
];

for (const c of cases) {
  void test(`sandbox airline rule: ${c.name}`, () => {
    const chosen = ruleTheAirlineApplies(c.rules, q(c.query));
    assert.equal(chosen === null ? null : c.rules.indexOf(chosen), c.expect);
  });
}

// DESIGN "Edge cases": a local time that occurs twice is the earlier instant (a review: luxon's later reading made the
// airline pay cash back where the quote said voucher). 2024-10-27 02:30 in Berlin is 00:30Z (summer) or 01:30Z.
void test('sandbox airline rule: a departure in the hour the clocks go back is read at its earlier instant', () => {
  const rules = [r({ startMinute: 1440, endMinute: 0, refundMethod: 'Voucher' }), r({ endMinute: 1440 })];
  const at = (now: string) => ruleTheAirlineApplies(rules, q({ depLocal: '2024-10-27 02:30', depTimeZone: 'Europe/Berlin', now: new Date(now) }));
  // 00:45Z the day before: 1,425 minutes before 00:30Z (the later reading would be 1,485)
  assert.equal(at('2024-10-26T00:45:00Z'), rules[0]);
  assert.equal(at('2024-10-26T00:29:00Z'), rules[1], '1,441 minutes before the earlier reading');
  // spring gap: 2024-03-31 02:30 does not exist in Berlin; read with the offset before (+01:00) = 01:30Z
  const gap = ruleTheAirlineApplies(rules, q({ depLocal: '2024-03-31 02:30', depTimeZone: 'Europe/Berlin', now: new Date('2024-03-30T01:30:00Z') }));
  assert.equal(gap, rules[0], 'exactly 1,440 minutes before 01:30Z');
});
