import { z } from 'zod';

import { ALERT_TYPES } from '../alerts/index.js';
import type { AlertType } from '../store/data.js';
import { formatPath } from '../store/fixtures.js';

/**
 * The scenario file format: the single source of truth. `scenarios/scenario.schema.json` is
 * generated from it (see `scenarioJsonSchema`), and a test keeps the two equal.
 */

const MAX_OFFSET_MS = 365 * 24 * 3600 * 1000;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const DURATION = /^\+?(?=\d)(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

/** "+1h30m" → 5400000; undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const [, d, h, m, s] = match;
  return (
    Number(d ?? 0) * UNIT_MS.d + Number(h ?? 0) * UNIT_MS.h + Number(m ?? 0) * UNIT_MS.m + Number(s ?? 0) * UNIT_MS.s
  );
}

const durationRule = 'must be a whole number of seconds, or a duration such as "+90s", "+2m", "+1h30m" or "+1d"';

const duration = z
  .union(
    [
      z
        .int(durationRule)
        .min(0, durationRule)
        .max(MAX_OFFSET_MS / 1000, 'must be at most one year (365 days)'),
      z.string().regex(DURATION, durationRule),
    ],
    { error: durationRule },
  )
  .transform((value, ctx) => {
    const ms = typeof value === 'number' ? value * 1000 : parseDuration(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: durationRule });
      return z.NEVER;
    }
    if (ms > MAX_OFFSET_MS) {
      ctx.addIssue({ code: 'custom', message: 'must be at most one year (365 days)' });
      return z.NEVER;
    }
    return ms;
  });

const at = duration.meta({
  description: 'When the step runs, from the start of the run: seconds, or "+90s", "+2m", "+1h30m", "+1d".',
});

/** Words for a prospect who is not an engineer: what the presenter view shows (src/demo). */
const storyText = (max: number, what: string) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .meta({ description: what });

const caption = storyText(
  200,
  'What this step means, in a sentence for a prospect who is not an engineer; the presenter view shows it as the step happens.',
).optional();

const label = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1 to 40 letters, digits, "_" or "-"')
  .meta({ description: 'A name for the alert within the scenario, so a later endAlert step can refer to it.' });

const device = z
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(99, 'must be at most 99')
  .meta({ description: 'Index of the device in the location (0 = its first device). Default 0.' });

const alertType = z.enum(ALERT_TYPES as [AlertType, ...AlertType[]], {
  error: `must be one of ${ALERT_TYPES.join(', ')}`,
});
const peakStatus = z.enum(['too_high', 'too_low'], { error: 'must be "too_high", "too_low" or null' }).nullable();

const startAlertStep = z
  .strictObject({
    at,
    caption,
    do: z.literal('startAlert'),
    alert: label,
    type: alertType,
    device: device.optional(),
    peakValue: z.number().optional().meta({
      description: 'The alert peakValue (gpm for leaks, °F or % otherwise). Default: a realistic value for the type.',
    }),
    peakStatus: peakStatus
      .optional()
      .meta({ description: 'null for leaks; "too_high" or "too_low" otherwise. Default: the type\'s usual one.' }),
    flowGpm: z.number().min(0, 'must be 0 or more').max(50, 'must be at most 50').optional().meta({
      description:
        'Leak flow added to the readings while the alert is active, in gallons per minute. Default: peakValue for leaks.',
    }),
  })
  .meta({ description: 'Start an alert at the location, as POST /sandbox/locations/{id}/alerts does.' });

const endAlertStep = z
  .strictObject({ at, caption, do: z.literal('endAlert'), alert: label })
  .meta({ description: 'End the alert a previous startAlert step of this run started.' });

const setHomeAwayStep = z
  .strictObject({
    at,
    caption,
    do: z.literal('setHomeAway'),
    homeAway: z.enum(['home', 'away'], { error: 'must be "home" or "away"' }),
  })
  .meta({ description: "Change the location's homeAway mode." });

const disconnectStep = z
  .strictObject({ at, caption, do: z.literal('disconnectDevice'), device: device.optional() })
  .meta({ description: 'Mark a device of the location as disconnected.' });

const reconnectStep = z
  .strictObject({ at, caption, do: z.literal('reconnectDevice'), device: device.optional() })
  .meta({ description: 'Mark a device of the location as connected again.' });

const setUsageStep = z
  .strictObject({
    at,
    caption,
    do: z.literal('setUsage'),
    scale: z.number().positive('must be more than 0').max(10, 'must be at most 10').meta({
      description: "Multiplier of the location's normal water use from this step on (1 = back to normal).",
    }),
    for: duration.optional().meta({ description: 'How long the change lasts; default: until a later setUsage step.' }),
  })
  .meta({ description: "Change the location's water use." });

const STEP_KINDS = ['startAlert', 'endAlert', 'setHomeAway', 'disconnectDevice', 'reconnectDevice', 'setUsage'];

const step = z.discriminatedUnion(
  'do',
  [startAlertStep, endAlertStep, setHomeAwayStep, disconnectStep, reconnectStep, setUsageStep],
  {
    // Every issue raised here, a refinement's included, whatever the map's type says.
    error: (issue: z.core.$ZodRawIssue) =>
      issue.code === 'invalid_union' || issue.code === 'invalid_type'
        ? `"do" must be one of ${STEP_KINDS.join(', ')}`
        : undefined,
  },
);

const expectedNotification = z.strictObject({
  type: alertType,
  active: z.boolean('must be true or false'),
  peakStatus: peakStatus.optional(),
});

export const scenarioFileSchema = z
  .strictObject({
    $schema: z.string().optional().meta({ description: 'Path or URL of this JSON Schema, for editors.' }),
    description: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
    title: storyText(
      80,
      'The story\'s title in the presenter view, e.g. "A leak while the family is away".',
    ).optional(),
    premise: storyText(
      300,
      'The situation in one sentence for a prospect who is not an engineer; the presenter view shows it before the story plays.',
    ).optional(),
    startsAt: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day, hours and minutes, such as "02:10"')
      .optional()
      .meta({
        description:
          'The time of day the story starts at in the presenter view, in the location\'s zone (the last such time before now), so that "2:14 AM" reads the same every time; the current minute when absent.',
      }),
    steps: z.array(step).min(1, 'must list at least one step').max(1000, 'must list at most 1000 steps'),
    expect: z
      .strictObject({
        notifications: z.array(expectedNotification).meta({
          description:
            'The alert notifications, in order, that each confirmed subscription of the location receives when the run completes.',
        }),
      })
      .meta({ description: 'What the scenario must produce; the test suite plays every scenario file and checks it.' }),
  })
  .superRefine((file, ctx) => {
    const open = new Set<string>();
    let previousMs = 0;
    file.steps.forEach((s, index) => {
      if (s.at < previousMs) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', index, 'at'],
          message: 'steps must be in time order: this one is earlier than the step before it',
        });
      }
      previousMs = Math.max(previousMs, s.at);
      if (s.do === 'startAlert') {
        if (open.has(s.alert)) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', index, 'alert'],
            message: `alert "${s.alert}" is still active; end it first or use another name`,
          });
        }
        open.add(s.alert);
      } else if (s.do === 'endAlert') {
        if (!open.has(s.alert)) {
          ctx.addIssue({
            code: 'custom',
            path: ['steps', index, 'alert'],
            message: `no earlier startAlert step started an active alert "${s.alert}"`,
          });
        }
        open.delete(s.alert);
      }
    });
  })
  .meta({
    title: 'water-sandbox scenario',
    description:
      'A scripted timeline of alerts and location changes, played by POST /sandbox/scenarios/{name}/runs. The scenario name is the file name without .json.',
  });

export type ScenarioFile = z.output<typeof scenarioFileSchema>;
export type ScenarioStep = ScenarioFile['steps'][number];

export interface Scenario {
  name: string;
  /** The file it was read from. */
  file: string;
  description: string;
  /** Its story, for the presenter view (src/demo): absent in a file that does not tell one. */
  title?: string;
  premise?: string;
  /** "02:10": the local time of day its story starts at. */
  startsAt?: string;
  /** Each step's `at` is milliseconds from the start of the run. */
  steps: ScenarioStep[];
  expect: ScenarioFile['expect'];
  /** The offset of the last step. */
  durationMs: number;
}

export type ScenarioCatalog = ReadonlyMap<string, Scenario>;

export const SCENARIO_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Parses one scenario file's text; problems name the file and the JSON path. */
export function parseScenarioFile(
  file: string,
  name: string,
  text: string,
): { scenario: Scenario | null; problems: string[] } {
  const problems: string[] = [];
  if (!SCENARIO_NAME.test(name)) {
    problems.push(
      `${file}: the file name must be 1 to 64 letters, digits, "_" or "-" before .json (it is the scenario name, used in URLs)`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { scenario: null, problems: [...problems, `${file}: not valid JSON (${(error as Error).message})`] };
  }
  const parsed = scenarioFileSchema.safeParse(json);
  if (!parsed.success) {
    problems.push(
      ...parsed.error.issues.map((issue) => `${file}: ${formatPath(issue.path) || '(root)'}: ${issue.message}`),
    );
  }
  if (!parsed.success || problems.length > 0) return { scenario: null, problems };
  const { description, title, premise, startsAt, steps, expect } = parsed.data;
  return {
    scenario: {
      name,
      file,
      description,
      ...(title === undefined ? {} : { title }),
      ...(premise === undefined ? {} : { premise }),
      ...(startsAt === undefined ? {} : { startsAt }),
      steps,
      expect,
      durationMs: Math.max(0, ...steps.map((s) => s.at)),
    },
    problems: [],
  };
}

/** The JSON Schema of scenario files, generated from the zod schema (input side: what a file contains). */
export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scenarioFileSchema, { io: 'input', target: 'draft-2020-12' });
}

/** The text of scenarios/scenario.schema.json. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
