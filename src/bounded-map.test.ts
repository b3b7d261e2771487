// The bounded map every "work it out once" cache of src/ keeps its values in (src/bounded-map.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  test('never holds more than its bound: a new key past it empties the map first', () => {
    const map = new BoundedMap<number, string>(3);
    for (let i = 0; i < 3; i++) map.set(i, `v${i}`);
    assert.equal(map.size, 3);
    map.set(3, 'v3');
    assert.deepEqual([...map.entries()], [[3, 'v3']]);
    for (let i = 0; i < 100; i++) {
      map.set(100 + i, 'x');
      assert.ok(map.size <= 3, `size ${map.size} after ${i + 1} more keys`);
    }
  });

  test('a key already kept is replaced in place, even when the map is full', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    map.set('a', 10);
    assert.deepEqual([...map.entries()], [['a', 10], ['b', 2]]);
  });

  test('getOrMake works a key out once, and keeps nothing when the work throws', () => {
    const map = new BoundedMap<string, string>(10);
    let made = 0;
    const upper = (key: string) => {
      made++;
      if (key === 'bad') throw new Error('unreadable');
      return key.toUpperCase();
    };
    assert.equal(map.getOrMake('abc', upper), 'ABC');
    assert.equal(map.getOrMake('abc', upper), 'ABC');
    assert.equal(made, 1);
    assert.throws(() => map.getOrMake('bad', upper), /unreadable/);
    assert.equal(map.has('bad'), false);
    assert.throws(() => map.getOrMake('bad', upper), /unreadable/);
    assert.equal(made, 3);
  });

  test('a bound that is not a whole number ≥ 1 is refused', () => {
    for (const bound of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new BoundedMap(bound), RangeError, String(bound));
    }
  });
});
