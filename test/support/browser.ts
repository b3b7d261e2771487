// Debian's Chromium for the browser tests, driven by playwright-core. `.ci/run` installs the package when it
// is missing and sets REQUIRE_BROWSER=1, so there a missing browser fails the run; on a newcomer's machine
// without it the browser tests are skipped with the command that installs it.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { ROOT } from './processes.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. Throws where a browser is required. */
export function browserMissing(): string | null {
  if (fs.existsSync(CHROMIUM)) return null;
  const why = `no Chromium at ${CHROMIUM} (install it: apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but ${why}`);
  return why;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** test-results/<name>: where the browser tests leave their screenshots (not committed). */
export function resultPath(name: string): string {
  const dir = path.join(ROOT, 'test-results');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}
