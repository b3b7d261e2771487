// Whether a script's module is the process's entry (`npx tsx scripts/x.ts`), not a module a test imports. Compared as
// real paths: node runs the file a link points to, and the test run's mirror of the repository reaches the scripts
// through links (scripts/run-tests.ts).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

export function invokedAsScript(moduleUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && fs.realpathSync(entry) === fileURLToPath(moduleUrl);
}
