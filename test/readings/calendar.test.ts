import fc from 'fast-check';

import { civilFromDays, daysFromCivil, formatLocalIso, HOUR_MS, weekdayOfDays } from '../../src/readings/calendar.js';

describe('civil calendar arithmetic', () => {
  it('agrees with Date.UTC for any day between the years 1600 and 2400', () => {
    fc.assert(
      fc.property(fc.integer({ min: daysFromCivil(1600, 1, 1), max: daysFromCivil(2400, 1, 1) }), (days) => {
        const date = new Date(days * 86_400_000);
        const civil = civilFromDays(days);
        expect(civil).toEqual({ year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() });
        expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
        expect(weekdayOfDays(days)).toBe(date.getUTCDay());
      }),
    );
  });

  it('formats an instant with a negative, positive and fractional offset', () => {
    const instant = Date.UTC(2018, 10, 19, 15, 0, 0);
    expect(formatLocalIso(instant, -5 * HOUR_MS)).toBe('2018-11-19T10:00:00-05:00');
    expect(formatLocalIso(instant, 5.5 * HOUR_MS)).toBe('2018-11-19T20:30:00+05:30');
    expect(formatLocalIso(instant, 0)).toBe('2018-11-19T15:00:00+00:00');
    expect(formatLocalIso(Date.UTC(2026, 0, 1, 2, 0, 0), -5 * HOUR_MS)).toBe('2025-12-31T21:00:00-05:00');
  });
});
