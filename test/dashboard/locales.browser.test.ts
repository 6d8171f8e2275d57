import type { Page } from 'playwright-core';
import request from 'supertest';

import { listen } from '../auth/listening.js';
import { launchBrowser, type BrowserLocale } from '../helpers/browser.js';
import { buildTestApp, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, DEMO_USER } from '../helpers/demo.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** A browser test drives a whole page: more than jest's default time. */
const BROWSER_TEST_MS = 60_000;

interface LocaleCase {
  name: string;
  browser: BrowserLocale;
  /** navigator.languages as the page sees it: proof that the browser was set up as the case says. */
  reported: string[];
  /** The locale the page should write its dates and numbers in. */
  expected: string;
}

/**
 * What browsers report in the wild. `en-US@posix` is headless Chromium on a machine whose LANG is
 * C.UTF-8 (most CI images and containers): reproduced here the way it happens, through LANG.
 */
const CASES: LocaleCase[] = [
  {
    name: 'en-US@posix (LANG=C.UTF-8)',
    browser: { locale: null, env: { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' } },
    reported: ['en-US@posix'],
    expected: 'en-US',
  },
  { name: 'C (--lang=C)', browser: { locale: null, args: ['--lang=C'] }, reported: ['C'], expected: 'en-US' },
  {
    name: 'an empty language list',
    browser: { locale: null, languages: { languages: [], language: '' } },
    reported: [],
    expected: 'en-US',
  },
  { name: 'de-DE', browser: { locale: 'de-DE' }, reported: ['de-DE'], expected: 'de-DE' },
  { name: 'ja-JP', browser: { locale: 'ja-JP' }, reported: ['ja-JP'], expected: 'ja-JP' },
];

const DEMO_ZONE = DEMO_LOCATIONS.find((l) => l.locationId === DEMO_LOCATION_ID)!.timeZone;

describe.each(CASES)('the dashboard in a browser reporting $name', ({ browser: browserLocale, reported, expected }) => {
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let t: TestApp;
  let server: Awaited<ReturnType<typeof listen>>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    // The browser's own zone is neither location's: every time on the page must name a location's.
    browser = await launchBrowser({ width: 1280, height: 900 }, { timezoneId: 'Europe/Berlin', ...browserLocale });
    t = await buildTestApp();
    server = await listen(t.app);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    // Each is unset when beforeAll failed before it.
    await (browser as typeof browser | undefined)?.close();
    await (t as typeof t | undefined)?.deps.dispatcher.idle();
    await (receiver as typeof receiver | undefined)?.close();
    await (server as typeof server | undefined)?.close();
  });

  it(
    'works whole: live updates, the delivery inspector, Redeliver, the journal, the clock and Reset, every time naming its zone, with no page error',
    async () => {
      const page = await browser.context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('dialog', (dialog) => {
        problems.push(`browser dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      // A subscription (its confirmation is a delivery) and a journal entry to show.
      await request(t.app)
        .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
        .set(bearer(DEMO_API_KEY))
        .send({ endpoint: receiver.url() })
        .expect(200);
      await receiver.waitFor(1);
      await request(t.app).get('/v1/locations').set(bearer(DEMO_API_KEY)).expect(200);

      await page.goto(`${server.baseUrl}/`);
      expect(await page.evaluate('navigator.languages')).toEqual(reported);
      await page.fill('#email', DEMO_USER.email);
      await page.fill('#password', DEMO_USER.password);
      await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click('button[type=submit]')]);
      await page.locator('#dashboard[data-ready="true"]').waitFor();
      expect(await page.getAttribute('#dashboard', 'data-locale')).toBe(expected);
      await page.locator('#live[data-state="live"]').waitFor();
      await page.locator('#chart canvas').first().waitFor();
      await page.locator('#clock-now[data-now]').waitFor();
      const delivery = page.locator('#deliveries li[data-delivery-id]').first();
      await delivery.waitFor();
      const journalRow = page.locator('#journal li[data-status]').first();
      await journalRow.waitFor();

      // Dates in the expected locale, each naming the location's zone (not the browser's).
      const { zoneName, month } = await zoneAndMonth(page, expected, DEMO_ZONE, TEST_START);
      expect(zoneName).toMatch(/^(EDT|GMT-4|UTC-4)$/);
      // The location's local time follows once the clock has loaded.
      await page.locator('#location-zone', { hasText: zoneName }).waitFor();
      for (const text of [
        await page.textContent('#clock-now'),
        await delivery.textContent(),
        await journalRow.textContent(),
      ]) {
        expect(text).toContain(zoneName);
      }
      expect(await page.textContent('#clock-now')).toContain(month);

      // Live: a request of the partner's app shows up in the journal by itself.
      await request(t.app).get('/v1/subscriptions/not-a-subscription').set(bearer(DEMO_API_KEY)).expect(404);
      await page.locator('#journal li.error').first().waitFor();

      // The inspector, and Redeliver from it.
      const deliveryId = (await delivery.getAttribute('data-delivery-id'))!;
      await delivery.locator('button.row-open').click();
      await page.locator(`dialog#inspector[open][data-delivery-id="${deliveryId}"]`).waitFor();
      expect(await page.textContent('#inspector')).toContain(zoneName);
      await page.click('#redeliver');
      await receiver.waitFor(2);
      await page.locator(`dialog#inspector[open]:not([data-delivery-id="${deliveryId}"])`).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('dialog#inspector[open]').waitFor({ state: 'detached' });

      // The clock buttons move the account's clock.
      await page.click('button[data-advance="3600"]');
      await page
        .locator(`#clock-now[data-now="${new Date(TEST_START.getTime() + 3_600_000).toISOString()}"]`)
        .waitFor();

      // Reset asks first (the page's own dialog); cancelled, nothing happens.
      await page.click('#reset');
      await page.locator('#confirm-dialog[open]').waitFor();
      await page.click('#confirm-dialog button[data-answer="cancel"]');
      await page.locator('#confirm-dialog[open]').waitFor({ state: 'detached' });

      expect(problems).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_MS,
  );
});

/** The zone's name and the month's short name as Intl in the same browser writes them in `locale`. */
async function zoneAndMonth(
  page: Page,
  locale: string,
  timeZone: string,
  at: Date,
): Promise<{ zoneName: string; month: string }> {
  return page.evaluate<{ zoneName: string; month: string }>(`(() => {
    const at = new Date(${at.getTime()});
    const zoneName = new Intl.DateTimeFormat(${JSON.stringify(locale)}, { timeZone: ${JSON.stringify(timeZone)}, timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName').value;
    const month = new Intl.DateTimeFormat(${JSON.stringify(locale)}, { timeZone: ${JSON.stringify(timeZone)}, month: 'short' }).format(at);
    return { zoneName, month };
  })()`);
}
