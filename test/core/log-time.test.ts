import pino from 'pino';

import { isoTimeOncePerMillisecond } from '../../src/core/logger.js';

// The request log's time field, made once a millisecond: the same text pino's isoTime makes.

describe('isoTimeOncePerMillisecond', () => {
  it("answers pino's isoTime text for each millisecond, made again when the millisecond changes", () => {
    let nowMs = Date.parse('2026-11-26T17:04:05.006Z');
    const realNow = Date.now;
    const time = isoTimeOncePerMillisecond(() => nowMs);
    try {
      for (const step of [0, 0, 1, 999, 0, 86_400_000, 1]) {
        nowMs += step;
        Date.now = () => nowMs;
        expect(time()).toBe(pino.stdTimeFunctions.isoTime());
      }
    } finally {
      Date.now = realNow;
    }
    expect(time()).toBe(`,"time":"${new Date(nowMs).toISOString()}"`);
  });
});
