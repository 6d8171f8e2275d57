import type { Logger } from '../../src/core/logger.js';

/** One line a recording logger was given: its level, message and fields. */
export interface LoggedLine {
  level: string;
  msg: string;
  fields: Record<string, unknown> | undefined;
}

/** A logger that keeps every line at info, warn and error in `lines` (debug lines are dropped); its children log into the same list. */
export function recordingLogger(lines: LoggedLine[]): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, fields });
  const logger: Logger = {
    debug: () => {},
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: () => logger,
  };
  return logger;
}
