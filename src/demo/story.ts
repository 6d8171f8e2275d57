import { changeAccountClock, clockState, timeLockOf, type DueWork } from '../clock/index.js';
import { AppError, conflict, invalidParameter, notFound } from '../core/errors.js';
import { DASHBOARD_PATHS } from '../dashboard/index.js';
import { publishAccountEvent } from '../live/index.js';
import { scenarioWork, startRun, type Scenario, type ScenariosDeps, type ScenarioStep } from '../scenarios/index.js';
import { copyOf } from '../store/change-draft.js';
import type { AccountDoc, DeepReadonly, StoryRecord, StorySnapshot } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { publishDemoEvent } from './events.js';
import { ensureDemo } from './links.js';
import { MAX_STORY_SPEED, TICK_MS } from './page-config.js';

/**
 * Stories: a scenario played in the presenter view, with Play, Pause, Next step, Restart and a
 * speed.
 *
 * Where playback lives: in the store, in the account's document (`demo.story`), never in a
 * process. The account clock is frozen while a story is loaded, and is the story's position; the
 * record says whether it plays, how fast, and when (on the process clock) the clock was last
 * moved on. The presenter's page is the metronome: while the story plays it asks every TICK_MS
 * (POST /demo/story/tick), and each tick moves the clock on by the real time elapsed since the
 * last one times the speed, stopping at the next step, where the story holds for STEP_HOLD_MS so
 * that its caption can be read. Any replica can take any tick, since all it needs is in the store
 * (and one lock per account keeps two ticks from moving the clock twice); every viewer, on any
 * replica, sees the same story, since they all read that one clock. A tick moves the clock as
 * POST /sandbox/clock does (changeAccountClock), so each scenario step and each delivery fires at
 * its own instant, in time order, whatever the speed; nothing fires in between. A page that stops
 * ticking (closed, its laptop asleep) leaves the story where it was: a tick never moves it by more
 * than MAX_TICK_GAP_MS of real time.
 *
 * Restart puts back what the story changed (locations, subscriptions, confirmation tokens, alerts,
 * scenario runs, the deliveries made since, the clock at the story's start), from the copy taken
 * when it was loaded, so a rehearsed demo plays the same every time; ending the story puts the
 * clock back as it was before it too.
 */

export interface StoryDeps extends ScenariosDeps {
  urls: { readonly publicUrl: string };
  config: ScenariosDeps['config'] & {
    readonly limits: { readonly runningRuns: number; readonly subscriptionsPerLocation: number };
  };
}

/** After its last step a story runs on this long (account clock), so what the step did is seen. */
export const STORY_TAIL_MS = 30 * 60_000;

/** The most real time one tick turns into story time: a page that stopped ticking resumes where it was. */
export const MAX_TICK_GAP_MS = 10 * TICK_MS;

/**
 * A playing story stops at each step and holds there this long (real time) before it moves on:
 * the step's caption is read, and its alert and webhooks are seen, however fast the clock runs
 * between steps (at an hour a second, a step ten minutes later would come a sixth of a second on).
 */
export const STEP_HOLD_MS = 2500;

const storyLockOf = (accountId: string): string => `story:${accountId}`;

/** The sandbox's own receiver (the dashboard's), subscribed when the story's location has no confirmed subscription. */
export const demoReceiverUrl = (deps: Pick<StoryDeps, 'urls'>): string =>
  `${deps.urls.publicUrl}${DASHBOARD_PATHS.demoReceiver}`;

export function scenarioNamed(deps: Pick<StoryDeps, 'scenarios'>, name: string): Scenario {
  const scenario = deps.scenarios.get(name);
  if (!scenario)
    throw notFound(`No scenario ${JSON.stringify(name)}; GET /sandbox/scenarios lists the stories of this sandbox`);
  return scenario;
}

const MINUTE_MS = 60_000;

/** Minutes since local midnight at `ms` in the zone. */
function localMinutes(ms: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
    timeZone,
  }).formatToParts(ms);
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return part('hour') * 60 + part('minute');
}

/**
 * Where a story starts on the account clock: the last instant, not after `nowMs`, at which the
 * location's clocks show the scenario's `startsAt` ("02:10"), so that its times read the same on
 * every run; without one, the current minute. Whole minutes: "Leak detected 2:14 AM", not 2:14:37.
 */
export function storyStartMs(nowMs: number, startsAt: string | undefined, timeZone: string): number {
  const minute = Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
  if (startsAt === undefined) return minute;
  const wanted = Number(startsAt.slice(0, 2)) * 60 + Number(startsAt.slice(3, 5));
  let start = minute - ((((localMinutes(minute, timeZone) - wanted) % 1440) + 1440) % 1440) * MINUTE_MS;
  // Across a change of daylight saving time the local clock moved by an hour meanwhile: once more.
  const off = (((localMinutes(start, timeZone) - wanted) % 1440) + 1440) % 1440;
  if (off !== 0) start -= (off > 720 ? off - 1440 : off) * MINUTE_MS;
  return start > nowMs ? start - 1440 * MINUTE_MS : start;
}

export const storyEndMs = (story: DeepReadonly<StoryRecord>, scenario: Scenario): number =>
  story.startMs + scenario.durationMs + STORY_TAIL_MS;

const deviceIndexOf = (step: ScenarioStep): number =>
  step.do === 'startAlert' || step.do === 'disconnectDevice' || step.do === 'reconnectDevice' ? (step.device ?? 0) : 0;

export interface StoryStart {
  scenario: string;
  locationId: string;
  speed: number;
}

async function accountDoc(deps: StoryDeps, accountId: string): Promise<DeepReadonly<AccountDoc>> {
  const doc = await deps.store.accounts.get(accountId);
  if (!doc) throw notFound('This account no longer exists');
  return doc;
}

function loadedStory(doc: DeepReadonly<AccountDoc>): DeepReadonly<StoryRecord> {
  const story = doc.demo?.story;
  if (!story)
    throw conflict(
      'no_story',
      'No story is loaded in the presenter view; start one first (POST /demo/story with {"scenario": "<name>"})',
    );
  return story;
}

/** Tells every viewer (and the dashboards, of the clock) that the story moved. */
async function announce(deps: StoryDeps, accountId: string, what: { clock?: true; reset?: true } = {}): Promise<void> {
  if (what.reset) await publishAccountEvent(deps.store, accountId, { type: 'reset' });
  if (what.clock) {
    const doc = await deps.store.accounts.get(accountId);
    if (doc) await publishAccountEvent(deps.store, accountId, { type: 'clock', ...clockState(deps.clock, doc.clock) });
  }
  await publishDemoEvent(deps.store, accountId, { type: 'changed' });
}

/**
 * Sets the story's stage in a change: the clock frozen at its start, and, when its location has
 * no confirmed subscription, the sandbox's demo receiver subscribed (confirmed) so that the
 * partner's side of the view has deliveries to show.
 */
function prepare(
  deps: StoryDeps,
  doc: AccountDoc,
  story: StoryRecord,
  receiver: { subscriptionId: string; endpoint: string },
): void {
  doc.clock = { offsetMs: 0, frozenAtMs: story.startMs };
  story.subscribedDemoReceiver = false;
  const ofLocation = doc.subscriptions.filter((s) => s.locationId === story.locationId);
  if (ofLocation.some((s) => s.status === 'confirmed')) return;
  const cap = deps.config.limits.subscriptionsPerLocation;
  if (cap > 0 && ofLocation.length >= cap) return;
  // SANDBOX: the sandbox's own receiver is subscribed confirmed, without the confirmation
  // handshake: it is no partner's endpoint, and the story is about alerts, not the handshake.
  doc.subscriptions.push({
    subscriptionId: receiver.subscriptionId,
    accountId: doc.account.accountId,
    locationId: story.locationId,
    endpoint: receiver.endpoint,
    status: 'confirmed',
    createdAt: new Date(story.startMs).toISOString(),
  });
  story.subscribedDemoReceiver = true;
}

/**
 * Loads a story at a location, ready to play: the account copied as it is (what Restart puts
 * back), the clock frozen at the minute, the demo receiver subscribed if needed. A story already
 * loaded is ended first (the account put back as it was before it).
 */
export function startStory(deps: StoryDeps, accountId: string, start: StoryStart): Promise<void> {
  const scenario = scenarioNamed(deps, start.scenario);
  checkSpeed(start.speed);
  return deps.store.locks.withLock(storyLockOf(accountId), async () => {
    let doc = await accountDoc(deps, accountId);
    const location = findLocation(doc, start.locationId);
    const highestDevice = Math.max(0, ...scenario.steps.map(deviceIndexOf));
    if (highestDevice >= location.devices.length) {
      throw new AppError(
        400,
        'scenario_not_applicable',
        `Story ${scenario.name} uses device ${highestDevice + 1} of its location, and ${location.name} has ${location.devices.length}; pick another location`,
        { details: { parameter: 'locationId' } },
      );
    }
    if (doc.demo?.story) {
      await putBack(deps, accountId, 'end');
      doc = await accountDoc(deps, accountId);
    }
    const newest = await deps.store.deliveries.list(accountId, { offset: 0, limit: 1 });
    const receiver = { subscriptionId: deps.ids.uuid(), endpoint: demoReceiverUrl(deps) };
    const takenAtProcessMs = deps.clock.now().getTime();
    await deps.store.locks.withLock(timeLockOf(accountId), () =>
      deps.store.accounts.update(accountId, (d) => {
        const demo = ensureDemo(d);
        const nowMs = d.clock.frozenAtMs ?? takenAtProcessMs + d.clock.offsetMs;
        const before: StorySnapshot = {
          locations: copyOf(d.locations),
          subscriptions: copyOf(d.subscriptions),
          confirmationTokens: copyOf(d.confirmationTokens),
          alerts: copyOf(d.alerts),
          runs: copyOf(d.runs),
          clock: { ...d.clock },
          newestDeliveryId: newest.items[0]?.deliveryId ?? null,
          takenAtProcessMs,
        };
        const story: StoryRecord = {
          scenario: scenario.name,
          locationId: start.locationId,
          speed: start.speed,
          state: 'ready',
          startMs: storyStartMs(nowMs, scenario.startsAt, location.timeZone),
          anchorProcessMs: null,
          runId: null,
          subscribedDemoReceiver: false,
          before,
        };
        prepare(deps, d, story, receiver);
        demo.story = story;
        demo.locationId = start.locationId;
      }),
    );
    await announce(deps, accountId, { clock: true, reset: true });
  });
}

export function checkSpeed(speed: number): void {
  if (!Number.isInteger(speed) || speed < 1 || speed > MAX_STORY_SPEED)
    throw invalidParameter(
      'speed',
      `speed must be a whole number of account-clock seconds per real second, from 1 (real time) to ${MAX_STORY_SPEED} (a week a second); got ${JSON.stringify(speed)}`,
    );
}

/** The work a clock move runs at each instant it stops at: scenario steps first, then deliveries (as POST /sandbox/clock). */
const workOf = (deps: StoryDeps): readonly DueWork[] => [scenarioWork(deps), deps.dispatcher];

/** Moves the account clock on to `targetMs`, firing each step and delivery due on the way at its own instant. */
async function moveClockTo(deps: StoryDeps, accountId: string, targetMs: number): Promise<void> {
  await changeAccountClock(deps, accountId, { move: { to: 'instant', ms: targetMs } }, workOf(deps));
}

const storyNowMs = (doc: DeepReadonly<AccountDoc>, story: DeepReadonly<StoryRecord>): number =>
  doc.clock.frozenAtMs ?? story.startMs;

/** Stores what changed of the story (a change of its record only). */
function changeStory(deps: StoryDeps, accountId: string, change: (story: StoryRecord) => void): Promise<void> {
  return deps.store.accounts.update(accountId, (d) => {
    const story = d.demo?.story;
    if (story) change(story);
  });
}

/** Starts the story's scenario run (its steps at the start fire now) when it has none yet. */
async function ensureRun(deps: StoryDeps, accountId: string, story: DeepReadonly<StoryRecord>): Promise<void> {
  if (story.runId !== null) return;
  const run = await startRun(deps, accountId, story.scenario, story.locationId);
  await changeStory(deps, accountId, (s) => void (s.runId = run.runId));
}

/** When the story's next step is due (account clock), or null when its run has no more. */
function nextStepMs(doc: DeepReadonly<AccountDoc>, story: DeepReadonly<StoryRecord>): number | null {
  const run = doc.runs.find((r) => r.runId === story.runId);
  return run?.state === 'running' ? run.dueAtMs : null;
}

/**
 * Moves a playing story on by the real time since its last move (at most MAX_TICK_GAP_MS) times
 * its speed, stopping at its next step (which then fires, and holds the story STEP_HOLD_MS);
 * ends it at its end. While it holds, a tick moves nothing.
 */
async function advance(deps: StoryDeps, accountId: string): Promise<boolean> {
  const doc = await accountDoc(deps, accountId);
  const story = loadedStory(doc);
  if (story.state !== 'playing' || story.anchorProcessMs === null) return false;
  const scenario = scenarioNamed(deps, story.scenario);
  const processMs = deps.clock.now().getTime();
  const elapsedMs = Math.min(processMs - story.anchorProcessMs, MAX_TICK_GAP_MS);
  if (elapsedMs <= 0) return false;
  const endMs = storyEndMs(story, scenario);
  const stepMs = nextStepMs(doc, story);
  const targetMs = Math.min(storyNowMs(doc, story) + elapsedMs * story.speed, endMs, stepMs ?? endMs);
  await moveClockTo(deps, accountId, targetMs);
  await changeStory(deps, accountId, (s) => {
    if (targetMs >= endMs) {
      s.state = 'ended';
      s.anchorProcessMs = null;
    } else {
      s.anchorProcessMs = processMs + (targetMs === stepMs ? STEP_HOLD_MS : 0);
    }
  });
  return true;
}

/** Runs `action` holding the account's story lock, then tells the viewers (unless it says nothing changed: false). */
function storyAction(
  deps: StoryDeps,
  accountId: string,
  action: (doc: DeepReadonly<AccountDoc>, story: DeepReadonly<StoryRecord>) => Promise<boolean | undefined>,
): Promise<void> {
  return deps.store.locks.withLock(storyLockOf(accountId), async () => {
    const doc = await accountDoc(deps, accountId);
    if ((await action(doc, loadedStory(doc))) !== false) await announce(deps, accountId, { clock: true });
  });
}

const refuseEnded = (story: DeepReadonly<StoryRecord>): void => {
  if (story.state === 'ended')
    throw conflict(
      'story_ended',
      'The story has played to its end; restart it (POST /demo/story/restart) to play it again',
    );
};

export const playStory = (deps: StoryDeps, accountId: string): Promise<void> =>
  storyAction(deps, accountId, async (_doc, story) => {
    refuseEnded(story);
    if (story.state === 'playing') return;
    const firstSteps = story.runId === null;
    await ensureRun(deps, accountId, story);
    const processMs = deps.clock.now().getTime();
    await changeStory(deps, accountId, (s) => {
      s.state = 'playing';
      s.anchorProcessMs = processMs + (firstSteps ? STEP_HOLD_MS : 0);
    });
  });

export const pauseStory = (deps: StoryDeps, accountId: string): Promise<void> =>
  storyAction(deps, accountId, async (_doc, story) => {
    if (story.state !== 'playing') return;
    await advance(deps, accountId);
    await changeStory(deps, accountId, (s) => {
      if (s.state === 'playing') s.state = 'paused';
      s.anchorProcessMs = null;
    });
  });

/** The presenter page's metronome: a playing story moves on; any other answers as it is. */
export const tickStory = (deps: StoryDeps, accountId: string): Promise<void> =>
  storyAction(deps, accountId, (_doc, story) =>
    story.state === 'playing' ? advance(deps, accountId) : Promise.resolve(false),
  );

/**
 * The next step, now: the clock goes to its instant (the step fires, and what is due before it
 * first). Before the first Play it starts the story's run (its first steps fire) and holds there.
 * After the last step it goes to the end. Playing or not, it stays so.
 */
export const nextStep = (deps: StoryDeps, accountId: string): Promise<void> =>
  storyAction(deps, accountId, async (doc, story) => {
    refuseEnded(story);
    if (story.runId === null) {
      await ensureRun(deps, accountId, story);
      await changeStory(deps, accountId, (s) => {
        if (s.state === 'ready') s.state = 'paused';
      });
      return;
    }
    const scenario = scenarioNamed(deps, story.scenario);
    const endMs = storyEndMs(story, scenario);
    const targetMs = Math.max(storyNowMs(doc, story), Math.min(nextStepMs(doc, story) ?? endMs, endMs));
    await moveClockTo(deps, accountId, targetMs);
    const processMs = deps.clock.now().getTime();
    await changeStory(deps, accountId, (s) => {
      if (targetMs >= endMs) {
        s.state = 'ended';
        s.anchorProcessMs = null;
      } else if (s.state === 'playing') {
        s.anchorProcessMs = processMs + STEP_HOLD_MS;
      } else {
        s.state = 'paused';
      }
    });
  });

export const setStorySpeed = (deps: StoryDeps, accountId: string, speed: number): Promise<void> => {
  checkSpeed(speed);
  return storyAction(deps, accountId, async (_doc, story) => {
    if (story.state === 'playing') await advance(deps, accountId);
    await changeStory(deps, accountId, (s) => void (s.speed = speed));
  });
};

/** Back to the story's start, the account as it was when the story was loaded: ready to play again. */
export const restartStory = (deps: StoryDeps, accountId: string): Promise<void> =>
  deps.store.locks.withLock(storyLockOf(accountId), async () => {
    loadedStory(await accountDoc(deps, accountId));
    await putBack(deps, accountId, 'restart');
  });

/** Ends the story: the account as it was before it, its clock included. */
export const endStory = (deps: StoryDeps, accountId: string): Promise<void> =>
  deps.store.locks.withLock(storyLockOf(accountId), async () => {
    loadedStory(await accountDoc(deps, accountId));
    await putBack(deps, accountId, 'end');
  });

/** The deliveries made since the story was loaded, newest first: the log's entries after the newest one then. */
async function deliveriesSince(
  deps: StoryDeps,
  accountId: string,
  before: DeepReadonly<StorySnapshot>,
): Promise<string[]> {
  const ids: string[] = [];
  const PAGE = 200;
  for (let offset = 0; ; offset += PAGE) {
    const { items } = await deps.store.deliveries.list(accountId, { offset, limit: PAGE });
    for (const delivery of items) {
      if (delivery.deliveryId === before.newestDeliveryId) return ids;
      // A log trimmed past the newest one of then: older by the process clock is older than the story.
      if ((delivery.createdAtMs ?? Date.parse(delivery.createdAt)) < before.takenAtProcessMs) return ids;
      ids.push(delivery.deliveryId);
    }
    if (items.length < PAGE) return ids;
  }
}

/**
 * Puts back what the story changed, holding the account's time lock (no step or delivery of it
 * runs meanwhile): its copy of the account, and the deliveries made since taken out of the log.
 * `restart` leaves the story loaded at its start, ready; `end` removes it and puts the clock back too.
 */
async function putBack(deps: StoryDeps, accountId: string, mode: 'restart' | 'end'): Promise<void> {
  const receiver = { subscriptionId: deps.ids.uuid(), endpoint: demoReceiverUrl(deps) };
  await deps.store.locks.withLock(timeLockOf(accountId), async () => {
    const story = loadedStory(await accountDoc(deps, accountId));
    const made = await deliveriesSince(deps, accountId, story.before);
    await deps.store.accounts.update(accountId, (d) => {
      const demo = ensureDemo(d);
      const loaded = demo.story;
      if (!loaded) return;
      const { before } = loaded;
      d.locations = copyOf(before.locations);
      d.subscriptions = copyOf(before.subscriptions);
      d.confirmationTokens = copyOf(before.confirmationTokens);
      d.alerts = copyOf(before.alerts);
      d.runs = copyOf(before.runs);
      if (mode === 'end') {
        d.clock = { ...before.clock };
        demo.story = null;
        return;
      }
      loaded.state = 'ready';
      loaded.runId = null;
      loaded.anchorProcessMs = null;
      prepare(deps, d, loaded, receiver);
    });
    await deps.store.deliveries.remove(accountId, made);
  });
  await announce(deps, accountId, { clock: true, reset: true });
}
