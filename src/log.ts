// Logging: pino with serializers that keep bodies and headers (secrets, names, e-mails) out of every line.
import type { LoggerOptions } from 'pino';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Error serializer: type, message, code and stack only. Driver details (row values) stay out. */
function errSerializer(err: unknown) {
  if (!(err instanceof Error)) return { message: String(err) };
  const e = err as Error & { code?: unknown; constraint?: unknown };
  return { type: e.name, message: e.message, code: e.code, constraint: e.constraint, stack: e.stack };
}

export const serializers = {
  req: (req: FastifyRequest) => ({ method: req.method, url: req.url, remoteAddress: req.ip }),
  res: (res: FastifyReply) => ({ statusCode: res.statusCode }),
  err: errSerializer,
};

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: serializers,
    // Belt and braces: should a header or body ever be logged by a plugin, these paths are censored.
    redact: {
      paths: ['req.headers', 'headers', 'body', 'req.body', '*.secret', '*.email', '*.password', 'authorization'],
      censor: '[redacted]',
    },
  };
}
