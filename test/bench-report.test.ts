// BENCHMARKS.md upkeep: a run replaces only its own rows and keeps the hand-written notes after the tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NOTES_HEADING, updateBenchmarksFile } from '../bench/report.js';

test('a bench run replaces its rows and keeps the other rows and the notes', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-')), 'BENCHMARKS.md');
  const row = (measure: string, value: string) => ({ measure, value, target: '≥ 0.5', date: '2026-11-23', machine: 'test machine' });
  updateBenchmarksFile(file, 'pglite', [row('a', '0.10'), row('b', '0.20')], ['a', 'b']);
  fs.appendFileSync(file, `\n${NOTES_HEADING}\n\nseat maps: the write dominates | (a pipe in the notes)\n`);
  updateBenchmarksFile(file, 'pglite', [row('a', '0.90')], ['a', 'b']);
  updateBenchmarksFile(file, 'postgres', [row('b', '0.70')], ['a', 'b']);
  const text = fs.readFileSync(file, 'utf8');
  assert.match(text, /\| a \| 0\.90 \|/);
  assert.doesNotMatch(text, /\| a \| 0\.10 \|/);
  assert.match(text, /\| b \| 0\.20 \|/);
  assert.match(text, /## PostgreSQL[^]*\| b \| 0\.70 \|/);
  assert.equal(text.split(NOTES_HEADING).length, 2, 'the notes once');
  assert.ok(text.trimEnd().endsWith('seat maps: the write dominates | (a pipe in the notes)'));
});
