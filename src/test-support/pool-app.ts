// A small app for the rate pool tests: the real error handler and validator, a stand-in for client
// authentication (settings per client id), and the routes of each pool (two, search.do alone), each in its pool's own scope as
// routes.ts does it. Test support only.
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { ApiError, COMMON, VALIDATION_STATUS } from '../errors.js';
import { errorHandler } from '../http/errors.js';
import type { ClientSettings } from '../store/schema.js';
import { testLogger } from './app.js';
import type { RatePool, RatePools } from '../ratelimit/pools.js';

export const POOL_ROUTES = {
  ancillary: ['/seatAvailability.do', '/getLuggage.do'],
  verify: ['/verify.do', '/getOffers.do'],
  search: ['/search.do'],
} as const;

/** Clients of the stand-in authentication: id → settings. The secret is always "secret". */
export type TestClients = Record<string, ClientSettings>;

export async function poolTestApp(pools: RatePools, clients: TestClients): Promise<FastifyInstance> {
  const logger: FastifyBaseLogger = testLogger();
  const app = Fastify({ loggerInstance: logger, ajv: { customOptions: { coerceTypes: false, removeAdditional: false } } });
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  app.setErrorHandler(errorHandler);
  app.decorateRequest('client', null);

  const scopeOf = (pool: RatePool, urls: readonly string[]) =>
    app.register(async (scope) => {
      scope.addHook('onRequest', async (request) => {
        const id = request.headers['x-service-client-id'];
        const settings = typeof id === 'string' ? clients[id] : undefined;
        if (!settings || request.headers['x-service-client-secret'] !== 'secret') throw new ApiError(COMMON.UNAUTHORIZED, 'unauthorized', 401);
        request.client = { clientId: id as string, name: id as string, settings };
      });
      pool.attach(scope);
      const api = scope.withTypeProvider<TypeBoxTypeProvider>();
      for (const url of urls) {
        api.post(
          url,
          { config: { family: 'seat' }, schema: { body: Type.Object({ sessionId: Type.String({ minLength: 1 }), fail: Type.Optional(Type.Boolean()), invalid: Type.Optional(Type.Boolean()) }) } },
          async (request) => {
            // A business failure is an answered request: it counts.
            if (request.body.fail) throw new ApiError(214, 'session expired');
            // A validation failure the handler finds (the family's invalid-request status): it does not.
            if (request.body.invalid) throw new ApiError(VALIDATION_STATUS.seat, 'invalid request: carrier XQ is not the itinerary carrier');
            return { status: 0, msg: null, url };
          },
        );
      }
    });
  await scopeOf(pools.ancillary, POOL_ROUTES.ancillary);
  await scopeOf(pools.verify, POOL_ROUTES.verify);
  await scopeOf(pools.search, POOL_ROUTES.search);
  await app.ready();
  return app;
}

export async function poolCall(app: FastifyInstance, url: string, client: string | null, body: unknown = { sessionId: 's1' }) {
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...(client ? { 'x-service-client-id': client, 'x-service-client-secret': 'secret' } : {}) },
    payload: JSON.stringify(body),
  });
  return { http: res.statusCode, body: res.json<Record<string, unknown>>(), headers: res.headers };
}
