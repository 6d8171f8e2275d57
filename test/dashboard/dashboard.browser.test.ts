import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';

import { clockState } from '../../src/clock/account-clock.js';
import { listen } from '../auth/listening.js';
import { launchBrowser } from '../helpers/browser.js';
import { buildTestApp, changeDoc, docOf, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, DEMO_USER } from '../helpers/demo.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** Set to a file path to keep a full-page screenshot of the dashboard (for looking at the layout). */
const SCREENSHOT = process.env['DASHBOARD_SCREENSHOT'];

let context: BrowserContext;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let receiver: WebhookReceiver;
let page: Page;
let problems: string[];

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  browser = await launchBrowser({ width: 1280, height: 800 });
  context = browser.context;
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
  receiver = await WebhookReceiver.start();
  await context.clearCookies();
  page = await context.newPage();
  // Script errors and Content-Security-Policy refusals would leave the page half-working.
  problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
});
afterEach(async () => {
  await page.close();
  await t.deps.dispatcher.idle();
  await receiver.close();
  await server.close();
});

/** Subscribes the receiver to the location with the demo API key; confirms it unless told not to. */
async function subscribeReceiver(locationId: string, confirm = true): Promise<string> {
  const before = receiver.received.length;
  const res = await request(t.app).post(`/v1/locations/${locationId}/subscriptions`).set(bearer(DEMO_API_KEY)).send({ endpoint: receiver.url() }).expect(200);
  await receiver.waitFor(before + 1);
  if (confirm) {
    const { confirmationUrl } = receiver.received[before]!.body as { confirmationUrl: string };
    const url = new URL(confirmationUrl);
    await request(t.app).get(url.pathname + url.search).set(bearer(DEMO_API_KEY)).expect(200);
  }
  await t.deps.dispatcher.idle();
  return (res.body as { subscriptionId: string }).subscriptionId;
}

async function signIn(): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await page.fill('#email', DEMO_USER.email);
  await page.fill('#password', DEMO_USER.password);
  await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click('button[type=submit]')]);
  await page.locator('#dashboard').waitFor();
}

describe('the dashboard in a real browser', () => {
  it('signs in, draws the chart, starts and ends an alert that a confirmed receiver gets, and moves the clock', async () => {
    const subscriptionId = await subscribeReceiver(DEMO_LOCATION_ID);
    await signIn();

    const card = page.locator(`[data-location-id="${DEMO_LOCATION_ID}"]`);
    await card.locator('svg.chart[data-buckets="168"] rect.bar').first().waitFor();
    expect(await card.locator('svg.chart rect.bar').count()).toBe(168);
    expect(await card.locator('svg.chart text').allTextContents()).toContain('gallons per hour, last 7 days (location time)');
    await page.locator(`#subscriptions-body tr[data-subscription-id="${subscriptionId}"][data-status="confirmed"]`).waitFor();

    const sent = receiver.received.length;
    await card.locator('select[name=type]').selectOption('lowLeak');
    await card.locator('form[data-action="start-alert"] button[type=submit]').click();
    await receiver.waitFor(sent + 1);
    expect(receiver.received[sent]!.body).toMatchObject({ subscriptionId, locationId: DEMO_LOCATION_ID, type: 'lowLeak', active: true, stopTime: 0 });
    const logged = page.locator('#deliveries-body tr[data-kind="alert"][data-state="delivered"]').first();
    await logged.waitFor();
    expect(await logged.textContent()).toMatch(/alert · lowLeak start.*POST http:\/\/127\.0\.0\.1:\d+\/hooks.*delivered.*200 · \d+ ms/);
    await card.locator('.alerts li[data-alert-type="lowLeak"]').waitFor();

    await card.locator('[data-chart="daily"]').click();
    await card.locator('svg.chart[data-mode="daily"][data-buckets="30"]').waitFor();
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });

    await card.locator('button[data-action="end-alert"]').click();
    await receiver.waitFor(sent + 2);
    expect(receiver.received[sent + 1]!.body).toMatchObject({ type: 'lowLeak', active: false });
    await card.locator('.alerts li.none').waitFor();

    // +1 h also outlives the page's token (ACCESS_TOKEN_TTL is an hour): the page reloads with a fresh one.
    const later = new Date(TEST_START.getTime() + 3600_000).toISOString();
    await page.click('button[data-advance="3600"]');
    await page.locator(`#clock-now[data-now="${later}"]`).waitFor();
    expect(clockState(t.clock, (await docOf(t)).clock)).toMatchObject({ now: later, offsetSeconds: 3600 });
    expect(await page.textContent('#flash')).toContain('Clock moved forward 1 hour.');
    // The chart range chosen before the reload is kept.
    await card.locator('svg.chart[data-mode="daily"] rect.bar').first().waitFor();
    expect(problems).toEqual([]);
  });

  it('reloads itself with a fresh access token when the API refuses the old one', async () => {
    await signIn();
    await page.locator('#deliveries-body tr').first().waitFor();
    const tokenOnPage = async (): Promise<string> => (JSON.parse((await page.getAttribute('#dashboard', 'data-config'))!) as { accessToken: string }).accessToken;
    const first = await tokenOnPage();

    const reloaded = page.waitForEvent('load');
    await request(t.app).post('/sandbox/tokens/expire').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    await reloaded;
    const second = await tokenOnPage();
    expect(second).not.toBe(first);
    await page.locator('#live:not(.offline)').waitFor();
    await request(t.app).get('/v1/locations').set(bearer(second)).expect(200);
    expect(problems).toEqual([]);
  });

  it('shows hostile names as text, in the server-rendered page and in what the script renders', async () => {
    const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    await changeDoc(t, (d) => {
      d.locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.name = hostile;
    });
    const subscriptionId = await subscribeReceiver(DEMO_LOCATION_ID, false);
    await signIn();

    expect(await page.textContent(`[data-location-id="${DEMO_LOCATION_ID}"] h2`)).toBe(hostile);
    const row = page.locator(`#subscriptions-body tr[data-subscription-id="${subscriptionId}"]`);
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe(hostile);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator(`[data-location-id]`).count()).toBe(DEMO_LOCATIONS.length);
    expect(problems).toEqual([]);
  });
});
