/** The LOG_LEVEL values, apart from the logger: the configuration (and the healthcheck's bundle) needs them, not pino. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
