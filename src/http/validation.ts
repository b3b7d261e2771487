// Request validation: every route's TypeBox schema, then one check that holds for every value of every
// request, whatever its schema says (decision 0003, "Values the store cannot hold"): no string carries a
// control character or an unpaired surrogate (PostgreSQL text refuses U+0000, and an unpaired surrogate has no
// UTF-8 form), no number lies outside the store's integer range, no value is nested deeper than any request
// needs. A failure is an ordinary validation failure: the endpoint family's invalid-request status, with a msg
// naming the field (errors.ts).
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';

/** C0 controls, DEL and C1 controls: no field of any request carries them. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** The store's integer range (int4): no request number needs more. */
export const MAX_WIRE_NUMBER = 2_147_483_647;
/** Objects and arrays inside objects and arrays: the deepest request (claim passengers) needs 3. */
export const MAX_WIRE_DEPTH = 16;
/** Property names echoed in a msg: short identifiers only. */
const PLAIN_NAME = /^[A-Za-z0-9_$-]{1,64}$/;

export interface WireProblem {
  /** JSON pointer of the value, as a schema error gives it. */
  instancePath: string;
  message: string;
}

/** Printable ASCII only: nothing to look for (nearly every value of every request), one pass instead of two. */
const PLAIN_ASCII = /^[\u0020-\u007e]*$/;

function stringProblem(value: string): string | null {
  if (PLAIN_ASCII.test(value)) return null;
  if (CONTROL.test(value)) return 'must not contain control characters';
  if (UNPAIRED_SURROGATE.test(value)) return 'must be valid Unicode (an unpaired surrogate)';
  return null;
}

/**
 * `problem` found under the property or index `key` of a value: its path gains that step (a property name that is
 * not a short identifier shows as "(property)").
 */
function under(key: string, problem: WireProblem): WireProblem {
  problem.instancePath = `/${PLAIN_NAME.test(key) ? key : '(property)'}${problem.instancePath}`;
  return problem;
}

/**
 * The first value of a request that no store could hold, or null: a walk in document order that allocates only
 * each object's list of keys unless it finds a problem (it runs on every value of every request). Recursive, but
 * never deeper than MAX_WIRE_DEPTH: a body nested a million levels deep is refused, not a stack overflow.
 */
export function findUnsafeValue(root: unknown): WireProblem | null {
  return walk(root, 0);
}

function walk(value: unknown, depth: number): WireProblem | null {
  if (typeof value === 'string') {
    const message = stringProblem(value);
    return message ? { instancePath: '', message } : null;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) && Math.abs(value) <= MAX_WIRE_NUMBER ? null : { instancePath: '', message: `must be a number between -${MAX_WIRE_NUMBER} and ${MAX_WIRE_NUMBER}` };
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_WIRE_DEPTH) return { instancePath: '', message: 'is nested too deeply' };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = walk(value[i], depth + 1);
      if (problem) return under(String(i), problem);
    }
    return null;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // The object's property names first: a bad one is the object's problem, before any of its values.
  for (let i = 0; i < keys.length; i++) {
    if (stringProblem(keys[i]!)) return { instancePath: '', message: 'has a property name with control characters or an unpaired surrogate' };
  }
  for (let i = 0; i < keys.length; i++) {
    const problem = walk(record[keys[i]!], depth + 1);
    if (problem) return under(keys[i]!, problem);
  }
  return null;
}

/**
 * The validator compiler of the app: TypeBox first (its errors come first), then `findUnsafeValue` over the
 * body, query and params, and over the headers the route's schema names (other headers are not the request's
 * data).
 */
export const wireValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const typebox = TypeBoxValidatorCompiler(route) as (value: unknown) => { value?: unknown; error?: FastifySchemaValidationError[] };
  const named = route.httpPart === 'headers' ? Object.keys((route.schema as { properties?: object }).properties ?? {}) : null;
  return (value: unknown) => {
    const result = typebox(value);
    if (result.error) return result;
    const problem = named ? namedHeaderProblem(result.value as Record<string, unknown>, named) : findUnsafeValue(result.value);
    if (!problem) return result;
    const error: FastifySchemaValidationError = { keyword: 'wire', instancePath: problem.instancePath, schemaPath: '#', params: {}, message: problem.message };
    return { error: [error] };
  };
};

/** The first of the named headers whose value no store could hold (each a value one level down, as in a body). */
function namedHeaderProblem(headers: Record<string, unknown>, named: readonly string[]): WireProblem | null {
  for (const name of named) {
    const problem = walk(headers[name], 1);
    if (problem) return under(name, problem);
  }
  return null;
}
