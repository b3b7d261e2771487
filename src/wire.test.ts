// The request schemas' date formats: digits that do not make a date are refused like malformed ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Format } from 'typebox/format';
import { isCompactDate, isCompactDateTime } from './wire.js';

test('yyyyMMdd: real calendar dates only', () => {
  for (const ok of ['20261130', '20280229', '20000229', '19991231', '20260101']) assert.equal(isCompactDate(ok), true, ok);
  for (const bad of ['20261340', '20261300', '20261100', '20261131', '20270229', '21000229', '2026113', '202611300', 'abcdefgh', '2026-1-1']) assert.equal(isCompactDate(bad), false, bad);
});

test('yyyyMMddHHmm: a real date and a time of day', () => {
  for (const ok of ['202611300000', '202611302359', '202802291230']) assert.equal(isCompactDateTime(ok), true, ok);
  for (const bad of ['202611302400', '202611301260', '202602301000', '20261130', '2026113012000']) assert.equal(isCompactDateTime(bad), false, bad);
});

test('the formats the schemas name are registered with the validator', () => {
  assert.equal(Format.Test('yyyyMMdd', '20261340'), false);
  assert.equal(Format.Test('yyyyMMdd', '20261130'), true);
  assert.equal(Format.Test('yyyyMMddHHmm', '202611302400'), false);
  assert.equal(Format.Test('yyyyMMdd[HHmm]', '20261130'), true);
  assert.equal(Format.Test('yyyyMMdd[HHmm]', '202611301015'), true);
  assert.equal(Format.Test('yyyyMMdd[HHmm]', '2026113010'), false);
});
