// The clients page's rotate form (console/src/client-forms.ts): an empty or unreadable grace field blocks the
// rotation instead of asking for 0 hours, and the confirmation names the hours asked for, warning at 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { graceHours, rotateConfirmation } from '../console/src/client-forms.js';

test('grace field: empty or unreadable is an error, not 0 hours; 0 only when typed', () => {
  for (const text of ['', '  ', '2 h', '-1', '721', 'abc']) {
    const g = graceHours(text);
    assert.equal(g.hours, null, JSON.stringify(text));
    assert.match(g.error ?? '', /^grace period: give the hours the old secret keeps working, 0 to 720/);
  }
  assert.deepEqual(graceHours('0'), { hours: 0, error: null });
  assert.deepEqual(graceHours(' 24 '), { hours: 24, error: null });
  assert.deepEqual(graceHours('1.5'), { hours: 1.5, error: null });
  assert.deepEqual(graceHours('720'), { hours: 720, error: null });
});

test('rotate confirmation: the hours asked for; at 0 a warning that the old secret stops at once', () => {
  assert.equal(rotateConfirmation(2), 'The old secret keeps working for 2 hours.');
  assert.equal(rotateConfirmation(1), 'The old secret keeps working for 1 hour.');
  assert.match(rotateConfirmation(0), /^Grace 0 hours: the old secret stops working at once/);
});
