// What /openapi.json adds to the route schemas (decision 0028): a realistic example of every operation's
// request and of each answer (taken from the service running the demo world, src/http/openapi-examples.ts),
// and the webhook payloads in OpenAPI 3.1's top-level `webhooks`. Plugged into @fastify/swagger by app.ts.
import type { Config } from '../config.js';
import { EXAMPLES } from './openapi-examples.js';
import { WEBHOOK_EVENTS } from './openapi-webhooks.js';

type Json = Record<string, unknown>;
interface Media {
  schema?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}
type WithContent = { content?: Record<string, Media> } | undefined;
interface Operation {
  requestBody?: WithContent;
  responses?: Record<string, WithContent>;
}

/** The answer to an unexpected failure (no request can provoke it on purpose, so it is written here). */
const SYSTEM_ERROR_EXAMPLE = { status: 9999, msg: 'system error; quote request id 5b0c3f0e-2d7a-4f19-9a51-0e6f3b8d2c47 to support' };

/** The body of a business failure (HTTP 200, status not 0; docs/architecture.md "Wire conventions"). */
export const BUSINESS_FAILURE = {
  type: 'object',
  description: 'a business failure: a non-zero status (the endpoint family\'s table in docs/) and a human msg, with the fields this endpoint always carries',
  required: ['status', 'msg'],
  properties: { status: { type: 'integer', not: { const: 0 } }, msg: { type: 'string' } },
};

/** The 429 answer of a rate pool (src/ratelimit/pools.ts; README "Status codes", spec 8). */
const rateRefusal = (summary: string) => ({
  description: `${summary.replace(/^429: /, '')}. The pools: verify (verify.do, getOffers.do), ancillary (seatAvailability.do, getLuggage.do), pnr (extractPnr.do, pnr/claim.do), search (search.do, per second); auth (any endpoint: too many new credential checks waiting at once).`,
  headers: { 'retry-after': { description: 'seconds until the pool takes this client again', schema: { type: 'integer' } } },
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['status', 'msg', 'limitType', 'retryAfter'],
        properties: {
          status: { const: 429 },
          msg: { type: 'string' },
          code: { const: 429 },
          message: { type: 'string' },
          limitType: { enum: ['verify', 'ancillary', 'pnr', 'search', 'auth'] },
          limit: { type: 'integer' },
          retryAfter: { type: 'integer', description: 'seconds' },
        },
      },
    },
  },
});

/** An Example Object key from its summary: "809: the order is not paid" → "809-the-order-is-not-paid". */
const keyOf = (summary: string, taken: Set<string>): string => {
  const base = summary.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'example';
  let key = base;
  for (let n = 2; taken.has(key); n++) key = `${base}-${n}`;
  taken.add(key);
  return key;
};

const jsonContent = (body: WithContent): Media | undefined => body?.content?.['application/json'];

/** Puts the examples into every operation of the generated document (its paths are Fastify's). */
export function addExamples<D extends object>(doc: D): D {
  const paths = (doc as { paths?: Record<string, Record<string, unknown>> }).paths ?? {};
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (typeof value !== 'object' || value === null || !('responses' in value)) continue; // parameters, summary…
      const op = value as Operation;
      const examples = EXAMPLES.operations[`${method.toUpperCase()} ${path}`] ?? [];
      const requestMedia = jsonContent(op.requestBody);
      if (requestMedia) {
        const taken = new Set<string>();
        // only the requests the schema accepts: the transport failures' bodies are broken on purpose
        const requests = examples.filter((e) => e.request !== undefined && e.status === 200);
        if (requests.length > 0) requestMedia.examples = Object.fromEntries(requests.map((e) => [keyOf(e.summary, taken), { summary: e.summary, value: e.request }]));
      }
      // A refusal of a rate pool (spec 8) comes from the pool in front of the route, not from its schema; every
      // route with client credentials (a 401, not the admin token's /sandbox) may also answer the credential
      // check's 429 (limitType auth).
      const refusals = examples.filter((e) => e.status === 429);
      const clientCredentials = op.responses?.['401'] !== undefined && !path.startsWith('/sandbox/');
      if (op.responses && !op.responses['429'] && (refusals.length > 0 || clientCredentials)) {
        op.responses['429'] = rateRefusal(refusals[0]?.summary ?? '429: too many new credential checks at once');
      }
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const media = jsonContent(response);
        if (!media) continue;
        const taken = new Set<string>();
        const answers = examples.filter((e) => String(e.status) === status).map((e) => ({ summary: e.summary, value: e.response }));
        // spec 6: a business failure is HTTP 200 with a non-zero status and its own body (status, msg and the
        // fields the endpoint always carries), not the success shape: the document says so.
        if (status === '200' && answers.some((a) => (a.value as { status?: unknown }).status !== 0)) media.schema = { anyOf: [media.schema, BUSINESS_FAILURE] };
        if (status === '500' && answers.length === 0) answers.push({ summary: 'an unexpected failure: quote the request id to support', value: SYSTEM_ERROR_EXAMPLE });
        if (answers.length > 0) media.examples = Object.fromEntries(answers.map((a) => [keyOf(a.summary, taken), a]));
      }
    }
  }
  return doc;
}

/** OpenAPI 3.1 `webhooks`: one POST per event type, with its headers, payload schema and examples. */
export function webhooksSection(config: Pick<Config, 'headerPrefix'>): Json {
  const p = config.headerPrefix;
  const header = (name: string, description: string, schema: Json = { type: 'string' }) => ({ name, in: 'header', required: true, description, schema });
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([type, { schema, summary }]) => {
      const taken = new Set<string>();
      const bodies = (EXAMPLES.webhooks[type] ?? []) as Json[];
      const example = (b: Json) => {
        const d = b.data as Record<string, number | null | undefined>;
        const from = d.previousRefundStatus ?? d.previousVoidStatus ?? null;
        const to = d.refundStatus ?? d.voidStatus;
        if (type === 'order.ticketed') return { summary: `${type}: the order was ticketed (${String(d.orderStatus)})`, value: b };
        return { summary: `${type}: ${from === null ? 'submitted' : from} → ${to}`, value: b };
      };
      return [
        type,
        {
          post: {
            summary,
            description:
              'postbook POSTs this to the URL the client registered (updateWebhookURL.do), signed, at least once, in order per refund or void, ' +
              'retried for 24 h (docs/webhooks.md). Verify the signature over the raw body before parsing it; de-duplicate on eventId.',
            tags: ['webhooks'],
            security: [],
            parameters: [
              header(`x-${p}-webhook-id`, 'the eventId'),
              header(`x-${p}-webhook-timestamp`, 'Unix seconds (real time) of this attempt', { type: 'string', pattern: '^\\d+$' }),
              header(`x-${p}-webhook-signature`, 'hex HMAC-SHA256 of `timestamp + "." + body` with the webhook secret', { type: 'string', pattern: '^[0-9a-f]{64}$' }),
            ],
            requestBody: {
              required: true,
              content: { 'application/json': { schema: JSON.parse(JSON.stringify(schema)) as Json, examples: Object.fromEntries(bodies.map((b) => { const e = example(b); return [keyOf(e.summary, taken), e]; })) } },
            },
            responses: {
              '2XX': { description: 'stored: the event counts as delivered (answer within 10 s)' },
              default: { description: 'any other answer, a redirect, a refused connection or no answer in 10 s: a failed attempt, retried (docs/webhooks.md "Delivery and retries")' },
            },
          },
        },
      ];
    }),
  );
}
