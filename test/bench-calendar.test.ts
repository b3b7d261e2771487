// The bench waits for midnight UTC to pass before a measure whose checked answers carry the day and that could
// not end before it (bench/measures.ts, Measure.sameDayMinutes): run across it, every answer after midnight would
// differ from the reference taken before and fail the measure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calendarWaitMs, MEASURES } from '../bench/measures.js';

const at = (iso: string) => Date.parse(iso);

test('a measure that fits before midnight UTC starts at once; one that does not waits until just past it', () => {
  assert.equal(calendarWaitMs(at('2026-12-05T12:00:00Z'), 30), 0);
  assert.equal(calendarWaitMs(at('2026-12-05T23:29:59Z'), 30), 0);
  // 20 minutes left, 30 needed: until midnight, and 5 s more
  assert.equal(calendarWaitMs(at('2026-12-05T23:40:00Z'), 30), 20 * 60_000 + 5_000);
  // exactly the minutes left is not enough (the measure's own set-up comes first)
  assert.equal(calendarWaitMs(at('2026-12-05T23:30:00Z'), 30), 30 * 60_000 + 5_000);
  // at midnight the whole day is ahead
  assert.equal(calendarWaitMs(at('2026-12-06T00:00:00Z'), 45), 0);
  assert.equal(calendarWaitMs(at('2026-12-05T23:59:59.500Z'), 10), 500 + 5_000);
});

test('the measures whose answers carry the expected dates (spec 2.9) say how long they need within one day', () => {
  const byId = new Map(MEASURES.map((m) => [m.id, m]));
  for (const id of ['refundQuotation', 'quoteScale', 'refund']) {
    const minutes = byId.get(id)?.sameDayMinutes;
    assert.ok(minutes !== undefined && minutes > 0 && minutes < 24 * 60, `${id}: ${String(minutes)}`);
  }
});
