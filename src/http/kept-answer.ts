// Answers shared by every request of one version of their data are serialized once (issue 7: "the record's
// wire answer is built once per record version"). extractPnr.do hands out one deep-frozen answer object per
// airline record version (src/pnr/extract.ts); its JSON text is made the first time by the route's own
// serializer (reply.serialize: the response schema, the same bytes as any other answer) and kept by the
// object's identity, so a repeated extract skips serialization and the serialization hooks.
import type { FastifyReply } from 'fastify';

const texts = new WeakMap<object, string>();

/**
 * Sends `answer` as its kept JSON text when it is a frozen (shared, unchanging) object; otherwise returns it
 * for Fastify to serialize as usual. Call from a handler as `return sendKept(reply, answer)`.
 */
export function sendKept<T extends { status: number }>(reply: FastifyReply, answer: T): T | FastifyReply {
  if (!Object.isFrozen(answer)) return answer;
  let text = texts.get(answer);
  if (text === undefined) {
    text = reply.serialize(answer) as string;
    texts.set(answer, text);
  }
  reply.bodyStatus = answer.status; // the metrics' body status (no preSerialization hook for a text)
  return reply.type('application/json; charset=utf-8').send(text);
}
