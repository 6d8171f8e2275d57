import type { Response } from 'express';

/** The Content-Type res.json sends: Express adds the charset to every text body it sends. */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON made already (a memo's), as UTF-8 bytes, exactly as res.json sends the value it
 * was made from: the same Content-Type, Content-Length and bytes, through the same res.send.
 * Bytes, not text: Express encodes a text body again for each request.
 */
export function sendJsonBytes(res: Response, body: Buffer): void {
  res.set('Content-Type', JSON_CONTENT_TYPE);
  res.send(body);
}
