// The bounded map every "work it out once" cache of src/ keeps its values in (src/bounded-map.ts).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BoundedMap, FifoMap } from './bounded-map.js';

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

describe('FifoMap', () => {
  test('never holds more than its bound: a new key past it drops the oldest kept, the others stay', () => {
    const map = new FifoMap<string, number>(3);
    for (const [i, k] of ['a', 'b', 'c', 'd', 'e'].entries()) map.set(k, i);
    assert.equal(map.size, 3);
    assert.deepEqual(['a', 'b', 'c', 'd', 'e'].map((k) => map.get(k)), [undefined, undefined, 2, 3, 4]);
    // long past the bound, the newest `bound` keys are the ones kept
    for (let i = 0; i < 10_000; i++) map.set(`k${i}`, i);
    assert.equal(map.size, 3);
    assert.deepEqual([map.get('k9996'), map.get('k9997'), map.get('k9998'), map.get('k9999')], [undefined, 9997, 9998, 9999]);
  });

  test('a key kept again keeps its place; a deleted key leaves room that its slot gives back when the ring comes round', () => {
    const map = new FifoMap<string, number>(3);
    map.set('a', 1).set('b', 2).set('c', 3);
    map.set('a', 10); // in place: still the oldest
    map.set('d', 4);
    assert.equal(map.has('a'), false, 'the oldest went, though kept again');
    assert.deepEqual([map.get('b'), map.get('c'), map.get('d')], [2, 3, 4]);
    assert.equal(map.delete('c'), true);
    assert.equal(map.size, 2);
    map.set('e', 5); // takes b's slot: b goes, the map at two again
    assert.deepEqual([map.has('b'), map.get('d'), map.get('e')], [false, 4, 5]);
    map.set('c', 30); // the next slot is c's old one: taken again, nothing else goes
    assert.deepEqual([map.get('c'), map.get('d'), map.get('e'), map.size], [30, 4, 5, 3]);
    map.set('f', 6); // d's slot: d goes
    assert.deepEqual([map.has('d'), map.get('e'), map.get('c'), map.get('f'), map.size], [false, 5, 30, 6, 3]);
  });

  test('a bound that is not a whole number ≥ 1 is refused', () => {
    for (const bound of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new FifoMap(bound), RangeError, String(bound));
    }
  });
});
