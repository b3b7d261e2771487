// Logging: pino with serializers that keep bodies and headers (secrets, names, e-mails) out of every line.
import pino, { type Bindings, type ChildLoggerOptions, type Logger, type LoggerOptions } from 'pino';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

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

/**
 * The service's logger: `dest` is stdout (fd 1, the default) or a file, written asynchronously; lines logged
 * while a write is in progress go out together in the next one.
 */
export function createLogger(level: string, dest: number | string = 1): Logger {
  return pino(loggerOptions(level), pino.destination({ dest, sync: false }));
}

/**
 * The access log: one line per answer, written when it has been sent (decision 0033), instead of Fastify's
 * two ("incoming request" and "request completed", each with the request serialized). Its fields are the
 * request id, the route's pattern (never the path a caller typed, which may carry anything), the method, the
 * HTTP status, the body's status and the milliseconds: nothing a caller sends reaches it, so it is written by
 * a child logger without the redaction paths, which cost ~5 µs a line (decision 0033).
 */
export class AccessLog extends LogController {
  private readonly access: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.access = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? '(no route)';
    const ms = Math.round(reply.elapsedTime * 100) / 100;
    if (error) {
      // An error object may hold anything: through the request's logger and its redaction.
      reply.log.error({ route, method: request.method, http: reply.statusCode, status: reply.bodyStatus, ms, err: error }, 'answer failed');
    } else {
      this.access.info({ reqId: request.id, route, method: request.method, http: reply.statusCode, status: reply.bodyStatus, ms }, 'answered');
    }
  }
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/**
 * A request's logger, made on its first line (decision 0033). Fastify gives every request a pino child bound
 * to its id (1–3 µs each, the bindings serialized), and nearly every answer writes nothing through it: the
 * access line has a logger of its own. This one builds that child when a line is written (an error, the
 * sandbox clock moved …), so every line still carries the request id.
 */
export class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | null = null;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }

  private write(level: Level, obj: unknown, rest: unknown[]): void {
    Reflect.apply(this.logger[level], this.logger, [obj, ...rest]);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  fatal(obj: unknown, ...rest: unknown[]): void {
    this.write('fatal', obj, rest);
  }
  error(obj: unknown, ...rest: unknown[]): void {
    this.write('error', obj, rest);
  }
  warn(obj: unknown, ...rest: unknown[]): void {
    this.write('warn', obj, rest);
  }
  info(obj: unknown, ...rest: unknown[]): void {
    this.write('info', obj, rest);
  }
  debug(obj: unknown, ...rest: unknown[]): void {
    this.write('debug', obj, rest);
  }
  trace(obj: unknown, ...rest: unknown[]): void {
    this.write('trace', obj, rest);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}
