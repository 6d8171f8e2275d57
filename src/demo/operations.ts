import { z } from 'zod';

import { operationsTagged } from '../http/operation.js';
import { jsonObject, NO_BODY_TAKEN, noBody, quotedList } from '../http/schemas.js';
import { DEFAULT_STORY_SPEED, MAX_PROSPECT_LENGTH, MAX_STORY_SPEED } from './page-config.js';

/**
 * The presenter view's routes (GET /demo and what its page calls, signed in like the dashboard)
 * and the audience's (/demo/watch/{token}, no sign-in), with the schemas of what they answer.
 * The view's text is in words for a prospect: times as "2:14 AM" in the location's zone, units
 * spelled out; instants as epoch milliseconds are for the page's arithmetic, never shown.
 */

const presenter = operationsTagged('Demo: presenter view', 'session');
const audience = operationsTagged('Demo: audience link', 'none');

const SANDBOX = 'Not in production: the sandbox demoing itself to a prospect.';
const instantMs = z.number().meta({ description: 'An instant, in ms since 1970 (for the page; never shown).' });

export const DemoStory = z
  .strictObject({
    scenario: z.string().meta({ description: 'The scenario played (GET /sandbox/scenarios).' }),
    title: z.string(),
    premise: z.string(),
    state: z.enum(['ready', 'playing', 'paused', 'ended']).meta({
      description:
        'ready: loaded at its start, nothing happened yet; playing: the presenter page moves it on; paused; ended: played to its end.',
    }),
    speed: z.int().min(1).meta({ description: 'Account-clock seconds per real second while it plays.' }),
    speedText: z.string().meta({ description: 'The speed in words: "An hour in 1.5 seconds".' }),
    startMs: instantMs,
    nowMs: instantMs,
    endMs: instantMs,
    steps: z.array(
      z.strictObject({
        caption: z.string(),
        at: z.string().meta({ description: 'When it happens, in the location\'s zone: "2:24 AM".' }),
        atMs: instantMs,
        done: z.boolean(),
      }),
    ),
    caption: z
      .string()
      .nullable()
      .meta({ description: 'The caption of the step that happened last; null before the first.' }),
  })
  .meta({ description: 'The story loaded in the presenter view.' });

const Tone = z.enum(['ok', 'pending', 'bad']);

export const DemoCard = z
  .strictObject({
    key: z.string().meta({ description: 'Tells the cards apart (the delivery).' }),
    at: z.string().meta({ description: 'When it was sent: "2:14 AM".' }),
    tone: Tone,
    headline: z.string().meta({ description: '"Slow leak alert sent to Acme\'s endpoint".' }),
    detail: z.string().meta({ description: '"Delivered in 91 ms", "The endpoint answered 500; next try at 2:16 AM".' }),
    raw: z.strictObject({
      requestLine: z.string().meta({ description: '"POST /hooks HTTP/1.1".' }),
      headers: z.array(z.strictObject({ name: z.string(), value: z.string() })),
      body: z.string().meta({ description: 'The JSON sent, pretty-printed; a confirmation token shows as [hidden].' }),
    }),
  })
  .meta({ description: "A webhook as the partner's side of the view shows it." });

export const DemoScene = z
  .strictObject({
    prospect: z.string().meta({ description: "The prospect's name ('' for none)." }),
    appName: z.string().meta({ description: 'The app\'s name on the phone: the prospect\'s, or "Your app".' }),
    now: z.strictObject({
      ms: instantMs,
      rate: z.number().min(0).meta({
        description:
          'Account-clock ms per real ms from `ms` on: 0 frozen (a story paused), 1 running, the speed while a story plays.',
      }),
      text: z.string().meta({ description: '"Tuesday 2:14 AM", in the location\'s zone.' }),
    }),
    location: z
      .strictObject({
        name: z.string(),
        zone: z.string().meta({ description: '"Eastern time".' }),
        timeZone: z.string().meta({ description: "The IANA zone, for the page's formatting." }),
        homeAway: z.enum(['home', 'away']),
        status: z.string().meta({ description: '"Someone is home", "Nobody is home".' }),
        monitor: z.string().meta({ description: '"Monitor online", "Monitor offline".' }),
      })
      .nullable(),
    flow: z.strictObject({
      gallonsPerMinute: z.number().min(0),
      leakGallonsPerMinute: z.number().min(0),
      text: z.string().meta({ description: '"1.2 gallons per minute".' }),
      detail: z.string().meta({ description: '"0.8 of it from the leak", "normal use".' }),
    }),
    chart: z.strictObject({
      fromMs: instantMs,
      toMs: instantMs,
      cap: z.number().min(0).meta({
        description:
          'The top of the gallons axis: normal use stays readable; a taller bar is cut there, its total written.',
      }),
      hours: z.array(
        z.strictObject({
          startMs: instantMs,
          label: z.string().meta({ description: '"2 AM".' }),
          normal: z.number().min(0).meta({ description: 'Gallons of normal use in the hour.' }),
          leak: z.number().min(0).meta({ description: 'Gallons the leak added.' }),
        }),
      ),
      leaks: z.array(
        z.strictObject({
          fromMs: instantMs,
          toMs: instantMs.nullable().meta({ description: 'null: still running.' }),
          label: z.string().meta({ description: '"Leak detected 2:14 AM".' }),
        }),
      ),
      summary: z.string().meta({ description: 'The chart in words, for screen readers.' }),
    }),
    cards: z.array(DemoCard).meta({ description: 'The webhooks of the location, newest first.' }),
    phone: z.strictObject({
      notifications: z.array(
        z.strictObject({
          key: z.string(),
          active: z.boolean(),
          title: z.string(),
          text: z.string().meta({ description: 'As of `now`.' }),
          at: z.string(),
          live: z
            .strictObject({ before: z.string(), sinceMs: instantMs, after: z.string() })
            .nullable()
            .meta({ description: 'The text around a duration that grows with the clock (the page writes it anew).' }),
        }),
      ),
      note: z.string().nullable().meta({ description: 'Why the phone hears nothing (no subscription), or null.' }),
    }),
    story: DemoStory.nullable(),
  })
  .meta({ description: "Everything the presenter view shows: the home, the partner's side, the phone, the story." });

export const DemoView = z
  .strictObject({ prospect: z.string(), locationId: z.string().nullable() })
  .meta({ description: 'What the view shows, to the presenter and every audience link alike.' });

export const DemoLink = z
  .strictObject({
    linkId: z.string(),
    url: z.string().meta({ description: 'The audience link: /demo/watch/<token> on PUBLIC_URL.' }),
    createdAt: z.iso.datetime(),
    expiresAt: z.iso.datetime().meta({ description: 'Real time (not the account clock): 4 hours after it was made.' }),
  })
  .meta({ description: 'An audience link of the presenter view.' });

const VIEW_EXAMPLE = '{"prospect": "Acme Insurance"}';

export const DemoViewBody = jsonObject(
  {
    prospect: z
      .string(`prospect must be text, the prospect's name, e.g. ${VIEW_EXAMPLE}`)
      .trim()
      .max(MAX_PROSPECT_LENGTH, `prospect must be at most ${MAX_PROSPECT_LENGTH} characters`)
      .refine((text) => !/[\u0000-\u001f\u007f]/.test(text), 'prospect must be plain text on one line')
      .optional()
      .meta({ description: "The prospect's name, shown as text only; '' for none." }),
    locationId: z
      .string('locationId must be a location id string (GET /v1/locations lists them)')
      .min(1, 'locationId must not be empty')
      .optional()
      .meta({ description: 'The location the view shows.' }),
  },
  {
    notObject: `The request body must be a JSON object such as ${VIEW_EXAMPLE}`,
    unknownKeys: (keys) => `The view takes only prospect and locationId; remove ${quotedList(keys)}`,
  },
);

const speedField = z
  .unknown()
  .superRefine((value, ctx) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_STORY_SPEED)
      ctx.addIssue({
        code: 'custom',
        message: `speed must be a whole number of account-clock seconds per real second, from 1 (real time) to ${MAX_STORY_SPEED} (a week a second); got ${JSON.stringify(value)}`,
      });
  })
  .transform((value) => value as number)
  .meta({
    type: 'integer',
    minimum: 1,
    maximum: MAX_STORY_SPEED,
    description: `Account-clock seconds per real second; ${DEFAULT_STORY_SPEED} (an hour in 1.5 seconds) when absent.`,
  });

const STORY_EXAMPLE = '{"scenario": "slow-leak-escalates"}';

export const StartStoryBody = jsonObject(
  {
    scenario: z
      .string(`scenario is required: the scenario to play, e.g. ${STORY_EXAMPLE}`)
      .min(1, 'scenario must not be empty')
      .meta({ description: 'The scenario to play (GET /sandbox/scenarios).' }),
    locationId: z
      .string('locationId must be a location id string (GET /v1/locations lists them)')
      .min(1, 'locationId must not be empty')
      .optional()
      .meta({ description: 'Where it plays; the location the view shows when absent.' }),
    speed: speedField.optional(),
  },
  {
    notObject: `The request body must be a JSON object such as ${STORY_EXAMPLE}`,
    unknownKeys: (keys) => `A story takes only scenario, locationId and speed; remove ${quotedList(keys)}`,
  },
);

export const StorySpeedBody = jsonObject(
  {
    speed: speedField.meta({
      type: 'integer',
      minimum: 1,
      maximum: MAX_STORY_SPEED,
      description: 'Account-clock seconds per real second.',
    }),
  },
  {
    notObject: 'The request body must be a JSON object such as {"speed": 7200}',
    unknownKeys: (keys) => `Only speed is taken; remove ${quotedList(keys)}`,
  },
).meta({ required: ['speed'] });

const storyAnswer = { 200: { description: 'The story as it is now.', schema: DemoStory } };
const STORY_ERRORS = {
  404: 'not_found: no such scenario, or no such location in this account.',
  409: 'no_story: no story is loaded; story_ended: it played to its end (restart it); limit_reached: MAX_RUNNING_RUNS, or ACCOUNT_STORAGE_LIMIT.',
};
const noStoryBody = (what: string) => ({
  schema: noBody(what),
  required: false as const,
  example: {},
});

export const demoPageOp = presenter('demoPage', 'GET /demo', {
  summary: 'The presenter view',
  description:
    "The home, the partner's side and the customer's phone on one screen, live, with the story controls. A browser that is not signed in is sent to the dashboard's sign-in (and back here after it). `prospect` puts a prospect's name in the header and as the app's name on the phone; `story` picks a story.",
  query: z.strictObject({
    prospect: z.string().optional().meta({ description: "A prospect's name, e.g. Acme Insurance." }),
    story: z.string().optional().meta({ description: 'A scenario to pick, e.g. slow-leak-escalates.' }),
  }),
  responses: {
    200: { description: 'The page.', html: true },
    303: {
      description: 'Not signed in: to the sign-in form, which comes back here.',
      headers: { Location: 'The sign-in form.' },
    },
  },
  errors: { 503: 'The page is not built (npm run build).' },
  sandbox: SANDBOX,
});

export const demoSceneOp = presenter('demoScene', 'GET /demo/scene', {
  summary: 'What the presenter view shows now',
  responses: { 200: { description: 'The scene.', schema: DemoScene } },
  sandbox: SANDBOX,
});

export const demoEventsOp = presenter('demoEvents', 'GET /demo/events', {
  summary: 'The presenter view, live',
  description:
    'Server-sent events: `{"type": "scene", "scene": ...}` at once and at every change; `{"type": "gone"}` when the session ends. Counts in MAX_DEMO_VIEWERS and MAX_OPEN_STREAMS_TOTAL.',
  responses: { 200: { description: 'The stream.', eventStream: true } },
  errors: { 409: 'limit_reached: MAX_DEMO_VIEWERS or MAX_OPEN_STREAMS_TOTAL streams are open.' },
  sandbox: SANDBOX,
});

export const setDemoViewOp = presenter('setDemoView', 'PUT /demo/view', {
  summary: "The prospect's name and the location shown",
  body: { schema: DemoViewBody, required: true, example: { prospect: 'Acme Insurance' } },
  responses: { 200: { description: 'The view.', schema: DemoView } },
  errors: {
    400: 'invalid_parameter: prospect or locationId is not valid.',
    404: 'not_found: no such location in this account.',
    409: 'story_loaded: a story plays at another location (end it first); limit_reached: ACCOUNT_STORAGE_LIMIT.',
  },
  sandbox: SANDBOX,
});

export const startStoryOp = presenter('startStory', 'POST /demo/story', {
  summary: 'Load a story, ready to play',
  description:
    "The account is copied as it is (Restart and the end of the story put it back), the clock is frozen at the minute, and, when the location has no confirmed subscription, the sandbox's demo receiver is subscribed. A story already loaded is ended first.",
  body: { schema: StartStoryBody, required: true, example: { scenario: 'slow-leak-escalates' } },
  responses: { 201: { description: 'The story, ready.', schema: DemoStory } },
  errors: {
    400: 'invalid_parameter (scenario, locationId, speed), scenario_not_applicable (the location has fewer devices than the story uses).',
    ...STORY_ERRORS,
  },
  sandbox: SANDBOX,
});

const storyAction = (operationId: string, route: `POST /demo/story/${string}`, summary: string, description: string) =>
  presenter(operationId, route, {
    summary,
    description,
    body: noStoryBody(summary),
    responses: storyAnswer,
    errors: { 400: NO_BODY_TAKEN, ...STORY_ERRORS },
    sandbox: SANDBOX,
  });

export const playStoryOp = storyAction(
  'playStory',
  'POST /demo/story/play',
  'Play the story',
  "The story's first steps fire; from then on the presenter's page moves it on (POST /demo/story/tick).",
);
export const pauseStoryOp = storyAction(
  'pauseStory',
  'POST /demo/story/pause',
  'Pause the story',
  'It holds where it is.',
);
export const tickStoryOp = storyAction(
  'tickStory',
  'POST /demo/story/tick',
  'Move a playing story on',
  'The account clock moves on by the real time since the last tick (at most 2 s of it) times the speed, each step and delivery due on the way firing at its own instant, as POST /sandbox/clock does. A story that does not play answers as it is.',
);
export const nextStepOp = storyAction(
  'nextStoryStep',
  'POST /demo/story/next',
  'The next step, now',
  "The clock goes to the next step's instant and the step fires; after the last step, to the end. Before the first Play, the first steps fire.",
);
export const restartStoryOp = storyAction(
  'restartStory',
  'POST /demo/story/restart',
  'Back to the start',
  'Locations, subscriptions, alerts, scenario runs, the deliveries made since and the clock go back to how they were when the story was loaded: the same demo every time.',
);

export const setStorySpeedOp = presenter('setStorySpeed', 'PUT /demo/story/speed', {
  summary: "The story's speed",
  body: { schema: StorySpeedBody, required: true, example: { speed: 7200 } },
  responses: storyAnswer,
  errors: { 400: 'invalid_parameter: speed is not a whole number from 1 to 604800.', ...STORY_ERRORS },
  sandbox: SANDBOX,
});

export const endStoryOp = presenter('endStory', 'DELETE /demo/story', {
  summary: 'End the story',
  description: 'The account goes back to how it was before the story, its clock included.',
  responses: { 200: { description: 'No story any more.', schema: z.strictObject({ story: z.null() }) } },
  errors: { 409: 'no_story: no story is loaded.' },
  sandbox: SANDBOX,
});

const LINK_SECRET = "the audience link's token";

export const listLinksOp = presenter('listDemoLinks', 'GET /demo/links', {
  summary: 'The live audience links',
  responses: { 200: { description: 'The links.', schema: z.strictObject({ links: z.array(DemoLink) }) } },
  secrets: LINK_SECRET,
  sandbox: SANDBOX,
});

export const createLinkOp = presenter('createDemoLink', 'POST /demo/links', {
  summary: 'Share: a read-only link to the view, for the audience',
  description:
    'Anyone with the link sees the view live, without signing in, and can change nothing. It ends 4 hours after it is made (real time), or when revoked. MAX_DEMO_LINKS bounds the live links of an account.',
  body: noStoryBody('Making a link'),
  responses: { 201: { description: 'The link.', schema: DemoLink } },
  errors: { 400: NO_BODY_TAKEN, 409: 'limit_reached: MAX_DEMO_LINKS links are live.' },
  secrets: LINK_SECRET,
  sandbox: SANDBOX,
});

export const revokeLinkOp = presenter('revokeDemoLink', 'DELETE /demo/links/{linkId}', {
  summary: 'Revoke an audience link',
  description: 'Its page and stream end at once, on every replica; the link answers 404 from then on.',
  responses: { 200: { description: 'The link revoked.', schema: DemoLink } },
  errors: { 404: 'not_found: no such live link in this account.' },
  secrets: LINK_SECRET,
  sandbox: SANDBOX,
});

const UNKNOWN_LINK = 'not_found: no such link, or it expired or was revoked (an HTML page for the page itself).';

export const watchPageOp = audience('watchPage', 'GET /demo/watch/{token}', {
  summary: 'The presenter view for the audience',
  description: 'Read only, live, without sign-in: no controls, nothing secret. Every change is refused (405).',
  responses: { 200: { description: 'The page.', html: true } },
  errors: { 404: UNKNOWN_LINK, 503: 'The page is not built (npm run build).' },
  sandbox: SANDBOX,
});

export const watchSceneOp = audience('watchScene', 'GET /demo/watch/{token}/scene', {
  summary: 'What the audience sees now',
  responses: { 200: { description: 'The scene.', schema: DemoScene } },
  errors: { 404: UNKNOWN_LINK },
  sandbox: SANDBOX,
});

export const watchEventsOp = audience('watchEvents', 'GET /demo/watch/{token}/events', {
  summary: 'What the audience sees, live',
  description:
    'Server-sent events, as GET /demo/events; `{"type": "gone"}` when the link is revoked or expires. Counts in MAX_DEMO_VIEWERS and MAX_OPEN_STREAMS_TOTAL.',
  responses: { 200: { description: 'The stream.', eventStream: true } },
  errors: { 404: UNKNOWN_LINK, 409: 'limit_reached: MAX_DEMO_VIEWERS or MAX_OPEN_STREAMS_TOTAL streams are open.' },
  sandbox: SANDBOX,
});

export const demoOperations = [
  demoPageOp,
  demoSceneOp,
  demoEventsOp,
  setDemoViewOp,
  startStoryOp,
  playStoryOp,
  pauseStoryOp,
  tickStoryOp,
  nextStepOp,
  restartStoryOp,
  setStorySpeedOp,
  endStoryOp,
  listLinksOp,
  createLinkOp,
  revokeLinkOp,
  watchPageOp,
  watchSceneOp,
  watchEventsOp,
];
