// The request id every answer carries (x-request-id): the caller's, when it is one a log line can hold, else a new
// UUID. Fastify's genReqId (app.ts) and the answer lane (lane.ts) both take it from here.
import { randomUUID } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}
