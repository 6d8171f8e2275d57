import { z } from 'zod';

import { CLOCK_CHANGE_EXAMPLE, ClockChangeBody } from '../clock/index.js';
import { DEMO } from '../http/demo-examples.js';
import { operationsTagged } from '../http/operation.js';
import { isoInstant, jsonObject, NO_BODY_TAKEN, noBody, quotedList } from '../http/schemas.js';

export const ClockStateBody = z
  .strictObject({
    now: isoInstant.meta({ description: "The account's now." }),
    offsetSeconds: z.int().meta({ description: 'Seconds ahead of (or behind) the wall clock.' }),
    frozen: z.boolean(),
  })
  .meta({ description: "The account's virtual clock." });

/** What every view of a scenario script says of it first. */
const scenarioHeading = {
  name: z.string(),
  description: z.string(),
  title: z
    .string()
    .nullable()
    .meta({ description: "The story's title in the presenter view (GET /demo); null when the file gives none." }),
  premise: z
    .string()
    .nullable()
    .meta({ description: "The story's situation in one sentence for a prospect; null when the file gives none." }),
  durationSeconds: z.number().min(0),
};

export const ScenarioSummary = z
  .strictObject({
    ...scenarioHeading,
    steps: z.int().min(0).meta({ description: 'Number of steps.' }),
  })
  .meta({ description: 'A scenario script of SCENARIOS_DIR.' });

export const ScenarioDetail = z
  .strictObject({
    ...scenarioHeading,
    steps: z
      .array(
        z.looseObject({
          atSeconds: z.number().meta({ description: 'Seconds from the start of the run.' }),
          do: z.string().meta({ description: 'The action: startAlert, endAlert, setHomeAway, ...' }),
          caption: z
            .string()
            .optional()
            .meta({ description: 'What the step means for a prospect; the presenter view shows it as it happens.' }),
        }),
      )
      .meta({
        description: 'The steps, in the scenario file format (scenarios/scenario.schema.json), with `at` in seconds.',
      }),
    expect: z.unknown().meta({ description: 'What the scenario expects to have been delivered, if it says.' }),
  })
  .meta({ description: 'A scenario script with its steps.' });

export const Run = z
  .strictObject({
    runId: z.string(),
    scenario: z.string(),
    locationId: z.string(),
    state: z
      .enum(['running', 'completed', 'failed', 'cancelled'])
      .meta({ description: 'cancelled: ended by POST /sandbox/runs/{runId}/cancel; no later step runs.' }),
    startedAt: isoInstant,
    steps: z.int().min(0),
    nextStep: z
      .int()
      .min(0)
      .meta({ description: 'Index of the next step to apply (equals steps once all are applied).' }),
    nextStepAt: isoInstant
      .nullable()
      .meta({ description: 'When the next step is due on the account clock; null once the run ended.' }),
    completedAt: isoInstant.nullable().meta({
      description: 'When the run ended (completed, failed or cancelled), on the account clock; null while it runs.',
    }),
    log: z.array(
      z.strictObject({
        step: z.int().min(0),
        do: z.string(),
        at: isoInstant.meta({ description: 'When it ran, on the account clock.' }),
        dueAt: isoInstant,
        ok: z.boolean(),
        result: z.string(),
      }),
    ),
  })
  .meta({ description: 'A run of a scenario: its progress and log.' });

const RUN_EXAMPLE = '{"locationId": "<a locationId from GET /v1/locations>"}';

export const RunRequest = jsonObject(
  {
    locationId: z
      .unknown()
      .superRefine((value, ctx) => {
        if (value === undefined)
          ctx.addIssue({
            code: 'custom',
            message: `locationId is required: the location the scenario plays at, e.g. ${RUN_EXAMPLE}`,
          });
        else if (typeof value !== 'string' || value === '')
          ctx.addIssue({
            code: 'custom',
            message: `locationId must be a location id string; got ${JSON.stringify(value)}`,
          });
      })
      .transform((value) => value as string)
      .meta({ type: 'string', minLength: 1, description: 'The location the scenario plays at.' }),
  },
  {
    notObject: `The request body must be a JSON object such as ${RUN_EXAMPLE}`,
    unknownKeys: (keys) => `A run takes only locationId; remove ${quotedList(keys)}`,
  },
).meta({ required: ['locationId'] });

const clockOperation = operationsTagged('Sandbox: clock', 'account');
const scenarioOperation = operationsTagged('Sandbox: scenarios', 'account');

export const getClockOp = clockOperation('getClock', 'GET /sandbox/clock', {
  summary: "The account's virtual clock",
  responses: {
    200: {
      description: 'The clock.',
      schema: ClockStateBody,
      example: { now: '2026-03-10T15:30:00.000Z', offsetSeconds: 0, frozen: false },
    },
  },
});

export const setClockOp = clockOperation('setClock', 'POST /sandbox/clock', {
  summary: "Move, freeze or reset the account's clock",
  description:
    'It drives the account\'s readings ("now"), token and confirmation expiry, scenario timelines and webhook retries. Moving forward stops at each instant where ' +
    'work falls due (a retry, a scenario step) and does it there, in time order. {"realTime": true} goes back to the wall clock.',
  body: { schema: ClockChangeBody, required: true, example: CLOCK_CHANGE_EXAMPLE },
  responses: {
    200: {
      description: 'The clock after the change.',
      schema: ClockStateBody,
      example: { now: '2026-03-10T16:30:00.000Z', offsetSeconds: 3600, frozen: false },
    },
  },
  errors: {
    400: 'invalid_parameter: the body says nothing to do, or a field is not valid (now, frozen, advanceSeconds, realTime).',
  },
});

export const listScenariosOp = scenarioOperation('listScenarios', 'GET /sandbox/scenarios', {
  summary: 'The scenario scripts of this sandbox',
  responses: {
    200: { description: 'The scenarios.', schema: z.strictObject({ scenarios: z.array(ScenarioSummary) }) },
  },
});

export const getScenarioOp = scenarioOperation('getScenario', 'GET /sandbox/scenarios/{name}', {
  summary: 'One scenario script',
  responses: { 200: { description: 'The scenario with its steps.', schema: ScenarioDetail } },
  errors: { 404: 'not_found: no scenario of that name.' },
});

export const startRunOp = scenarioOperation('startRun', 'POST /sandbox/scenarios/{name}/runs', {
  summary: 'Run a scenario at a location',
  description:
    'Steps due at once run before the answer; later ones run when the account clock reaches them (move it with POST /sandbox/clock to run them now).',
  body: { schema: RunRequest, required: true, example: { locationId: DEMO.locationId } },
  responses: {
    201: {
      description: 'The run, with a Location header pointing at it.',
      schema: Run,
      headers: { Location: 'The run: /sandbox/runs/{runId}.' },
    },
  },
  errors: {
    400: 'invalid_parameter (locationId missing or not a string), scenario_not_applicable (the location has fewer devices than the scenario uses).',
    404: 'not_found: no scenario of that name, or no such location in this account.',
    409: 'limit_reached: the account has MAX_RUNNING_RUNS runs running already (a hosted sandbox: 10 by default).',
  },
});

export const listRunsOp = scenarioOperation('listRuns', 'GET /sandbox/runs', {
  summary: "The account's scenario runs",
  description: 'Newest first; the 50 newest finished runs are kept.',
  responses: { 200: { description: 'The runs.', schema: z.strictObject({ runs: z.array(Run) }) } },
});

export const getRunOp = scenarioOperation('getRun', 'GET /sandbox/runs/{runId}', {
  summary: 'One scenario run',
  responses: { 200: { description: 'The run.', schema: Run } },
  errors: { 404: 'not_found: no such run in this account.' },
});

export const cancelRunOp = scenarioOperation('cancelRun', 'POST /sandbox/runs/{runId}/cancel', {
  summary: 'Cancel a scenario run',
  description:
    'The run becomes cancelled: no later step of it runs. What its steps already did stays as it is (an alert it started stays active until ended). ' +
    'Cancelling a run that is already cancelled answers it again.',
  body: { schema: noBody('Cancelling a run').meta({ description: 'No body, or {}.' }), required: false, example: {} },
  responses: { 200: { description: 'The cancelled run.', schema: Run } },
  errors: {
    400: NO_BODY_TAKEN,
    404: 'not_found: no such run in this account.',
    409: 'run_finished: the run already completed or failed.',
  },
});

export const scenariosOperations = [
  getClockOp,
  setClockOp,
  listScenariosOp,
  getScenarioOp,
  startRunOp,
  listRunsOp,
  getRunOp,
  cancelRunOp,
];
