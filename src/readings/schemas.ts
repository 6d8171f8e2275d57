import { z } from 'zod';

import { MAX_PER_PAGE } from '../http/schemas.js';

const gallons = z.number().meta({ description: 'US gallons, with three decimals.' });

/** Production's readings envelope: the list envelope plus units, exactly its keys. */
export const ReadingsEnvelope = z
  .strictObject({
    page: z.int().min(1),
    perPage: z.int().min(1).max(MAX_PER_PAGE),
    pageCount: z
      .int()
      .min(0)
      .meta({ description: 'Number of pages; a number, as production sends it (documented as a string).' }),
    total: z.int().min(0).meta({ description: 'Number of buckets over all pages.' }),
    readings: z.array(
      z
        .strictObject({
          time: z.string().meta({
            format: 'date-time',
            description: "Start of the bucket, ISO 8601 with the location's UTC offset (2026-03-01T00:00:00-05:00).",
          }),
          volume: gallons.min(0).meta({ description: 'Gallons used in the bucket (0 when none).' }),
        })
        .meta({ description: "One bucket: production's Reading." }),
    ),
    units: z.literal('gallons'),
  })
  .meta({ description: "Water usage buckets of a location: production's envelope, exactly its keys." });

/** Production's summary, exactly its keys. */
export const UsageSummary = z
  .strictObject({
    today: gallons.meta({ description: "Gallons since the location's local midnight." }),
    thisMonth: gallons,
    thisYear: gallons,
    units: z.literal('gallons'),
  })
  .meta({
    description:
      "Usage of today, this month and this year in the location's time zone: production's summary, exactly its keys.",
  });

export type ReadingsEnvelope = z.output<typeof ReadingsEnvelope>;
export type UsageSummary = z.output<typeof UsageSummary>;
