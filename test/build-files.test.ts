// What `npm run build` compiles into dist/ is the service only: no test, test helper or fixture (issue
// "seams": test helpers are not shipped), and no shipped file imports one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEST_ONLY = /(\.test\.ts$|\/test-[^/]*\.ts$|\/test-support\/)/;

test('the build compiles no test, test helper or fixture, and nothing it compiles imports one', () => {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.build.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => assert.fail(ts.flattenDiagnosticMessageText(d.messageText, '\n')),
  });
  assert.ok(config && config.fileNames.length > 50, 'the build compiles the service');
  const shipped = config.fileNames.map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
  assert.deepEqual(shipped.filter((f) => TEST_ONLY.test(`/${f}`)), []);
  const importsOfTestCode = shipped.filter((f) =>
    [...fs.readFileSync(path.join(ROOT, f), 'utf8').matchAll(/from '([^']+)'/g)].some(([, spec]) => spec!.startsWith('.') && TEST_ONLY.test(`/${spec!.replace(/\.js$/, '.ts')}`)),
  );
  assert.deepEqual(importsOfTestCode, []);
});
