import { z } from 'zod';

import { booleanQuery, jsonObject, noBody, pageEnvelope, pagingQuery, quotedList } from '../http/schemas.js';
import type { AlertType } from '../store/data.js';
import { ALERT_TYPES } from './rules.js';

const alertType = z.enum(ALERT_TYPES as [AlertType, ...AlertType[]]);
const peakStatus = z.enum(['too_high', 'too_low']).nullable();

const alertFields = {
  deviceId: z.string().meta({ description: 'The device that raised it.' }),
  type: alertType.meta({
    description: 'lowLeak, highLeak, awayLeak (leaks), ambientTemp; the sandbox adds waterTemp and humidity.',
  }),
  active: z.boolean(),
  startTime: z.int().meta({ description: 'Epoch seconds when the reading first crossed the threshold.' }),
  detectedTime: z
    .int()
    .meta({ description: 'Epoch seconds when it had stayed past the threshold for the dwell time.' }),
  stopTime: z.int().meta({ description: 'Epoch seconds when it ended; 0 while active.' }),
  peakValue: z.number().meta({ description: 'gpm for leaks, °F for temperatures, % for humidity.' }),
  peakStatus: peakStatus.meta({ description: 'null for leaks, else too_high or too_low.' }),
};

/** An alert as production shows it in a location's `alerts`: exactly its keys. */
export const PublicAlert = z
  .strictObject(alertFields)
  .meta({ description: "An alert in a location's alerts: production's keys." });

/** The webhook payload of an alert (with the subscription and location it is sent for). */
export const AlertNotification = z
  .strictObject({ subscriptionId: z.string(), locationId: z.string(), ...alertFields })
  .meta({ description: "The alert notification POSTed to confirmed subscriptions: production's payload." });

const sandboxAlertFields = {
  alertId: z.string().meta({ description: "The sandbox's id of the alert, for .../alerts/{alertId}/end." }),
  locationId: z.string(),
  ...alertFields,
  flowGpm: z
    .number()
    .meta({ description: 'Leak flow added to the readings while active, in gallons per minute (0 for other types).' }),
  shown: z
    .boolean()
    .meta({ description: "Whether the location's alerts shows it (an escalated low leak is active but hidden)." }),
  supersededBy: z.string().nullable().meta({ description: 'The high leak that replaced this low leak, if any.' }),
  continuedBy: z
    .string()
    .nullable()
    .meta({ description: 'The low leak that resumed this one when the high leak ended, if any.' }),
};

/** An alert as /sandbox shows it: the public fields, its id and the sandbox's bookkeeping. */
export const SandboxAlert = z
  .strictObject(sandboxAlertFields)
  .meta({ description: "An alert with the sandbox's bookkeeping." });

export const SandboxAlertList = pageEnvelope('alerts', SandboxAlert).meta({
  description: 'Alerts of a location, newest first.',
});

export const AlertStarted = z
  .strictObject({
    outcome: z.enum(['started', 'escalated', 'ignored']).meta({
      description:
        'started; escalated (a highLeak replaced the active lowLeak); ignored (an alert in force already covers it: the answer is that alert, status 200).',
    }),
    note: z
      .string()
      .nullable()
      .meta({ description: 'Why the outcome or the type differs from the request, if it does.' }),
    notifications: z
      .int()
      .min(0)
      .meta({ description: 'Alert notifications queued (one per confirmed subscription of the location).' }),
    ...sandboxAlertFields,
  })
  .meta({ description: 'The alert in force after the request.' });

export const AlertEnded = z
  .strictObject({
    notifications: z.int().min(0),
    ...sandboxAlertFields,
    resumed: SandboxAlert.nullable().meta({
      description: 'The low leak that resumed because this high leak ended, if any.',
    }),
  })
  .meta({ description: 'The ended alert.' });

export const START_FIELDS = ['type', 'deviceId', 'peakValue', 'peakStatus'] as const;
const START_EXAMPLE = '{"type": "lowLeak", "peakValue": 0.5}';

/** POST /sandbox/locations/{locationId}/alerts. The rules that depend on the type and the location are in rules.ts. */
export const AlertStart = jsonObject(
  {
    type: z
      .enum(ALERT_TYPES as [AlertType, ...AlertType[]], {
        error: (issue) =>
          `type is required and must be one of ${ALERT_TYPES.join(', ')}; got ${JSON.stringify(issue.input ?? null)}`,
      })
      .meta({ description: 'The alert type.' }),
    deviceId: z
      .string({
        error: "deviceId must be the id of one of the location's devices (GET /v1/locations/{locationId} lists them)",
      })
      .optional()
      .meta({ description: "Default: the location's first device." }),
    peakValue: z
      .number({ error: (issue) => `peakValue must be a number; got ${JSON.stringify(issue.input)}` })
      .optional()
      .meta({
        description:
          'Default: a realistic value for the type. Ranges: lowLeak 0.1-2 gpm, highLeak 2-15 gpm, awayLeak above 0.1 up to 15 gpm, ambientTemp -40-50 °F, waterTemp 90-200 °F, humidity 50-100 %.',
      }),
    peakStatus: z
      .enum(['too_high', 'too_low'], {
        error: (issue) => `peakStatus must be "too_high", "too_low" or null; got ${JSON.stringify(issue.input)}`,
      })
      .nullable()
      .optional()
      .meta({
        description: 'null for leaks, too_low for ambientTemp, too_high for waterTemp and humidity; leave it out.',
      }),
  },
  {
    notObject: `The request body must be a JSON object such as ${START_EXAMPLE}`,
    unknownKeys: (keys) => `An alert takes only ${START_FIELDS.join(', ')}; remove ${quotedList(keys)}`,
  },
);

export const ALERT_START_EXAMPLE = { type: 'lowLeak', peakValue: 0.5 };

export const DEFAULT_ALERTS_PER_PAGE = 50;

export const AlertListQuery = z.object({
  active: booleanQuery('active', 'Only active (true) or ended (false) alerts.'),
  ...pagingQuery(DEFAULT_ALERTS_PER_PAGE),
});

export const AlertEndBody = noBody('Ending an alert').meta({ description: 'No body, or {}.' });

export type SandboxAlert = z.output<typeof SandboxAlert>;
export type PublicAlert = z.output<typeof PublicAlert>;
export type AlertNotification = z.output<typeof AlertNotification>;
