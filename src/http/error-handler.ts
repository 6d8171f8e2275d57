import type { ErrorRequestHandler, RequestHandler } from 'express';

import { AppError, OAuthError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

interface BodyParserError extends Error {
  type?: string;
  status?: number;
  limit?: number;
}

/** Errors that body-parser raises, as AppErrors with a sentence a client can act on. */
function fromBodyParser(error: BodyParserError): AppError | null {
  switch (error.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'invalid_json', `The request body is not valid JSON: ${error.message}`);
    case 'entity.too.large':
      return new AppError(413, 'payload_too_large', `The request body exceeds the limit of ${error.limit ?? 'the allowed'} bytes`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'unsupported_media_type', `The request body's encoding is not supported: ${error.message}`);
    case 'request.aborted':
      return new AppError(400, 'request_aborted', 'The request body was not completely received');
    default:
      return null;
  }
}

/** The only place error bodies are shaped. /v1 and /sandbox: {error, message, ...details}; the token endpoint: RFC 6749 {error, error_description}. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const appError = error instanceof AppError ? error : fromBodyParser(error as BodyParserError);
    if (res.headersSent) {
      logger.error('error after the response started', { path: req.path, err: error });
      res.end();
      return;
    }
    if (!appError) {
      logger.error('unexpected error', { method: req.method, path: req.path, err: error });
      res.status(500).json({ error: 'internal_error', message: 'The sandbox hit an unexpected error; it has been logged.' });
      return;
    }
    for (const [name, value] of Object.entries(appError.headers ?? {})) res.setHeader(name, value);
    // The token endpoint answers in RFC 6749 form whatever went wrong, body-parser errors included.
    if (appError instanceof OAuthError || (req.path === '/oauth2/token' && appError.expose)) {
      res.setHeader('Cache-Control', 'no-store');
      const code = appError instanceof OAuthError ? appError.code : 'invalid_request';
      res.status(appError.status).json({ error: code, error_description: appError.message });
      return;
    }
    const message = appError.expose ? appError.message : 'The sandbox hit an unexpected error; it has been logged.';
    if (!appError.expose) logger.error('server error', { method: req.method, path: req.path, err: appError });
    res.status(appError.status).json({ error: appError.code, message, ...(appError.details ?? {}) });
  };
}

export const notFoundHandler: RequestHandler = (req) => {
  throw new AppError(404, 'not_found', `No route ${req.method} ${req.path}; see the README for the routes this sandbox serves`);
};
