// BENCHMARKS.md upkeep: a run replaces only its own rows and keeps the hand-written notes after the tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatTarget, formatValue, verdictOf } from '../bench/measures.js';
import { NOTES_HEADING, updateBenchmarksFile } from '../bench/report.js';

test('a bench run replaces its rows and keeps the other rows and the notes', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-report-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'BENCHMARKS.md');
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

test('a ratio is shown with the decimals that keep it on its own side of the target', () => {
  const atLeast = { cmp: '>=' as const, value: 0.6 };
  assert.equal(formatValue(0.5996, atLeast), '0.5996'); // two decimals would read "0.60", below target
  assert.equal(formatValue(0.5949, atLeast), '0.59');
  assert.equal(formatValue(0.6, atLeast), '0.60');
  assert.equal(formatValue(0.61234, atLeast), '0.61');
  const atMost = { cmp: '<=' as const, value: 1.3 };
  assert.equal(formatValue(1.3004, atMost), '1.3004'); // "1.30" would read as meeting ≤ 1.3
  assert.equal(formatValue(1.02, atMost), '1.02');
});

test('a target set for one store gives no verdict on the other', () => {
  // docs/architecture.md "Performance targets": the memory target is PostgreSQL mode's
  const memory = { cmp: '<=' as const, value: 250, store: 'postgres' as const };
  assert.equal(verdictOf(319, memory, 'postgres'), 'below');
  assert.equal(verdictOf(210, memory, 'postgres'), 'meets');
  assert.equal(verdictOf(319, memory, 'pglite'), 'none');
  assert.equal(formatTarget(memory, 'postgres'), '≤ 250');
  assert.equal(formatTarget(memory, 'pglite'), "none (≤ 250 is PostgreSQL mode's)");
  const both = { cmp: '>=' as const, value: 0.5 };
  assert.equal(verdictOf(0.4, both, 'pglite'), 'below');
  assert.equal(formatTarget(both, 'pglite'), '≥ 0.5');
});
