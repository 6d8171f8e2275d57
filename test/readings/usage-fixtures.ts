import { daysOfIsoDate } from '../../src/readings/calendar.js';
import { UsageModel } from '../../src/readings/generator.js';
import { YearTotals } from '../../src/readings/model-sums.js';
import { LocationUsage, type ExtraFlow, type UsageScale } from '../../src/readings/rollup.js';
import { ZoneOffsets } from '../../src/readings/zone.js';
import type { UsageProfile } from '../../src/store/data.js';

/** The demo location's profile (fixtures/default.json, Maple Street Home). */
export const FAMILY_PROFILE: UsageProfile = {
  householdSize: 4,
  irrigation: { months: [5, 6, 7, 8, 9], startHour: 5, gallonsPerDay: 120, weekdays: [1, 3, 5] },
};

/** Zones for property tests: whole-hour, half- and quarter-hour offsets, both hemispheres, midnight transitions, off-grid transitions. */
export const ZONES = [
  'America/New_York',
  'America/Los_Angeles',
  'America/Phoenix',
  'Europe/London',
  'Australia/Sydney',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Pacific/Chatham',
  'America/Havana',
  'Africa/Cairo',
  'UTC',
] as const;

const offsetsByZone = new Map<string, ZoneOffsets>();
const zoneOffsets = (zone: string): ZoneOffsets => {
  let offsets = offsetsByZone.get(zone);
  if (!offsets) offsetsByZone.set(zone, (offsets = new ZoneOffsets(zone)));
  return offsets;
};

export function usageFor(
  zone: string,
  options: {
    installDate?: string;
    profile?: UsageProfile;
    seed?: number;
    locationId?: string;
    cache?: boolean;
    flows?: ExtraFlow[];
    scales?: UsageScale[];
  } = {},
): LocationUsage {
  const locationId = options.locationId ?? '2311f461-b957-4b4f-ad46-fe7cd7964881';
  return new LocationUsage({
    model: new UsageModel(options.seed ?? 1, locationId, options.profile ?? FAMILY_PROFILE),
    offsets: zoneOffsets(zone),
    installDay: daysOfIsoDate(options.installDate ?? '2000-01-01'),
    scales: options.scales ?? [],
    flows: options.flows ?? [],
    totals: options.cache === false ? undefined : new YearTotals(),
  });
}

export const at = (iso: string): number => {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad instant in test: ${iso}`);
  return ms;
};
