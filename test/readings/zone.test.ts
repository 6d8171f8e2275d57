import fc from 'fast-check';

import { ZoneOffsets, ZoneOffsetsCache } from '../../src/readings/zone.js';
import { at, ZONES } from './usage-fixtures.js';

/** The offset straight from Intl, field by field, as an independent check. */
function intlOffset(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  const local = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return local - Math.floor(ms / 1000) * 1000;
}

describe('ZoneOffsets', () => {
  it('gives the same offset as Intl at any instant from 1990 to 2040, in every test zone', () => {
    const zones = new Map(ZONES.map((z) => [z, new ZoneOffsets(z)]));
    fc.assert(
      fc.property(
        fc.constantFrom(...ZONES),
        fc.integer({ min: at('1990-01-01T00:00:00Z'), max: at('2040-01-01T00:00:00Z') }),
        (zone, ms) => {
          expect(zones.get(zone)!.offsetAt(ms)).toBe(intlOffset(zone, ms));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds New York daylight-saving transitions to the second', () => {
    const ny = new ZoneOffsets('America/New_York');
    expect(ny.transitionsDuring(at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toEqual([
      at('2026-03-08T07:00:00Z'),
      at('2026-11-01T06:00:00Z'),
    ]);
    expect(ny.offsetAt(at('2026-03-08T06:59:59Z'))).toBe(-5 * 3_600_000);
    expect(ny.offsetAt(at('2026-03-08T07:00:00Z'))).toBe(-4 * 3_600_000);
  });

  it('keeps at most the configured number of zones in its memo, dropping the oldest', () => {
    const cache = new ZoneOffsetsCache(2);
    const newYork = cache.get('America/New_York');
    const london = cache.get('Europe/London');
    expect(cache.get('America/New_York')).toBe(newYork);
    cache.get('Asia/Tokyo');
    expect(cache.get('Europe/London')).toBe(london);
    expect(cache.get('America/New_York')).not.toBe(newYork);
  });
});
