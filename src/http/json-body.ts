import { finished } from 'node:stream';

import express, { type Request, type RequestHandler } from 'express';

import { AppError } from '../core/errors.js';

/** Deeper bodies are refused: JSON.stringify and structuredClone overflow the stack a few thousand levels down. */
export const MAX_JSON_DEPTH = 64;

const MAX_FORM_PARAMETERS = 1000;

/** application/json and any application/<something>+json. */
const isJsonMediaType = (contentType: string): boolean =>
  /^\s*application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType);

const isFormMediaType = (contentType: string): boolean =>
  /^\s*application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType);

/** The 413 of a body over the limit (what body-parser's own 413 becomes too, see fromBodyParsing). */
const tooLarge = (limit: number): AppError =>
  new AppError(413, 'payload_too_large', `The request body exceeds the limit of ${limit} bytes`);

/**
 * Reads a body nobody parses to its end and drops it, then goes on, or answers 413 when it was
 * over `limit` (`over`: it said so itself). Read to its end before answering: a server that
 * answers and closes while the client is still sending makes the client see a reset instead of
 * the answer. A client that goes away meanwhile gets nothing: there is no one to answer.
 */
function drain(req: Request, limit: number, next: (error?: unknown) => void, over = false): void {
  let size = 0;
  let tooBig = over;
  req.on('data', (chunk: Buffer) => {
    size += chunk.byteLength;
    if (size > limit) tooBig = true;
  });
  finished(req, (error) => {
    if (error === undefined || error === null) next(tooBig ? tooLarge(limit) : undefined);
  });
  req.resume();
}

function hasBody(req: Request): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && Number(length) > 0;
}

/** Whether a parsed JSON value nests arrays and objects deeper than `limit`; walked without recursion, which is what overflows. */
function depthExceeds(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

function mediaTypeOf(contentType: string): string {
  const essence = contentType.replace(/;.*$/s, '').trim().toLowerCase();
  return /^[\w.+-]+\/[\w.+-]+$/.test(essence) ? essence : JSON.stringify(contentType.slice(0, 100));
}

/** 415 for a body sent as something other than JSON where only JSON is read. */
function notJson(contentType: string): AppError {
  const type = mediaTypeOf(contentType);
  const sentAs = type === 'application/x-www-form-urlencoded' ? `${type} (what curl -d sends)` : type;
  return new AppError(
    415,
    'unsupported_media_type',
    `The request body is sent as ${sentAs}, but this API reads JSON bodies only: send the header "Content-Type: application/json" ` +
      `(with curl: -H 'Content-Type: application/json', or --json '<body>' in curl 7.82+)`,
    // RFC 9110 section 15.5.16: Accept names the media types that would have been accepted.
    { headers: { Accept: 'application/json' } },
  );
}

/**
 * Request body parsing for the whole app. A body sent with GET or HEAD is read and ignored.
 * Under `jsonOnlyUnder` (the API: /v1, /sandbox) a body is JSON: declared as JSON, or sent with
 * no Content-Type at all; a non-empty body of any other type is a 415, and an
 * empty one is no body. Elsewhere (the login forms, the token endpoint) form bodies are read
 * as well. Either way a JSON body nested deeper than MAX_JSON_DEPTH is a 400.
 */
export function parseBodies(options: { limitBytes: number; jsonOnlyUnder: string[] }): RequestHandler {
  const jsonOnly = new RegExp(
    `^(${options.jsonOnlyUnder.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(/|$)`,
    'i',
  );
  const limit = options.limitBytes;
  // As Express's RequestHandler: body-parser types them for a bare IncomingMessage.
  const readJson: RequestHandler = express.json({ limit, type: () => true, strict: false });
  const readForm: RequestHandler = express.urlencoded({ limit, extended: false, parameterLimit: MAX_FORM_PARAMETERS });
  const readBytes: RequestHandler = express.raw({ limit, type: () => true });

  const json: RequestHandler = (req, res, next) => {
    readJson(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      if (depthExceeds(req.body, MAX_JSON_DEPTH)) {
        next(
          new AppError(
            400,
            'invalid_json',
            `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; this API accepts at most ${MAX_JSON_DEPTH}`,
          ),
        );
        return;
      }
      next();
    });
  };

  return (req, res, next) => {
    // Over the limit by its own account: refused before a byte is parsed, whatever its type.
    if (Number(req.headers['content-length']) > limit) {
      drain(req, limit, next, true);
      return;
    }
    const contentType = req.headers['content-type'];
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (hasBody(req)) drain(req, limit, next);
      else next();
    } else if (contentType === undefined) {
      // Many scripts send JSON without declaring it.
      if (hasBody(req)) json(req, res, next);
      else next();
    } else if (isJsonMediaType(contentType)) {
      json(req, res, next);
    } else if (!jsonOnly.test(req.path)) {
      if (isFormMediaType(contentType)) readForm(req, res, next);
      else if (hasBody(req)) drain(req, limit, next);
      else next();
    } else if (!hasBody(req)) {
      next();
    } else if (req.headers['transfer-encoding'] === undefined) {
      next(notJson(contentType));
    } else {
      // A chunked body may still turn out empty; read it to know.
      readBytes(req, res, (error?: unknown) => {
        if (error !== undefined) {
          next(error);
          return;
        }
        const empty = !Buffer.isBuffer(req.body) || req.body.length === 0;
        req.body = undefined;
        next(empty ? undefined : notJson(contentType));
      });
    }
  };
}

interface HttpError extends Error {
  type?: string;
  status?: number;
  expose?: boolean;
  limit?: number;
}

/**
 * The errors body-parser raises, as AppErrors with a sentence a client can act on; null for
 * anything else. Other 4xx errors of the http-errors kind (status and expose set, as
 * body-parser sets them on a body that fails to decompress) keep their status.
 */
export function fromBodyParsing(error: unknown): AppError | null {
  if (!(error instanceof Error)) return null;
  const { type, status, expose, limit } = error as HttpError;
  switch (type) {
    case 'entity.parse.failed':
      return new AppError(400, 'invalid_json', `The request body is not valid JSON: ${error.message}`);
    case 'entity.too.large':
      return limit === undefined
        ? new AppError(413, 'payload_too_large', 'The request body exceeds the allowed size')
        : tooLarge(limit);
    case 'parameters.too.many':
      return new AppError(413, 'payload_too_large', `The form body has more than ${MAX_FORM_PARAMETERS} parameters`);
    case 'charset.unsupported':
      return new AppError(
        415,
        'unsupported_media_type',
        `The request body's charset is not supported (${error.message}); send UTF-8`,
      );
    case 'encoding.unsupported':
      return new AppError(
        415,
        'unsupported_media_type',
        `The request body's Content-Encoding is not supported (${error.message}); send it uncompressed, or as gzip, deflate or br`,
        {
          headers: { 'Accept-Encoding': 'gzip, deflate, br' },
        },
      );
    case 'request.aborted':
      return new AppError(400, 'request_aborted', 'The request body was not completely received');
    case 'request.size.invalid':
      return new AppError(400, 'invalid_body', 'The request body is not as long as its Content-Length header says');
    default:
      if (typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
        return new AppError(status, 'invalid_body', `The request body could not be read: ${error.message}`);
      }
      return null;
  }
}
