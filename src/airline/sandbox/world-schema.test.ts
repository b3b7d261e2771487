// docs/world.schema.json is generated from WorldSchema and committed: it must not go stale, and the demo
// world must validate against it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import Schema from 'typebox/schema';
import { Compile } from 'typebox/compile';
import { WorldSchema } from './world-schema.js';
import { renderWorldSchema, SCHEMA_FILE } from '../../../scripts/world-schema.js';
import { testWorld } from '../../test-support/world.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const DEMO = path.join(REPO, 'worlds', 'demo.yaml');
const committedText = () => fs.readFileSync(path.join(REPO, 'docs', 'world.schema.json'), 'utf8');
const demo = () => YAML.parse(fs.readFileSync(DEMO, 'utf8')) as unknown;

test('docs/world.schema.json is the committed output of npm run world:schema (run it after changing world-schema.ts)', () => {
  assert.equal(SCHEMA_FILE, path.join(REPO, 'docs', 'world.schema.json'));
  assert.equal(committedText(), renderWorldSchema(), 'docs/world.schema.json is stale: run npm run world:schema');
});

test('the generated schema is draft 2020-12 JSON Schema with no TypeBox internals, and stable', () => {
  const doc = JSON.parse(committedText()) as Record<string, unknown>;
  assert.equal(doc.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(doc.$id, 'https://postbook.dev/schemas/world.schema.json');
  assert.equal(doc.type, 'object');
  assert.equal(doc.additionalProperties, false);
  assert.ok(!committedText().includes('"~'), 'no TypeBox "~kind" markers');
  assert.equal(renderWorldSchema(), renderWorldSchema());
});

test('npm run world:schema -- --check passes on the committed file', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'scripts', 'world-schema.ts'), '--check'], {
    cwd: REPO,
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /up to date/);
});

test('the demo world validates against the committed JSON Schema and the TypeBox schema', () => {
  const fromJson = Schema.Compile(JSON.parse(committedText()) as Schema.XSchema);
  assert.equal(fromJson.Check(demo()), true, JSON.stringify(fromJson.Errors(demo())[1].slice(0, 3)));
  assert.equal(Compile(WorldSchema).Check(demo()), true);
});

test('the test world validates too, and the JSON Schema refuses what the loader refuses by shape', () => {
  const fromJson = Schema.Compile(JSON.parse(committedText()) as Schema.XSchema);
  assert.equal(fromJson.Check(testWorld()), true);
  const typo = structuredClone(testWorld());
  Object.assign(typo.bookings[0]!.tickets![0]!, { fare_typo: 1 });
  assert.equal(fromJson.Check(typo), false);
  const badCode = structuredClone(testWorld());
  badCode.airports[0]!.code = 'hnd';
  assert.equal(fromJson.Check(badCode), false);
});

test('the demo world\'s $schema line points at docs/world.schema.json', () => {
  const ref = (demo() as { $schema?: string }).$schema;
  assert.equal(typeof ref, 'string');
  assert.equal(path.resolve(path.dirname(DEMO), ref!), path.join(REPO, 'docs', 'world.schema.json'));
});
