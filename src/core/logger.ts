import { systemClock, type Clock } from './clock.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

/** Structured JSON logs, one object per line. `time` is the process clock's, not an account's virtual time. */
export function createJsonLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
  bound: Record<string, unknown> = {},
  clock: Clock = systemClock,
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const emit = (lvl: LogLevel, msg: string, fields: Record<string, unknown> = {}): void => {
    if (LOG_LEVELS.indexOf(lvl) < threshold) return;
    write(JSON.stringify({ time: clock.now().toISOString(), level: lvl, msg, ...bound, ...fields }, errorReplacer));
  };
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
    child: (fields) => createJsonLogger(level, write, { ...bound, ...fields }, clock),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;
}

export const silentLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
