import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';

import type { Logger } from '../core/logger.js';
import { maybeAuthOf } from './request-context.js';

/**
 * One log line per request with pino-http: method, path, status, duration and the account,
 * with credentials redacted. Loggers without pino (tests) get no request lines.
 */
export function requestLog(logger: Logger): RequestHandler {
  if (!logger.pino) return (_req, _res, next) => next();
  return pinoHttp({
    logger: logger.pino,
    customSuccessMessage: () => 'request',
    customErrorMessage: () => 'request',
    // Called when the request starts and again when it ends; the account is known only then.
    customProps: (_req, res) => {
      const accountId = maybeAuthOf(res as Parameters<typeof maybeAuthOf>[0])?.accountId;
      return accountId === undefined ? {} : { accountId };
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      // A confirmation token in a URL is a credential: it never reaches the log.
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url.replace(/(confirmationToken=?)[^&]*/g, '$1[redacted]') }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    quietReqLogger: true,
  });
}
