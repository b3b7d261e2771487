// The sandbox's movable clock (src/clock.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TestClock } from './clock.js';

test('offset() is the offset itself, not two reads of the real time apart (found by a flaky test: "-0.0 h ahead")', () => {
  // a real time that moves on by 1 ms at every read
  let t = Date.parse('2026-12-05T12:00:00Z');
  const clock = new TestClock(() => t++);
  assert.equal(clock.offset(), 0);
  clock.advance(90_000);
  assert.equal(clock.offset(), 90_000);
  const real = t;
  assert.equal(clock.now().getTime(), real + 90_000, 'now() is still the real time plus the offset');
});

test('a frozen clock: its offset grows as the real time moves on behind it', () => {
  let t = Date.parse('2026-12-05T12:00:00Z');
  const clock = new TestClock(() => t);
  clock.advance(60_000);
  clock.freeze();
  t += 10_000;
  assert.equal(clock.offset(), 50_000);
});
