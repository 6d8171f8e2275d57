import request from 'supertest';

import { ALERT_TYPES } from '../../src/alerts/index.js';
import { buildScene } from '../../src/demo/index.js';
import { spokenDuration } from '../../src/demo/page-config.js';
import type { Scene } from '../../src/demo/view-types.js';
import { alertName, notificationOf, possessive, zoneName } from '../../src/demo/words.js';
import { listen } from '../auth/listening.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { openPresenter, type Presenter } from '../helpers/presenter.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let presenter: Presenter;

beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
  t.deps.urls.publicUrl = server.baseUrl;
  presenter = await openPresenter(server.baseUrl);
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
  await server.close();
});

const sceneNow = async (): Promise<Scene> => (await buildScene(t.deps, DEMO_ACCOUNT_ID))!;

/** Every text of the scene a person reads: all its strings but the raw request, the keys and the zone's IANA name. */
function readText(value: unknown, path = ''): { path: string; text: string }[] {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => readText(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, v]) =>
      ['raw', 'key', 'timeZone', 'scenario'].includes(key) ? [] : readText(v, `${path}.${key}`),
    );
  return [];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const CAMEL_CASE = /\b[a-z]+[A-Z][A-Za-z]*\b/;
const EPOCH = /\b1[5-9]\d{8}(\d{3})?\b/;

describe('the scene', () => {
  it('is in words: no id, alert type name or epoch number in any text, after every kind of story', async () => {
    for (const scenario of ['slow-leak-escalates', 'away-leak', 'cold-snap', 'monitor-offline']) {
      await presenter.call('POST', '/demo/story', { scenario, speed: 86_400 });
      for (let step = 0; step < 8; step++) {
        await presenter.call('POST', '/demo/story/next');
        await t.deps.dispatcher.idle();
        for (const { path, text } of readText(await sceneNow())) {
          expect({ scenario, path, text, uuid: UUID.test(text) }).toEqual({ scenario, path, text, uuid: false });
          expect({ scenario, path, text, camel: CAMEL_CASE.test(text) }).toEqual({
            scenario,
            path,
            text,
            camel: false,
          });
          expect({ scenario, path, text, epoch: EPOCH.test(text) }).toEqual({ scenario, path, text, epoch: false });
        }
      }
    }
  });

  it('marks a leak from its start, says when it was detected, and keeps normal use readable', async () => {
    await presenter.call('POST', '/demo/story', { scenario: 'slow-leak-escalates', speed: 86_400 });
    for (let i = 0; i < 3; i++) await presenter.call('POST', '/demo/story/next');
    await t.deps.dispatcher.idle();
    const scene = await sceneNow();
    const story = scene.story!;
    expect(scene.chart.leaks).toEqual([
      // The drip started 5 minutes before it was detected (the alert's dwell), at the story's 2:10 AM.
      { fromMs: story.startMs - 300_000, toMs: null, label: 'Leak detected 2:10 AM' },
    ]);
    const normals = scene.chart.hours.map((h) => h.normal);
    const leaking = scene.chart.hours.filter((h) => h.leak > 0);
    // The burst's hundreds of gallons do not set the axis: the cap is a little above normal use.
    expect(Math.max(...leaking.map((h) => h.leak))).toBeGreaterThan(scene.chart.cap);
    expect(scene.chart.cap).toBeLessThanOrEqual(Math.max(...normals) * 2.6);
    expect(scene.flow).toMatchObject({ leakGallonsPerMinute: 0.4, detail: '0.4 of it from the leak' });
    expect(scene.flow.text).toMatch(/^\d+(\.\d)? gallons per minute$/);
    expect(scene.phone.notifications[0]).toMatchObject({
      active: true,
      title: 'Possible leak',
      // The drip has run since 2:05, through the burst: 45 minutes at 2:50, not since the burst ended.
      text: 'Possible leak at Maple Street Home: water has been running for 45 minutes.',
    });
  });

  it('clears the phone when the alert ends, saying when', async () => {
    const started = await request(t.app)
      .post('/demo/story')
      .set('cookie', presenter.cookie)
      .set('x-csrf-token', presenter.config.csrfToken)
      .send({ scenario: 'cold-snap' })
      .expect(201);
    expect(started.body.state).toBe('ready');
    for (let i = 0; i < 3; i++) await presenter.call('POST', '/demo/story/next');
    await t.deps.dispatcher.idle();
    const { notifications } = (await sceneNow()).phone;
    expect(notifications).toEqual([
      expect.objectContaining({
        active: false,
        title: 'Freezing risk: over',
        text: 'Resolved: the freezing risk at Maple Street Home stopped at 7:00 AM.',
      }),
    ]);
  });

  it('hides query values of an endpoint in the raw request, and names no one before a prospect is given', async () => {
    await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: 'http://127.0.0.1:9/hooks?key=partner-secret' })
      .expect(200);
    await t.deps.dispatcher.idle();
    const card = (await sceneNow()).cards.at(-1)!;
    expect(card.raw.requestLine).toBe('POST /hooks?key=[hidden] HTTP/1.1');
    expect(JSON.stringify(card)).not.toContain('partner-secret');
    expect(card.headline).toBe("Request to confirm the subscription sent to your app's endpoint");
  });
});

describe('the words', () => {
  it('names every alert type as a homeowner would, with a notification in words', () => {
    for (const type of ALERT_TYPES) {
      for (const peakStatus of [null, 'too_high', 'too_low'] as const) {
        const name = alertName(type, peakStatus);
        const note = notificationOf({ type, peakValue: 34, peakStatus }, 'Maple Street Home');
        for (const text of [name, note.title, note.before, note.after]) expect(text).not.toMatch(CAMEL_CASE);
        expect(note.before).toContain('Maple Street Home');
      }
    }
    expect(alertName('lowLeak', null)).toBe('Slow leak');
    expect(alertName('highLeak', null)).toBe('Major leak');
    expect(alertName('awayLeak', null)).toBe('Leak while away');
  });

  it('says durations, owners and zones as people do', () => {
    expect(spokenDuration(30_000)).toBe('less than a minute');
    expect(spokenDuration(60_000)).toBe('1 minute');
    expect(spokenDuration(2 * 3_600_000)).toBe('2 hours');
    expect(spokenDuration(3_600_000 + 10 * 60_000)).toBe('1 hour 10 minutes');
    expect(spokenDuration(26 * 3_600_000)).toBe('1 day 2 hours');
    expect([possessive('Acme'), possessive('Acme Widgets'), possessive('')]).toEqual([
      "Acme's",
      "Acme Widgets'",
      "your app's",
    ]);
    expect(zoneName(Date.parse('2026-03-10T12:00:00Z'), 'America/Los_Angeles')).toBe('Pacific time');
  });
});
