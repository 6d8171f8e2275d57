import { operationsTagged } from '../http/operation.js';
import { examplePage, NO_SUCH_LOCATION } from '../http/schemas.js';
import { ReadingsQuerySchema } from './query.js';
import { ReadingsEnvelope, UsageSummary } from './schemas.js';

const operation = operationsTagged('Readings', 'account');

export const getWaterUsageOp = operation('getWaterUsage', 'GET /v1/locations/{locationId}/readings/water-usage', {
  summary: 'Water usage over a range, by hour, day, month or year',
  description:
    "Buckets from startTime to endTime (default now), in the location's time zone, empty ones included with volume 0. " +
    'Synthetic and deterministic: the same SEED gives the same readings on every machine; leak alerts add their flow. See docs/readings.md.',
  query: ReadingsQuerySchema,
  queryExample: { startTime: '2026-03-01T00:00:00Z', groupBy: 'day', perPage: '31' },
  responses: {
    200: {
      description: 'A page of buckets.',
      schema: ReadingsEnvelope,
      example: {
        ...examplePage(
          'readings',
          [
            { time: '2026-03-01T00:00:00-05:00', volume: 212.481 },
            { time: '2026-03-02T00:00:00-05:00', volume: 198.07 },
          ],
          2,
          10,
        ),
        units: 'gallons',
      },
    },
  },
  errors: {
    400: 'invalid_parameter: startTime missing or not valid, endTime not valid or before startTime, groupBy not one of hour, day, month, year, page or perPage not valid, or a range over 20 years.',
    404: NO_SUCH_LOCATION,
    422: "unsupported_time_zone: the location's zone changes between offsets whose minutes differ in the period (see docs/readings.md).",
  },
  sandbox:
    "Volumes have three decimals so that every sum is exact; the default perPage (50), the 20-year range limit and the refusal of a future startTime without endTime are the sandbox's choices where production documents none.",
});

export const getWaterUsageSummaryOp = operation(
  'getWaterUsageSummary',
  'GET /v1/locations/{locationId}/readings/water-usage/summary',
  {
    summary: 'Usage today, this month and this year',
    description: "In the location's time zone, up to the account clock's now.",
    responses: {
      200: {
        description: 'The summary.',
        schema: UsageSummary,
        example: { today: 101.254, thisMonth: 2012.33, thisYear: 14120.5, units: 'gallons' },
      },
    },
    errors: {
      404: NO_SUCH_LOCATION,
      422: 'unsupported_time_zone: see docs/readings.md.',
    },
    sandbox: "Production's summary shows unrounded floats; the sandbox's have three decimals.",
  },
);

export const readingsOperations = [getWaterUsageOp, getWaterUsageSummaryOp];
