// Logging: pino with serializers that keep bodies and headers (secrets, names, e-mails) out of every line.
import type { IncomingMessage } from 'node:http';
import pino, { type Bindings, type ChildLoggerOptions, type Logger, type LoggerOptions } from 'pino';
import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

/** A PostgreSQL error's code (SQLSTATE: five digits or capitals). */
const SQLSTATE = /^[0-9A-Z]{5}$/;
/** A value a database message quotes. */
const QUOTED = /"[^"\n]*"/g;

/**
 * Error serializer: type, message, code and stack only. Driver details (row values) stay out; a database error's
 * message and stack have what they quote cut out — PostgreSQL puts the value itself in some (invalid input, out of
 * range: `invalid input syntax for type integer: "…"`; a review).
 */
function errSerializer(err: unknown) {
  if (!(err instanceof Error)) {
    // `{ err: { message } }` (the Redis and console warnings' shape) logged "[object Object]": a review
    const message = typeof err === 'object' && err !== null ? (err as { message?: unknown }).message : undefined;
    return { message: typeof message === 'string' ? message : String(err) };
  }
  const e = err as Error & { code?: unknown; constraint?: unknown };
  if (typeof e.code === 'string' && SQLSTATE.test(e.code)) {
    return { type: e.name, message: e.message.replace(QUOTED, '"…"'), code: e.code, constraint: e.constraint, stack: e.stack?.replace(QUOTED, '"…"') };
  }
  return { type: e.name, message: e.message, code: e.code, constraint: e.constraint, stack: e.stack };
}

export const serializers = {
  // the path without its query string: a caller may put anything there (a review)
  req: (req: FastifyRequest) => ({ method: req.method, url: typeof req.url === 'string' ? req.url.split('?', 1)[0] : undefined, remoteAddress: req.ip }),
  res: (res: FastifyReply) => ({ statusCode: res.statusCode }),
  err: errSerializer,
};

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    serializers: serializers,
    // Belt and braces: should a header or body ever be logged by a plugin, these paths are censored.
    redact: {
      // a payment card under any of its names, at the top of a line or one level down (pay.do's card is handed to
      // the airline's connector, never logged by our code)
      paths: ['req.headers', 'headers', 'body', 'req.body', '*.secret', '*.email', '*.password', 'authorization', 'card', '*.card', 'creditCard', '*.creditCard'],
      censor: '[redacted]',
    },
  };
}

/** Bytes of lines gathered before a write (decision 0041). */
const LOG_BATCH_BYTES = 4096;
/** The longest an info line waits for its batch to fill (decision 0041). */
const LOG_MAX_DELAY_MS = 100;
/** pino's number for `warn`: such lines, and worse, are written at once. */
const WARN = pino.levels.values.warn!;

/** What createLogger writes through: pino's asynchronous destination, its lines gathered into batches. */
export type BatchedDestination = pino.DestinationStream & {
  [pino.symbols.needsMetadataGsym]: true;
  lastLevel: number;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
};

/**
 * The service's logger: `dest` is stdout (fd 1, the default) or a file, written in batches (decision 0041).
 */
export function createLogger(level: string, dest: number | string = 1): Logger {
  return pino(loggerOptions(level), batchedDestination(dest));
}

/**
 * pino's asynchronous destination gathering lines until LOG_BATCH_BYTES, and writing what it holds once a line
 * has waited LOG_MAX_DELAY_MS, or at once for a warning or worse. Written as they came, answers one at a time
 * handed each access line to a thread of libuv's pool on its own: ~70 µs more process CPU per answer (decision
 * 0041). At exit pino writes what is left synchronously (its destination's own exit handler).
 */
export function batchedDestination(dest: number | string, opts: { batchBytes?: number; maxDelayMs?: number } = {}): BatchedDestination {
  const boom = pino.destination({ dest, sync: false, minLength: opts.batchBytes ?? LOG_BATCH_BYTES });
  const delay = opts.maxDelayMs ?? LOG_MAX_DELAY_MS;
  let timer: NodeJS.Timeout | null = null;
  // Ticks left before the timer stops: a flush that finds a write in progress leaves the rest for the next tick,
  // so the timer runs one more tick after the last line.
  let ticks = 0;
  const tick = () => {
    boom.flush();
    timer = --ticks > 0 ? setTimeout(tick, delay).unref() : null;
  };
  // A flush while a write is under way does nothing, and what the write leaves behind stays gathered below the
  // batch size: when a write outlasted the timer's ticks (a loaded machine, its thread pool slow), the last lines
  // stayed unwritten until the next line came — "postbook is ready" on a server then quiet, seen as a start that
  // hung for minutes. So a write that ends after lines came since the last one ended brings one more tick.
  let lines = 0;
  let linesAtDrain = 0;
  boom.on('drain', () => {
    if (lines !== linesAtDrain && timer === null) {
      ticks = 1;
      timer = setTimeout(tick, delay).unref();
    }
    linesAtDrain = lines;
  });
  const destination: BatchedDestination = {
    // pino sets lastLevel before each write
    [pino.symbols.needsMetadataGsym]: true,
    lastLevel: 0,
    write(line: string) {
      lines++;
      boom.write(line);
      if (destination.lastLevel >= WARN) boom.flush();
      ticks = 2;
      timer ??= setTimeout(tick, delay).unref();
    },
    flush: (cb) => boom.flush(cb),
    flushSync: () => boom.flushSync(),
  };
  return destination;
}

/**
 * The access log: one line per answer, written when it has been sent (decision 0033), instead of Fastify's
 * two ("incoming request" and "request completed", each with the request serialized). Its fields are the
 * request id, the route's pattern (never the path a caller typed, which may carry anything), the method, the
 * HTTP status, the body's status and the milliseconds: nothing a caller sends reaches it, so it is written by
 * a child logger without the redaction paths, which cost ~5 µs a line (decision 0033).
 */
const LANE_MS = Symbol('postbook.laneMs');
type Timed = IncomingMessage & { [LANE_MS]?: number };

/**
 * The time a request spent in the answer lane before it was handed to Fastify (src/http/lane.ts): Fastify counts a
 * request's time from its own handler, and the route may answer from the lane's work (an airline's time-out waited
 * for there), so its access line and metrics add this.
 */
export function noteLaneTime(raw: IncomingMessage, ms: number): void {
  (raw as Timed)[LANE_MS] = ms;
}

/** A request's time in ms from its arrival: Fastify's elapsed time and any time in the answer lane before it. */
export function elapsedMs(request: FastifyRequest, reply: FastifyReply): number {
  return reply.elapsedTime + ((request.raw as Timed)[LANE_MS] ?? 0);
}

export class AccessLog extends LogController {
  private readonly access: FastifyBaseLogger;

  constructor(logger: FastifyBaseLogger) {
    super();
    this.access = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? '(no route)';
    const ms = Math.round(elapsedMs(request, reply) * 100) / 100;
    if (error) {
      // An error object may hold anything: through the request's logger and its redaction.
      reply.log.error({ route, method: request.method, http: reply.statusCode, status: reply.bodyStatus, ms, err: error }, 'answer failed');
    } else {
      this.answered(request.id, route, request.method, reply.statusCode, reply.bodyStatus, ms);
    }
  }

  /** The access line of an answer (also of those the answer lane writes outside Fastify: src/http/lane.ts). */
  answered(reqId: string, route: string, method: string, http: number, status: number | null, ms: number): void {
    this.access.info({ reqId, route, method, http, status, ms }, 'answered');
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
