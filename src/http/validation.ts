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

/** A value still to look at: its parent and its key there make its path, spelled only for a problem. */
interface Pending {
  value: unknown;
  parent: Pending | null;
  key: string;
  depth: number;
}

/** JSON pointer of a value (a property name that is not a short identifier shows as "(property)"). */
function pathOf(at: Pending): string {
  let path = '';
  for (let p: Pending | null = at; p && p.parent; p = p.parent) path = `/${PLAIN_NAME.test(p.key) ? p.key : '(property)'}${path}`;
  return path;
}

/**
 * The first value of a request that no store could hold, or null. Iterative: a body nested a million levels
 * deep is refused, not a stack overflow.
 */
export function findUnsafeValue(root: unknown): WireProblem | null {
  const stack: Pending[] = [{ value: root, parent: null, key: '', depth: 0 }];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const value = at.value;
    if (typeof value === 'string') {
      const message = stringProblem(value);
      if (message) return { instancePath: pathOf(at), message };
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value) || Math.abs(value) > MAX_WIRE_NUMBER) {
        return { instancePath: pathOf(at), message: `must be a number between -${MAX_WIRE_NUMBER} and ${MAX_WIRE_NUMBER}` };
      }
    } else if (value !== null && typeof value === 'object') {
      if (at.depth >= MAX_WIRE_DEPTH) return { instancePath: pathOf(at), message: 'is nested too deeply' };
      // reversed onto the stack: the first problem in document order is the one reported
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: at, key: String(i), depth: at.depth + 1 });
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!;
          if (stringProblem(key)) return { instancePath: pathOf(at), message: 'has a property name with control characters or an unpaired surrogate' };
          stack.push({ value: (value as Record<string, unknown>)[key], parent: at, key, depth: at.depth + 1 });
        }
      }
    }
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
    const checked = named ? Object.fromEntries(named.map((name) => [name, (result.value as Record<string, unknown>)[name]])) : result.value;
    const problem = findUnsafeValue(checked);
    if (!problem) return result;
    const error: FastifySchemaValidationError = { keyword: 'wire', instancePath: problem.instancePath, schemaPath: '#', params: {}, message: problem.message };
    return { error: [error] };
  };
};
