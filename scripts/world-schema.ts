// Writes docs/world.schema.json from the TypeBox WorldSchema (a TypeBox schema is JSON Schema), so editors can
// validate a world file and the docs never drift from the loader. `--check` only compares, for CI:
//   npm run world:schema            regenerate docs/world.schema.json
//   npm run world:schema -- --check exit 1 when the committed file is stale
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WorldSchema } from '../src/airline/sandbox/world-schema.js';
import { invokedAsScript } from './invoked.js';

export const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'world.schema.json');

const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const COMMENT = 'Generated from src/airline/sandbox/world-schema.ts by `npm run world:schema`; do not edit by hand. Guide: docs/world.md';

/** Plain JSON of a schema: own enumerable keys only (TypeBox's '~kind' markers are dropped), in a stable order. */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key.startsWith('~') || v === undefined) continue;
    out[key] = plain(v);
  }
  return out;
}

/** The schema document: dialect, identity and title first, then the schema as TypeBox builds it. */
export function worldSchemaDocument(): Record<string, unknown> {
  const body = plain(WorldSchema) as Record<string, unknown>;
  const { $id, title, ...rest } = body;
  return {
    $schema: DIALECT,
    $id,
    title,
    $comment: COMMENT,
    ...rest,
  };
}

/** The exact text of docs/world.schema.json. */
export function renderWorldSchema(): string {
  return JSON.stringify(worldSchemaDocument(), null, 2) + '\n';
}

function main(argv: string[]): number {
  const expected = renderWorldSchema();
  const rel = path.relative(process.cwd(), SCHEMA_FILE) || SCHEMA_FILE;
  if (argv.includes('--check')) {
    const current = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : null;
    if (current === expected) {
      console.log(`${rel} is up to date`);
      return 0;
    }
    console.error(
      current === null
        ? `${rel} is missing: run npm run world:schema`
        : `${rel} is stale (it differs from src/airline/sandbox/world-schema.ts): run npm run world:schema`,
    );
    return 1;
  }
  fs.mkdirSync(path.dirname(SCHEMA_FILE), { recursive: true });
  const before = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : null;
  if (before === expected) {
    console.log(`${rel} is up to date`);
  } else {
    fs.writeFileSync(SCHEMA_FILE, expected);
    console.log(`wrote ${rel}`);
  }
  return 0;
}

// Run only when invoked as a script (the schema test imports renderWorldSchema without side effects).
if (invokedAsScript(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
