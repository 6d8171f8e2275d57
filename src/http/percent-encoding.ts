import type { RequestHandler } from 'express';

import { AppError } from '../core/errors.js';

/** Where a text stops being valid percent-encoding (RFC 3986 section 2.1, with UTF-8 bytes as RFC 3987 expects). */
export interface PercentEncodingProblem {
  /** 0-based index of the offending "%" in the text. */
  index: number;
  /** The offending characters: "%", "%G1", or a run of escapes such as "%E0%A4". */
  sequence: string;
  /** What is wrong with it, as the end of a sentence. */
  rule: string;
}

const ESCAPE = /%[0-9A-Fa-f]{2}/y;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The first place where `text` is not valid percent-encoding: a "%" not followed by two hex
 * digits, or a run of escapes whose bytes are not UTF-8 text. Null when `decodeURIComponent`
 * would decode it. Malformed escapes are reported before bad bytes, since a truncated escape
 * (`%E0%A4%A`) usually explains the bad bytes in front of it.
 */
export function findPercentEncodingProblem(text: string): PercentEncodingProblem | null {
  for (let i = text.indexOf('%'); i >= 0; i = text.indexOf('%', i + 1)) {
    ESCAPE.lastIndex = i;
    if (!ESCAPE.test(text)) {
      return {
        index: i,
        sequence: text.slice(i, i + 3).replace(/^(%[^%]*).*$/s, '$1'),
        rule: 'is not a %XX escape (a "%" starts two hexadecimal digits; write a literal "%" as "%25")',
      };
    }
  }
  for (let i = text.indexOf('%'); i >= 0;) {
    let end = i;
    const bytes: number[] = [];
    while (text[end] === '%') {
      bytes.push(Number.parseInt(text.slice(end + 1, end + 3), 16));
      end += 3;
    }
    try {
      UTF8.decode(Uint8Array.from(bytes));
    } catch {
      return {
        index: i,
        sequence: text.slice(i, end),
        rule: 'is not UTF-8 (percent-encode the UTF-8 bytes of each character)',
      };
    }
    i = text.indexOf('%', end);
  }
  return null;
}

const invalidEncoding = (
  where: string,
  problem: PercentEncodingProblem,
  position: string,
  parameter?: string,
): AppError =>
  new AppError(
    400,
    'invalid_percent_encoding',
    `${where} is not valid percent-encoding: ${JSON.stringify(problem.sequence)} at character ${position} ${problem.rule}`,
    {
      ...(parameter === undefined ? {} : { details: { parameter } }),
    },
  );

function queryProblem(query: string): AppError | null {
  let offset = 0;
  for (const pair of query.split('&')) {
    const equals = pair.indexOf('=');
    const rawKey = equals < 0 ? pair : pair.slice(0, equals);
    const keyProblem = findPercentEncodingProblem(rawKey);
    if (keyProblem) return invalidEncoding('The query string', keyProblem, String(offset + keyProblem.index + 1));
    const valueProblem = equals < 0 ? null : findPercentEncodingProblem(pair.slice(equals + 1));
    if (valueProblem) {
      const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      const position = `${offset + equals + 1 + valueProblem.index + 1} of the query string`;
      return invalidEncoding(`The value of query parameter ${JSON.stringify(key)}`, valueProblem, position, key);
    }
    offset += pair.length + 1;
  }
  return null;
}

/**
 * Refuses, with a 400 that says where, a request whose path or query is not valid
 * percent-encoding, on every route and before authentication. Without it, Express's router
 * fails while decoding a route parameter, and its query parser silently turns bad escapes
 * into replacement characters.
 */
export const rejectMalformedPercentEncoding: RequestHandler = (req, _res, next) => {
  const url = req.url;
  if (!url.includes('%')) {
    next();
    return;
  }
  const queryStart = url.indexOf('?');
  const path = queryStart < 0 ? url : url.slice(0, queryStart);
  const pathProblem = findPercentEncodingProblem(path);
  if (pathProblem) throw invalidEncoding('The path', pathProblem, String(pathProblem.index + 1));
  const problem = queryStart < 0 ? null : queryProblem(url.slice(queryStart + 1));
  if (problem) throw problem;
  next();
};

/**
 * The same 400 for the URIError Express's router raises when a route parameter does not
 * decode ("Failed to decode param '<value>'"), should a route ever be reached without the
 * middleware above.
 */
export function fromParameterDecoding(error: unknown): AppError | null {
  if (!(error instanceof URIError) || (error as URIError & { status?: number }).status !== 400) return null;
  const segment = /'(.*)'$/s.exec(error.message)?.[1];
  const problem = segment === undefined ? null : findPercentEncodingProblem(segment);
  if (segment === undefined || !problem)
    return new AppError(400, 'invalid_percent_encoding', 'The path is not valid percent-encoding');
  return new AppError(
    400,
    'invalid_percent_encoding',
    `The path is not valid percent-encoding: ${JSON.stringify(problem.sequence)} at character ${problem.index + 1} of the segment ${JSON.stringify(segment)} ${problem.rule}`,
  );
}
