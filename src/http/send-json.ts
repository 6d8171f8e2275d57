import type { Response } from 'express';

/**
 * Sends JSON that is text already (a memo's), exactly as res.json would send the value it was
 * made from: the same Content-Type (charset included) unless one is set, the same bytes, through
 * the same res.send.
 */
export function sendJsonText(res: Response, json: string): void {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(json);
}
