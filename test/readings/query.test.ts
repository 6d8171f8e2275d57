import { MAX_RANGE_DAYS, parseReadingsQuery, parseTime, resolveRange } from '../../src/readings/query.js';
import { errorOf } from '../helpers/errors.js';
import { at } from './usage-fixtures.js';

describe('parseTime', () => {
  it.each([
    ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00Z', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T05:00:00+05:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T05:00:00 05:00', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T05:30:00 0530', '2026-01-01T00:00:00.000Z'],
    ['2025-12-31T19:00:00-05', '2026-01-01T00:00:00.000Z'],
    ['2026-01-01T00:00:00.123456Z', '2026-01-01T00:00:00.123Z'],
    ['2026-01-01T00:00:00,5Z', '2026-01-01T00:00:00.500Z'],
    ['1767225600', '2026-01-01T00:00:00.000Z'],
    ['1767225600.25', '2026-01-01T00:00:00.250Z'],
    ['0', '1970-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, expected) => {
    expect(new Date(parseTime('startTime', text)).toISOString()).toBe(expected);
  });

  it.each([
    ['yesterday', 'must be ISO 8601'],
    ['2026-01-01', 'must be ISO 8601'],
    ['2026-01-01 00:00:00Z', 'must be ISO 8601'],
    ['2026-01-01T00:00:00', 'needs a UTC offset'],
    ['2026-02-30T00:00:00Z', 'not a real date'],
    ['2026-01-01T24:00:00Z', 'not a real date'],
    ['2026-01-01T00:00:60Z', 'not a real date'],
    ['2026-01-01T00:00:00+24:00', 'impossible UTC offset'],
    ['1767225600000', 'looks like epoch milliseconds'],
    ['-5', 'must be ISO 8601'],
    ['', 'must be ISO 8601'],
  ])('refuses %j with a message about the rule (%s)', (text, rule) => {
    const error = errorOf(() => parseTime('endTime', text));
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ parameter: 'endTime' });
    expect(error.message).toContain('endTime');
    expect(error.message).toContain(rule);
  });
});

describe('parseReadingsQuery', () => {
  it('applies the defaults: hour, page 1, perPage 50, no endTime', () => {
    expect(parseReadingsQuery({ startTime: '0' })).toEqual({
      startMs: 0,
      endMs: null,
      groupBy: 'hour',
      page: 1,
      perPage: 50,
    });
  });

  it('points at the right name when startTime is sent in another case', () => {
    const error = errorOf(() => parseReadingsQuery({ starttime: '0' }));
    expect(error.message).toContain('startTime is required');
    expect(error.message).toContain('"starttime"');
  });
});

describe('resolveRange', () => {
  const now = at('2026-03-10T15:30:00Z');
  const query = (startTime: string, endTime?: string): ReturnType<typeof parseReadingsQuery> =>
    parseReadingsQuery(endTime === undefined ? { startTime } : { startTime, endTime });

  it('defaults endTime to now and clamps a later endTime to now', () => {
    expect(resolveRange(query('2026-03-10T00:00:00Z'), now)).toEqual({ fromMs: at('2026-03-10T00:00:00Z'), toMs: now });
    expect(resolveRange(query('2026-03-10T00:00:00Z', '2030-01-01T00:00:00Z'), now)).toEqual({
      fromMs: at('2026-03-10T00:00:00Z'),
      toMs: now,
    });
  });

  it('answers a range wholly in the future with an empty range', () => {
    const { fromMs, toMs } = resolveRange(query('2027-01-01T00:00:00Z', '2028-01-01T00:00:00Z'), now);
    expect(toMs).toBe(fromMs);
  });

  it(`accepts ${MAX_RANGE_DAYS} days and refuses one more`, () => {
    const start = now - MAX_RANGE_DAYS * 86_400_000;
    expect(() => resolveRange(query(String(start / 1000)), now)).not.toThrow();
    const error = errorOf(() => resolveRange(query(String(start / 1000 - 86_400)), now));
    expect(error.details).toEqual({ parameter: 'startTime' });
    expect(error.message).toContain(`at most ${MAX_RANGE_DAYS} days`);
  });
});
