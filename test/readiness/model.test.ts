import { EVIDENCE_REQUEST_LIMIT, requestLine } from '../../src/readiness/model.js';
import type { JournalEntry } from '../../src/store/data.js';

const entry = (path: string, query: Record<string, unknown>): JournalEntry => ({
  accountId: 'a',
  method: 'GET',
  path,
  query,
  status: 200,
  time: '2026-03-10T15:30:00.000Z',
  durationMs: 1,
  auth: 'api_key',
});

describe('requestLine (what a piece of readiness evidence shows of its request)', () => {
  it('is the method, path and query as the client sent them', () => {
    expect(
      requestLine(entry('/v1/locations/l1/readings/water-usage', { groupBy: 'day', page: '2', tag: ['a', 'b'] })),
    ).toBe('GET /v1/locations/l1/readings/water-usage?groupBy=day&page=2&tag=a&tag=b');
  });

  it('is cut at EVIDENCE_REQUEST_LIMIT characters, so the digest of an account stays small whatever its requests', () => {
    const line = requestLine(entry('/v1/locations/l1', { startTime: 'x'.repeat(2000) }));
    expect(line).toHaveLength(EVIDENCE_REQUEST_LIMIT + 1);
    expect(line.endsWith('…')).toBe(true);
    expect(line.startsWith('GET /v1/locations/l1?startTime=xxx')).toBe(true);
  });
});
