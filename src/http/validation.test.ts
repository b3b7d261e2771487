// The check every request value passes after its schema (decision 0003, "Values the store cannot hold"): what it
// refuses, where it says the value is (the JSON pointer a schema error would give), and what it lets through.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findUnsafeValue, MAX_WIRE_DEPTH, MAX_WIRE_NUMBER } from './validation.js';

test('plain values, non-ASCII text and paired surrogates pass', () => {
  const body = { orderNo: 'H1234', n: 12, ok: true, none: null, name: 'Zoë 中文 🛫', list: [{ a: 'x' }, 2, 'y'], nested: { deeper: { x: -3.5 } } };
  assert.equal(findUnsafeValue(body), null);
  assert.equal(findUnsafeValue('just a string'), null);
  assert.equal(findUnsafeValue(MAX_WIRE_NUMBER), null);
});

test('a control character, a C1 control or an unpaired surrogate is refused at its path', () => {
  assert.deepEqual(findUnsafeValue({ a: { b: ['ok', 'x\u0000y'] } }), { instancePath: '/a/b/1', message: 'must not contain control characters' });
  assert.deepEqual(findUnsafeValue({ tab: 'a\tb' }), { instancePath: '/tab', message: 'must not contain control characters' });
  assert.deepEqual(findUnsafeValue({ c1: 'a\u0085' }), { instancePath: '/c1', message: 'must not contain control characters' });
  assert.deepEqual(findUnsafeValue({ s: 'a\ud800' }), { instancePath: '/s', message: 'must be valid Unicode (an unpaired surrogate)' });
  assert.deepEqual(findUnsafeValue({ s: '\udc00b' }), { instancePath: '/s', message: 'must be valid Unicode (an unpaired surrogate)' });
  assert.deepEqual(findUnsafeValue('x\u007f'), { instancePath: '', message: 'must not contain control characters' });
});

test('the first problem in document order is the one reported', () => {
  assert.equal(findUnsafeValue({ first: 'a\u0001', second: 'b\u0002' })?.instancePath, '/first');
  assert.equal(findUnsafeValue([['ok'], ['x', 'y\u0000'], 'z\u0000'])?.instancePath, '/1/1');
});

test('numbers outside the store\'s integer range and non-finite numbers are refused', () => {
  const message = `must be a number between -${MAX_WIRE_NUMBER} and ${MAX_WIRE_NUMBER}`;
  assert.deepEqual(findUnsafeValue({ list: [1, { amount: MAX_WIRE_NUMBER + 1 }] }), { instancePath: '/list/1/amount', message });
  assert.deepEqual(findUnsafeValue({ amount: -MAX_WIRE_NUMBER - 1 }), { instancePath: '/amount', message });
  assert.deepEqual(findUnsafeValue({ amount: Number.NaN }), { instancePath: '/amount', message });
});

test('a property name with a control character is refused at its object; an odd name shows as (property)', () => {
  assert.deepEqual(findUnsafeValue({ outer: { 'bad\u0000name': 1 } }), { instancePath: '/outer', message: 'has a property name with control characters or an unpaired surrogate' });
  assert.deepEqual(findUnsafeValue({ 'two words': { x: 'a\u0000' } }), { instancePath: '/(property)/x', message: 'must not contain control characters' });
});

test('values nested deeper than any request needs are refused, iteratively', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < MAX_WIRE_DEPTH + 1; i++) deep = { d: deep };
  const problem = findUnsafeValue(deep);
  assert.equal(problem?.message, 'is nested too deeply');
  assert.equal(problem?.instancePath, '/d'.repeat(MAX_WIRE_DEPTH));
  let huge: unknown = 0;
  for (let i = 0; i < 100_000; i++) huge = [huge];
  assert.equal(findUnsafeValue(huge)?.message, 'is nested too deeply');
});
