// Decision 0037: postbook's process entries run with V8's allocation-site pretenuring off (src/v8-flags.ts),
// set by a module they import before any other.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

// One allocation site whose objects all live: V8's young-generation collections find them all alive and take a
// pretenuring decision for the site (printed by --trace-pretenuring-statistics).
const PROGRAM = `
const keep = [];
const make = (i) => ({ i, at: i * 2 });
for (let i = 0; i < 2_000_000; i++) keep.push(make(i));
process.stdout.write(String(keep.length) + '\\n');
`;

/** The lines V8 prints about allocation sites' pretenuring while PROGRAM runs in a fresh `node`. */
function pretenuringLines(preload: string[]): string[] {
  const out = execFileSync(process.execPath, ['--trace-pretenuring-statistics', ...preload, '-e', PROGRAM], { encoding: 'utf8' });
  assert.match(out, /^2000000$/m, 'the program ran to its end');
  return out.split('\n').filter((line) => line.includes('pretenuring:'));
}

describe('V8 settings of the process entries (decision 0037)', () => {
  let compiled = '';
  before(() => {
    // the module as `node` loads it from dist/: compiled, with no loader of ours before it
    const source = fs.readFileSync(path.join(ROOT, 'src/v8-flags.ts'), 'utf8');
    const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
    compiled = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'postbook-v8-flags-')), 'v8-flags.mjs');
    fs.writeFileSync(compiled, outputText);
  });
  after(() => fs.rmSync(path.dirname(compiled), { recursive: true, force: true }));

  test('without it, V8 takes pretenuring decisions for a site whose objects live (the check below can fail)', () => {
    assert.ok(pretenuringLines([]).length > 0);
  });

  test('with it loaded first, V8 takes none', () => {
    assert.deepEqual(pretenuringLines(['--import', compiled]), []);
  });

  for (const entry of ['src/server.ts', 'src/cli.ts']) {
    test(`${entry} imports it before any other module`, () => {
      const firstImport = /^import\s.*$/m.exec(fs.readFileSync(path.join(ROOT, entry), 'utf8'));
      assert.equal(firstImport?.[0], "import './v8-flags.js';");
    });
  }
});
