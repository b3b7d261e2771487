// Generates the wire types of the SDK (packages/client/src/generated/wire.ts) from the service itself: it
// builds the app in sandbox mode, reads the OpenAPI document that @fastify/swagger makes from the route
// table (src/http/routes.ts) and its TypeBox schemas, and turns each endpoint's request body and 200 answer
// into TypeScript with json-schema-to-typescript (decision 0027). Nothing about the wire is written twice.
//
//   npm run sdk:generate            write the file
//   npm run sdk:generate -- --check exit 1 when the committed file differs (test/sdk.test.ts checks it too)
import fs from 'node:fs';
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';
import { BUSINESS_FAILURE } from '../src/http/openapi-docs.js';
import { makeTestApp } from '../src/test-support/app.js';
import { invokedAsScript } from './invoked.js';

export const GENERATED_FILE = path.resolve(import.meta.dirname, '../packages/client/src/generated/wire.ts');

type Schema = Record<string, unknown>;
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  parameters?: Array<{ in: string; name: string }>;
  summary?: string;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

/** One endpoint of the document: what the SDK needs to know to call it. */
export interface EndpointSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Base name of its types: `/refundQuotation.do` → RefundQuotation, GET `/sandbox/clock` → SandboxClockGet. */
  name: string;
  request: Schema | null;
  response: Schema;
  /** Takes an Idempotency-Key header (src/http/idempotency.ts). */
  idempotent: boolean;
  summary: string;
}

const pascal = (words: string[]) => words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

function typeName(method: string, url: string): string {
  const words = url.replace(/\.do$/, '').split('/').filter(Boolean);
  return pascal(words) + (method === 'post' ? '' : pascal([method]));
}

/** Documentation-only keywords are left out: an example changes no type. */
function withoutExamples(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutExamples);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Schema)
      .filter(([k]) => k !== 'examples' && k !== 'example')
      .map(([k, v]) => [k, withoutExamples(v)]),
  );
}

/**
 * The success shape of a 200 answer. Where an endpoint's document shows business failures, its 200 schema is
 * `anyOf: [success, business failure]` (src/http/openapi-docs.ts); the SDK throws failures (PostbookError), so a
 * method resolves with the success shape only.
 */
function successOf(schema: Schema): Schema {
  const anyOf = (schema as { anyOf?: Schema[] }).anyOf;
  const isFailure = (s: Schema | undefined) => (s as { description?: unknown } | undefined)?.description === BUSINESS_FAILURE.description;
  return anyOf?.length === 2 && isFailure(anyOf[1]) ? anyOf[0]! : schema;
}

/** The endpoints of an OpenAPI document (paths in document order, which is the route table's). */
export function endpointsOf(doc: OpenApiDocument): EndpointSpec[] {
  const out: EndpointSpec[] = [];
  for (const [url, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (method !== 'get' && method !== 'post') throw new Error(`sdk-types: ${method.toUpperCase()} ${url} is a method the SDK does not speak`);
      const response = op.responses?.['200']?.content?.['application/json']?.schema;
      if (!response) throw new Error(`sdk-types: ${method.toUpperCase()} ${url} has no JSON 200 answer in the document`);
      const request = op.requestBody?.content?.['application/json']?.schema ?? null;
      out.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path: url,
        name: typeName(method, url),
        request: request ? (withoutExamples(request) as Schema) : null,
        response: withoutExamples(successOf(response)) as Schema,
        idempotent: (op.parameters ?? []).some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        summary: op.summary ?? '',
      });
    }
  }
  return out;
}

/** The OpenAPI document of the service as it runs in sandbox mode (every route, the sandbox clock too). */
export async function serviceDocument(): Promise<OpenApiDocument> {
  const t = await makeTestApp();
  try {
    return t.app.swagger() as unknown as OpenApiDocument;
  } finally {
    await t.close();
  }
}

const COMPILE = {
  bannerComment: '',
  additionalProperties: false,
  ignoreMinAndMaxItems: true,
  unknownAny: true,
  strictIndexSignatures: true,
  format: true,
  style: { singleQuote: true, printWidth: 140 },
} as const;

/** The text of the generated file for a document. */
export async function renderWireTypes(doc: OpenApiDocument): Promise<string> {
  const endpoints = endpointsOf(doc);
  const parts: string[] = [
    '// GENERATED by scripts/sdk-types.ts from the service\'s OpenAPI document, which @fastify/swagger makes from the',
    '// TypeBox schemas of src/**/wire*.ts as src/http/routes.ts registers them (decision 0027). Do not edit:',
    '// run `npm run sdk:generate`. test/sdk.test.ts fails when this file differs from what the service declares.',
    '/* eslint-disable */',
    '',
  ];
  for (const e of endpoints) {
    if (e.request) parts.push((await compile(e.request, `${e.name}Request`, COMPILE)).trim(), '');
    parts.push((await compile(e.response, `${e.name}Response`, COMPILE)).trim(), '');
  }
  parts.push('/** Every endpoint of the service: its request body (`never`: none) and its answer when `status` is 0. */');
  parts.push('export interface Endpoints {');
  for (const e of endpoints) {
    const request = e.request ? `${e.name}Request` : 'never';
    parts.push(`  /** ${e.summary.replace(/\*\//g, '*\\/')} */`);
    parts.push(`  '${e.method} ${e.path}': { request: ${request}; response: ${e.name}Response; idempotent: ${e.idempotent} };`);
  }
  parts.push('}', '');
  parts.push('/** The same list at run time (method, path, whether it takes an Idempotency-Key). */');
  parts.push('export const ENDPOINTS = [');
  for (const e of endpoints) parts.push(`  { method: '${e.method}', path: '${e.path}', idempotent: ${e.idempotent} },`);
  parts.push('] as const;', '');
  return parts.join('\n');
}

async function main(): Promise<void> {
  const text = await renderWireTypes(await serviceDocument());
  if (process.argv.includes('--check')) {
    const current = fs.existsSync(GENERATED_FILE) ? fs.readFileSync(GENERATED_FILE, 'utf8') : '';
    if (current !== text) {
      console.error(`${path.relative(process.cwd(), GENERATED_FILE)} is stale: run npm run sdk:generate`);
      process.exit(1);
    }
    console.log('SDK wire types are current');
    return;
  }
  fs.mkdirSync(path.dirname(GENERATED_FILE), { recursive: true });
  fs.writeFileSync(GENERATED_FILE, text);
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}`);
}

if (invokedAsScript(import.meta.url)) await main();
