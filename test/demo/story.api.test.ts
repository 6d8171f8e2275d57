import request from 'supertest';

import { STEP_HOLD_MS, storyStartMs } from '../../src/demo/story.js';
import type { StoryView } from '../../src/demo/view-types.js';
import { listen } from '../auth/listening.js';
import { buildTestApp, deliveriesIn, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, OTHER_ACCOUNT_ID } from '../helpers/demo.js';
import { openPresenter, type Presenter } from '../helpers/presenter.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let presenter: Presenter;

beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
  // The story subscribes the sandbox's own demo receiver: at this server's address.
  t.deps.urls.publicUrl = server.baseUrl;
  presenter = await openPresenter(server.baseUrl);
});
afterEach(async () => {
  t.deps.demoStreams.closeAll();
  await t.deps.dispatcher.idle();
  await server.close();
});

const ZONE = DEMO_LOCATIONS[0]!.timeZone;
const localTime = (ms: number): string =>
  new Intl.DateTimeFormat('en-US', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: ZONE }).format(ms);

async function startStory(body: Record<string, unknown>): Promise<StoryView> {
  const answer = await presenter.call<StoryView>('POST', '/demo/story', body);
  if (answer.status !== 201)
    throw new Error(`POST /demo/story answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Real time passes (the process clock) and the presenter's page ticks, until the story ends. */
async function playToTheEnd(): Promise<StoryView[]> {
  const seen: StoryView[] = [await presenter.story('play')];
  for (let i = 0; i < 100 && seen.at(-1)!.state !== 'ended'; i++) {
    t.clock.advance(STEP_HOLD_MS);
    seen.push(await presenter.story('tick'));
    await t.deps.dispatcher.idle();
  }
  expect(seen.at(-1)!.state).toBe('ended');
  return seen;
}

/** What the story may change, and must put back. */
async function accountState(): Promise<unknown> {
  const doc = await docOf(t);
  return {
    locations: doc.locations,
    subscriptions: doc.subscriptions,
    confirmationTokens: doc.confirmationTokens,
    alerts: doc.alerts,
    runs: doc.runs,
    deliveries: (await deliveriesIn(t)).map((d) => d.deliveryId),
  };
}

const alertTimesOf = async (): Promise<unknown[]> =>
  (await docOf(t)).alerts.map((a) => [a.type, a.startTime, a.detectedTime, a.stopTime, a.active]);

describe('GET /demo', () => {
  it('sends a browser that is not signed in to the sign-in form, which comes back to the view after it', async () => {
    const res = await fetch(`${server.baseUrl}/demo?prospect=Acme`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/?next=%2Fdemo%3Fprospect%3DAcme');
    const form = await (await fetch(`${server.baseUrl}${res.headers.get('location')!}`)).text();
    expect(form).toContain('name="next" value="/demo?prospect=Acme"');
  });

  it('after the sign-in, goes where `next` says on this site only', async () => {
    const signIn = async (next: string): Promise<string | null> => {
      const form = await fetch(`${server.baseUrl}/`);
      const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())![1]!;
      const res = await fetch(`${server.baseUrl}/dashboard/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: csrf, email: 'demo@example.com', password: 'demo-password', next }),
      });
      return res.headers.get('location');
    };
    expect(await signIn('/demo?story=cold-snap')).toBe('/demo?story=cold-snap');
    for (const elsewhere of ['//evil.example/demo', 'https://evil.example/', '/\\evil.example', 'demo'])
      expect(await signIn(elsewhere)).toBe('/');
  });

  it('shows the signed-in presenter the view with its stories and homes, and no access token', async () => {
    expect(presenter.config.stories.map((s) => s.name)).toEqual(expect.arrayContaining(['slow-leak-escalates']));
    expect(presenter.config.stories.find((s) => s.name === 'cold-snap')?.title).toBe('A freezing night');
    expect(presenter.config.locations.map((l) => l.locationId)).toEqual(DEMO_LOCATIONS.map((l) => l.locationId));
    expect(presenter.scene.location?.name).toBe('Maple Street Home');
    // The view's calls go with the session: opening it issues no access token (none to expire as a story moves the clock).
    const tokens = (await docOf(t)).accessTokens;
    const page = await (await fetch(`${server.baseUrl}/demo`, { headers: { cookie: presenter.cookie } })).text();
    expect(page).not.toContain(DEMO_API_KEY);
    expect((await docOf(t)).accessTokens).toEqual(tokens);
    for (const token of tokens) expect(page).not.toContain(token.accessToken);
  });
});

describe('the presenter routes', () => {
  it.each([
    ['GET', '/demo/scene'],
    ['POST', '/demo/story'],
    ['POST', '/demo/story/play'],
    ['PUT', '/demo/view'],
    ['GET', '/demo/links'],
    ['POST', '/demo/links'],
  ])('%s %s answers 401 signed_out without a session', async (method, path) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { 'x-csrf-token': presenter.config.csrfToken },
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: string }).error).toBe('signed_out');
  });

  it.each([
    ['POST', '/demo/story', { scenario: 'cold-snap' }],
    ['POST', '/demo/story/play', undefined],
    ['PUT', '/demo/view', { prospect: 'x' }],
    ['POST', '/demo/links', undefined],
  ])('%s %s answers 403 csrf_refused without the page token, and changes nothing', async (method, path, body) => {
    const before = await docOf(t);
    const answer = await presenter.call<{ error: string }>(method, path, body, { csrf: false });
    expect([answer.status, answer.body.error]).toEqual([403, 'csrf_refused']);
    expect(await docOf(t)).toEqual(before);
  });
});

describe('a story', () => {
  it('loads ready at its time of day, frozen, with the demo receiver subscribed when the home has no subscription', async () => {
    const story = await startStory({ scenario: 'slow-leak-escalates', speed: 7200 });
    expect(story).toMatchObject({
      state: 'ready',
      speed: 7200,
      title: 'A drip that turns into a burst pipe',
      caption: null,
    });
    expect(localTime(story.startMs)).toBe('02:10');
    expect(story.startMs).toBeLessThanOrEqual(t.clock.now().getTime());
    expect(story.steps.map((s) => s.done)).toEqual([false, false, false, false, false]);
    expect(story.steps.map((s) => s.at)).toEqual(['2:10 AM', '2:10 AM', '2:20 AM', '2:50 AM', '4:10 AM']);
    const doc = await docOf(t);
    expect(doc.clock).toEqual({ offsetMs: 0, frozenAtMs: story.startMs });
    expect(doc.subscriptions).toEqual([
      expect.objectContaining({
        locationId: DEMO_LOCATION_ID,
        endpoint: `${server.baseUrl}/dashboard/demo-receiver`,
        status: 'confirmed',
      }),
    ]);
  });

  it('leaves the subscriptions alone when the home has a confirmed one', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      await givenConfirmedSubscription(t, receiver);
      const before = (await docOf(t)).subscriptions;
      await startStory({ scenario: 'cold-snap' });
      expect((await docOf(t)).subscriptions).toEqual(before);
    } finally {
      await receiver.close();
    }
  });

  it('plays to its end: each step fires at its own instant, the story holding at each, and every notification is delivered', async () => {
    const { startMs } = await startStory({ scenario: 'slow-leak-escalates', speed: 86_400 });
    const seen = await playToTheEnd();
    const stops = seen.filter((s) => s.caption !== null).map((s) => [s.nowMs - startMs, s.caption]);
    // Each step's instant is reached exactly, however far a tick would have gone, and its caption shown.
    expect(new Set(stops.map(([offset]) => offset))).toEqual(new Set([0, 600_000, 2_400_000, 7_200_000, 9_000_000]));
    const captions = new Set(seen.map((s) => s.caption));
    for (const step of seen.at(-1)!.steps) expect([...captions].join(' ')).toContain(step.caption);
    const sent = (await deliveriesIn(t)).filter((d) => d.kind === 'alert');
    expect(
      sent.map((d) => [d.state, (d.payload as { type: string }).type, (d.payload as { active: boolean }).active]),
    ).toEqual([
      ['delivered', 'lowLeak', true],
      ['delivered', 'highLeak', true],
      ['delivered', 'highLeak', false],
      ['delivered', 'lowLeak', true],
      ['delivered', 'lowLeak', false],
    ]);
    const doc = await docOf(t);
    expect(doc.runs.at(-1)).toMatchObject({ state: 'completed', nextStep: 5 });
    expect(doc.alerts.find((a) => a.type === 'highLeak')?.startTime).toBe((startMs + 600_000) / 1000 - 300);
  });

  it('holds at a step for STEP_HOLD_MS of real time before it moves on', async () => {
    const { startMs } = await startStory({ scenario: 'cold-snap', speed: 3600 });
    await presenter.story('play');
    t.clock.advance(STEP_HOLD_MS - 1);
    expect((await presenter.story('tick')).nowMs).toBe(startMs);
    t.clock.advance(1000);
    expect((await presenter.story('tick')).nowMs).toBe(startMs + 999 * 3600);
  });

  it('moves no more than 2 s of real time at once: a page that stopped ticking resumes where it was', async () => {
    const { startMs } = await startStory({ scenario: 'cold-snap', speed: 60 });
    await presenter.story('play');
    t.clock.advance(STEP_HOLD_MS);
    await presenter.story('tick');
    t.clock.advance(60 * 60_000);
    expect((await presenter.story('tick')).nowMs).toBe(startMs + 2000 * 60);
  });

  it('does not move while paused, and plays on from where it paused', async () => {
    const { startMs } = await startStory({ scenario: 'cold-snap', speed: 60 });
    await presenter.story('play');
    t.clock.advance(STEP_HOLD_MS);
    await presenter.story('tick');
    t.clock.advance(1000);
    const paused = await presenter.story('pause');
    expect(paused).toMatchObject({ state: 'paused', nowMs: startMs + 60_000 });
    t.clock.advance(1000);
    expect((await presenter.story('tick')).nowMs).toBe(startMs + 60_000);
    await presenter.story('play');
    t.clock.advance(1000);
    expect((await presenter.story('tick')).nowMs).toBe(startMs + 120_000);
  });

  it('Next step fires the first steps, then goes to each next step, then to the end', async () => {
    const { startMs } = await startStory({ scenario: 'slow-leak-escalates' });
    const first = await presenter.story('next');
    expect(first).toMatchObject({ state: 'paused', nowMs: startMs });
    expect(first.steps.map((s) => s.done)).toEqual([true, true, false, false, false]);
    expect(first.caption).toContain('A pipe starts to drip');
    expect((await presenter.story('next')).nowMs).toBe(startMs + 600_000);
    expect((await presenter.story('next')).nowMs).toBe(startMs + 2_400_000);
    const last = await presenter.story('next');
    expect([last.nowMs, last.steps.every((s) => s.done), last.state]).toEqual([startMs + 7_200_000, true, 'paused']);
    expect(await presenter.story('next')).toMatchObject({ state: 'ended', nowMs: last.endMs });
    const again = await presenter.call<{ error: string }>('POST', '/demo/story/next');
    expect([again.status, again.body.error]).toEqual([409, 'story_ended']);
  });

  it('Restart puts the account back as it was before the story, and plays the same story again', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      // Something before the story that it must not lose: a subscription, its deliveries, an alert that ended.
      await givenConfirmedSubscription(t, receiver);
      const started = await request(t.app)
        .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts`)
        .set(bearer(DEMO_API_KEY))
        .send({ type: 'waterTemp' })
        .expect(201);
      await request(t.app)
        .post(`/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${started.body.alertId}/end`)
        .set(bearer(DEMO_API_KEY))
        .expect(200);
      await t.deps.dispatcher.idle();
      const before = await accountState();

      const { startMs } = await startStory({ scenario: 'slow-leak-escalates', speed: 86_400 });
      await playToTheEnd();
      const firstRun = await alertTimesOf();
      expect(await accountState()).not.toEqual(before);

      const restarted = await presenter.story('restart');
      expect(restarted).toMatchObject({ state: 'ready', nowMs: startMs, caption: null });
      expect(await accountState()).toEqual(before);
      expect((await docOf(t)).clock).toEqual({ offsetMs: 0, frozenAtMs: startMs });

      await playToTheEnd();
      expect(await alertTimesOf()).toEqual(firstRun);
    } finally {
      await receiver.close();
    }
  });

  it('ending it puts the account back as it was, its running clock included', async () => {
    const before = await accountState();
    const clockBefore = (await docOf(t)).clock;
    await startStory({ scenario: 'away-leak', speed: 86_400 });
    await presenter.story('next');
    await presenter.story('next');
    await t.deps.dispatcher.idle();
    const ended = await presenter.call('DELETE', '/demo/story');
    expect([ended.status, ended.body]).toEqual([200, { story: null }]);
    expect(await accountState()).toEqual(before);
    expect((await docOf(t)).clock).toEqual(clockBefore);
    expect((await docOf(t)).demo?.story).toBeNull();
  });

  it('a new story ends the one loaded first, putting the account back before it copies it', async () => {
    const before = await accountState();
    await startStory({ scenario: 'away-leak' });
    await presenter.story('next');
    await startStory({ scenario: 'cold-snap' });
    await presenter.call('DELETE', '/demo/story');
    expect(await accountState()).toEqual(before);
  });

  it('changes its speed, playing on from where it is', async () => {
    const { startMs } = await startStory({ scenario: 'cold-snap', speed: 60 });
    await presenter.story('play');
    t.clock.advance(STEP_HOLD_MS);
    await presenter.story('tick');
    t.clock.advance(1000);
    const faster = await presenter.call<StoryView>('PUT', '/demo/story/speed', { speed: 600 });
    expect(faster.body).toMatchObject({ speed: 600, speedText: 'An hour in 6 seconds', nowMs: startMs + 60_000 });
    t.clock.advance(1000);
    expect((await presenter.story('tick')).nowMs).toBe(startMs + 660_000);
  });

  it.each([
    [{ scenario: 'no-such-story' }, 404, 'not_found', undefined],
    [{ scenario: 'cold-snap', locationId: 'not-a-location' }, 404, 'not_found', undefined],
    [{ scenario: 'cold-snap', speed: 0 }, 400, 'invalid_parameter', 'speed'],
    [{ scenario: 'cold-snap', speed: 1.5 }, 400, 'invalid_parameter', 'speed'],
    [{ scenario: 'cold-snap', tempo: 2 }, 400, 'invalid_parameter', 'tempo'],
    [{}, 400, 'invalid_parameter', 'scenario'],
  ])('refuses %j with %i %s, changing nothing', async (body, status, error, parameter) => {
    const before = await docOf(t);
    const answer = await presenter.call<{ error: string; parameter?: string; message: string }>(
      'POST',
      '/demo/story',
      body,
    );
    expect([answer.status, answer.body.error, answer.body.parameter]).toEqual([status, error, parameter]);
    expect(await docOf(t)).toEqual(before);
  });

  it('answers 409 no_story to an action when no story is loaded', async () => {
    for (const action of ['play', 'pause', 'tick', 'next', 'restart']) {
      const answer = await presenter.call<{ error: string }>('POST', `/demo/story/${action}`);
      expect([action, answer.status, answer.body.error]).toEqual([action, 409, 'no_story']);
    }
    expect((await presenter.call('DELETE', '/demo/story')).status).toBe(409);
  });

  it("plays in the presenter's account only", async () => {
    const other = await docOf(t, OTHER_ACCOUNT_ID);
    await startStory({ scenario: 'slow-leak-escalates', speed: 86_400 });
    await playToTheEnd();
    expect(await docOf(t, OTHER_ACCOUNT_ID)).toEqual(other);
    const otherLocation = (await docOf(t, OTHER_ACCOUNT_ID)).locations[0]!.locationId;
    expect(
      (await presenter.call('POST', '/demo/story', { scenario: 'cold-snap', locationId: otherLocation })).status,
    ).toBe(404);
  });
});

describe('storyStartMs', () => {
  it('is the last instant, not after now, at which the zone shows the time of day asked for', () => {
    const now = Date.parse('2026-03-10T15:30:20Z'); // 11:30 in New York
    expect(new Date(storyStartMs(now, '02:10', 'America/New_York')).toISOString()).toBe('2026-03-10T06:10:00.000Z');
    expect(new Date(storyStartMs(now, '22:40', 'America/New_York')).toISOString()).toBe('2026-03-10T02:40:00.000Z');
    expect(new Date(storyStartMs(now, '11:30', 'America/New_York')).toISOString()).toBe('2026-03-10T15:30:00.000Z');
    expect(new Date(storyStartMs(now, undefined, 'America/New_York')).toISOString()).toBe('2026-03-10T15:30:00.000Z');
  });

  it('keeps the local time across a change of daylight saving time', () => {
    // New York moved its clocks forward at 2:00 on 2026-03-08: 01:00 local that day was 06:00Z.
    const now = Date.parse('2026-03-08T15:00:00Z');
    expect(new Date(storyStartMs(now, '01:00', 'America/New_York')).toISOString()).toBe('2026-03-08T06:00:00.000Z');
    expect(new Date(storyStartMs(now, '09:00', 'America/New_York')).toISOString()).toBe('2026-03-08T13:00:00.000Z');
  });
});
