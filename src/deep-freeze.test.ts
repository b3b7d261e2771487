// The one deepFreeze of src/ (src/deep-freeze.ts): kept answers, airline records and refund contexts are shared by
// every request that reads them, so nothing reachable from them may change.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deepFreeze } from './deep-freeze.js';

describe('deepFreeze', () => {
  test('objects and arrays at any depth are frozen, and the value itself is returned', () => {
    const value = { a: { b: [1, { c: 'x' }] }, list: [[2]] };
    assert.equal(deepFreeze(value), value);
    assert.ok(Object.isFrozen(value) && Object.isFrozen(value.a) && Object.isFrozen(value.a.b) && Object.isFrozen(value.a.b[1]));
    assert.ok(Object.isFrozen(value.list[0]));
    assert.throws(() => {
      (value.a.b[1] as { c: string }).c = 'y';
    }, TypeError);
  });

  test('a Date reads as before but refuses every setter', () => {
    const at = new Date('2026-12-03T10:00:00Z');
    const value = deepFreeze({ at });
    assert.equal(value.at, at);
    assert.ok(at instanceof Date);
    assert.equal(at.getTime(), Date.parse('2026-12-03T10:00:00Z'));
    assert.equal(at.toISOString(), '2026-12-03T10:00:00.000Z');
    assert.equal(JSON.stringify(value), '{"at":"2026-12-03T10:00:00.000Z"}');
    const setters = Object.getOwnPropertyNames(Date.prototype).filter((k) => k.startsWith('set'));
    assert.ok(setters.length >= 8, 'the setters of Date.prototype');
    for (const k of setters) assert.throws(() => (at as unknown as Record<string, (v: number) => void>)[k]!(0), TypeError, k);
    assert.equal(at.getTime(), Date.parse('2026-12-03T10:00:00Z'));
    // a copy is an ordinary Date again
    const copy = structuredClone(value);
    copy.at.setTime(0);
    assert.equal(copy.at.getTime(), 0);
    // other Dates are untouched
    const other = new Date(0);
    other.setTime(5);
    assert.equal(other.getTime(), 5);
  });

  test("a Map's values are frozen; the Map stays its holder's", () => {
    const entry = { n: 1, at: new Date(0) };
    const map = new Map([['k', entry]]);
    const value = deepFreeze({ map });
    assert.ok(Object.isFrozen(entry));
    assert.throws(() => entry.at.setTime(1), TypeError);
    assert.ok(Object.isFrozen(value));
    value.map.set('other', { n: 2, at: new Date(0) });
    assert.equal(value.map.size, 2);
  });

  test('primitives and null pass through; a frozen value is taken as it is', () => {
    assert.equal(deepFreeze(null), null);
    assert.equal(deepFreeze(3), 3);
    assert.equal(deepFreeze('s'), 's');
    const inner = { x: 1 };
    const shallow = Object.freeze({ inner });
    deepFreeze(shallow);
    assert.equal(Object.isFrozen(inner), false);
  });
});
