import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';

import type { LogLevel } from './log-levels.js';

export { LOG_LEVELS, type LogLevel } from './log-levels.js';

/** Structured logs: a message and its fields. Features log through this; tests pass a recording one. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  /** The pino logger behind it, for the request log; absent for loggers made in tests. */
  readonly pino?: PinoLogger;
}

/** Secrets never reach a log line, whatever object carries them. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.clientSecret',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.accessToken',
  '*.refreshToken',
  '*.apiKey',
  '*.confirmationToken',
];

function wrap(logger: PinoLogger): Logger {
  return {
    debug: (msg, fields) => logger.debug(fields ?? {}, msg),
    info: (msg, fields) => logger.info(fields ?? {}, msg),
    warn: (msg, fields) => logger.warn(fields ?? {}, msg),
    error: (msg, fields) => logger.error(fields ?? {}, msg),
    child: (fields) => wrap(logger.child(fields)),
    pino: logger,
  };
}

/** Lines are written once this many bytes wait, or at the latest after LOG_FLUSH_MS. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 100;

/**
 * Where the logs go (stdout, fd 1): asynchronously, so a slow terminal or pipe never blocks a
 * request, and in batches: a write for each request's line cost a location GET about 8 % of
 * its CPU (docs/benchmarks.md); a line waits at most LOG_FLUSH_MS, and what waits at exit is
 * written then (pino flushes it synchronously).
 */
export function logDestination(dest: number | string = 1): DestinationStream {
  return pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
}

/**
 * pino's isoTime (`,"time":"<ISO 8601>"`), the text made once a millisecond: a busy sandbox writes
 * several request lines a millisecond, and formatting the date for each was about 1 % of a
 * location GET's CPU (docs/benchmarks.md). The lines are byte for byte the same.
 */
export function isoTimeOncePerMillisecond(now: () => number = Date.now): () => string {
  let madeAtMs = Number.NaN;
  let made = '';
  return () => {
    const ms = now();
    if (ms !== madeAtMs) {
      madeAtMs = ms;
      made = `,"time":"${new Date(ms).toISOString()}"`;
    }
    return made;
  };
}

/**
 * JSON logs with pino, one object per line on stdout (logDestination); `flushLogger` before
 * exit. `time` is the wall clock's, not an account's virtual time.
 */
export function createLogger(level: LogLevel, destination: DestinationStream = logDestination()): Logger {
  return wrap(
    pino(
      {
        level,
        base: null,
        timestamp: isoTimeOncePerMillisecond(),
        formatters: { level: (label) => ({ level: label }) },
        redact: { paths: REDACT, censor: '[redacted]' },
        serializers: { err: pino.stdSerializers.err },
      },
      destination,
    ),
  );
}

/**
 * The same logger, for lines whose fields are all strings and numbers (the request log line).
 * The redaction paths only reach into objects, so they never change such a line; yet pino runs
 * its redaction of every path on every field of every line, which was most of the request
 * line's cost (about a tenth of a plain request's instructions). The lines are byte for byte
 * the same; a logger without pino (tests) is returned as it is.
 */
export function forPlainFields(logger: Logger): Logger {
  return logger.pino ? wrap(logger.pino.child({}, { redact: [] })) : logger;
}

/** Writes what the logger buffered; call before the process exits. */
export function flushLogger(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    if (!logger.pino) {
      resolve();
      return;
    }
    logger.pino.flush(() => resolve());
  });
}

/** Writes nothing: a pino logger at level silent, so what checks the level (the request log) skips its work too. */
export const silentLogger: Logger = wrap(pino({ level: 'silent' }, { write: () => undefined }));
