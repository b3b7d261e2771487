// Identifiers that grow with time (decision 0061).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTimeRandomId, timeOrderedIds } from './ids.js';

const AT = Date.UTC(2026, 11, 6, 9, 5, 7, 42); // 2026-12-06 09:05:07.042 UTC

test('numeric ids: the UTC millisecond (yyyyMMddHHmmssSSS), then 7 digits; they only grow within a millisecond and across', () => {
  let now = AT;
  const next = timeOrderedIds(() => now);
  const ids = [next(), next(), next()];
  for (const id of ids) assert.match(id, /^20261206090507042\d{7}$/);
  assert.equal(Number(ids[0]!.slice(17)) < 5_000_000, true, 'a millisecond starts its counter below half of its range');
  assert.deepEqual(ids.map((id) => Number(id.slice(17)) - Number(ids[0]!.slice(17))), [0, 1, 2], 'counted up within the millisecond');
  now += 1;
  const later = next();
  assert.match(later, /^20261206090507043\d{7}$/);
  assert.ok(later > ids[2]!);
  now = Date.UTC(2027, 0, 1, 0, 0, 0, 5);
  assert.match(next(), /^20270101000000005\d{7}$/);
});

test('numeric ids: a clock set back keeps the last millisecond and counts on; a millisecond run out moves to the next', () => {
  let now = AT;
  const next = timeOrderedIds(() => now);
  const first = next();
  now = AT - 60_000;
  const after = next();
  assert.equal(after.slice(0, 17), first.slice(0, 17), 'the last millisecond kept');
  assert.equal(Number(after.slice(17)), Number(first.slice(17)) + 1);
  // the counter runs out within at most 10⁷ ids of one millisecond: the next id is of the next millisecond
  now = AT;
  let id = after;
  let previous = id;
  for (let n = 0; n < 10_000_000 && id.startsWith('20261206090507042'); n++) {
    previous = id;
    id = next();
  }
  assert.equal(previous.slice(17), '9999999', 'the last id of the millisecond');
  assert.match(id, /^20261206090507043\d{7}$/, 'then the next millisecond, before the clock reaches it');
  assert.ok(id > previous);
});

test('numeric ids of one source never repeat, and sort as they were drawn', () => {
  const next = timeOrderedIds();
  const ids = Array.from({ length: 50_000 }, next);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
});

test('time-random ids: 11 hex digits of the millisecond, then 24 base64url characters of random bytes', () => {
  const a = newTimeRandomId(AT);
  const b = newTimeRandomId(AT);
  assert.match(a, /^[0-9a-f]{11}[A-Za-z0-9_-]{24}$/);
  assert.equal(a.slice(0, 11), AT.toString(16).padStart(11, '0'));
  assert.equal(b.slice(0, 11), a.slice(0, 11));
  assert.notEqual(a.slice(11), b.slice(11), 'random after the time');
  assert.ok(newTimeRandomId(AT + 1) > a, 'a later millisecond sorts after');
  const many = new Set(Array.from({ length: 10_000 }, () => newTimeRandomId(AT)));
  assert.equal(many.size, 10_000);
});
