import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';

import { listen } from '../auth/listening.js';
import { launchBrowser } from '../helpers/browser.js';
import { buildTestApp, changeDoc, docOf, TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, DEMO_USER } from '../helpers/demo.js';
import { horizontalOverflow, screenshot, seriousAccessibilityViolations, WIDTHS } from '../helpers/page-checks.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { WebhookReceiver, type ReceivedRequest } from '../helpers/webhook-receiver.js';

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let receiver: WebhookReceiver;
let context: BrowserContext;
let page: Page;
let problems: string[];
const screenshots: string[] = [];
/** The colour of the chart's "now" line (#8a1c12, usage-panel.ts). */
const NOW_LINE_RGB = [0x8a, 0x1c, 0x12] as const;
/** A browser test drives a whole page: more than jest's default time. */
const BROWSER_TEST_MS = 60_000;

beforeAll(async () => {
  // The browser's own zone is neither location's: every time on the page must be a location's.
  browser = await launchBrowser(undefined, { timezoneId: 'Europe/Berlin' });
  context = browser.context;
});
afterAll(async () => {
  // Unset when beforeAll failed.
  await (browser as typeof browser | undefined)?.close();
  if (screenshots.length > 0)
    process.stdout.write(`dashboard screenshots:\n${screenshots.map((p) => `  ${p}\n`).join('')}`);
});

async function openPage(width: number): Promise<void> {
  await context.clearCookies();
  page = await context.newPage();
  await page.setViewportSize({ width, height: 844 });
  // Script errors and Content-Security-Policy refusals would leave the page half-working.
  problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content.Security.Policy|Refused to/i.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`browser dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
}

beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  for (const open of context.pages()) await open.close();
  await t.deps.dispatcher.idle();
  await receiver.close();
  await server.close();
});

async function signIn(): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await page.fill('#email', DEMO_USER.email);
  await page.fill('#password', DEMO_USER.password);
  await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click('button[type=submit]')]);
  await page.locator('#dashboard[data-ready="true"]').waitFor();
  await page.locator('#live[data-state="live"]').waitFor();
}

/** Everything the page loads on arrival is on screen. */
async function loaded(): Promise<void> {
  await page.locator('#chart canvas').first().waitFor();
  await page.locator('#subscriptions li').first().waitFor();
  await page.locator('#deliveries li').first().waitFor();
  await page.locator('#journal li').first().waitFor();
  await page.locator('#clock-now[data-now]').waitFor();
}

/** A new page of `width`, signed in, every panel loaded. */
async function openSignedIn(width: number): Promise<void> {
  await openPage(width);
  await signIn();
  await loaded();
}

/** From now on, every answer of 400 or more the page gets and every error in its console. */
function recordFailures(): { refused: string[]; consoleErrors: string[] } {
  const refused: string[] = [];
  const consoleErrors: string[] = [];
  page.on('response', (response) => {
    if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  return { refused, consoleErrors };
}

/** Counts the times the page itself navigates (a reload included). */
function navigationCounter(): () => number {
  let count = 0;
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) count += 1;
  });
  return () => count;
}

/** A request with the demo account's API key, as the partner's app sends it beside the page. */
function asDemo(method: 'get' | 'post' | 'put', path: string, body?: object): request.Test {
  const sent = request(t.app)[method](path).set(bearer(DEMO_API_KEY));
  return body === undefined ? sent : sent.send(body);
}

/**
 * Something in every list the page shows: a confirmed and a pending subscription, an alert in
 * force with its deliveries, a scenario run, and a failed request in the journal.
 */
async function fillEveryList(): Promise<void> {
  await givenConfirmedSubscription(t, receiver);
  const pending = { endpoint: receiver.url('/second') };
  await asDemo('post', `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, pending).expect(200);
  await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { type: 'lowLeak' }).expect(201);
  await asDemo('post', '/sandbox/scenarios/slow-leak-escalates/runs', { locationId: DEMO_LOCATION_ID }).expect(201);
  await asDemo('get', '/v1/locations/not-a-location').expect(404);
  await t.deps.dispatcher.idle();
}

describe.each(WIDTHS)('the dashboard at %i px wide', (width) => {
  it(
    'fits the screen and passes an accessibility scan, signed out, signed in with every list filled, and with its dialogs open',
    async () => {
      await openPage(width);
      await page.goto(`${server.baseUrl}/`);
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      screenshots.push(await screenshot(page, `sign-in-${width}`));

      await fillEveryList();
      await signIn();
      await loaded();
      await page.locator('#subscriptions li[data-status="pending"]').waitFor();
      await page.locator('#subscriptions li[data-status="confirmed"]').waitFor();
      await page.locator('#deliveries li[data-kind="alert"][data-state="delivered"]').waitFor();
      await page.locator('#alerts li[data-alert-type="lowLeak"]').waitFor();
      await page.locator('#runs li').first().waitFor();
      await page.locator('#journal li.error').first().waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      screenshots.push(await screenshot(page, `dashboard-${width}`));

      // The page behind a modal dialog is inert: each dialog is scanned open.
      await page.locator('#deliveries li[data-kind="alert"] button.row-open').click();
      await page.locator('dialog#inspector[open]').waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.click('#reset');
      await page.locator('#confirm-dialog[open]').waitFor();
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.click('#confirm-dialog button[data-answer="cancel"]');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'names every control by what it shows, so voice control can reach it by the words on screen',
    async () => {
      await openPage(width);
      await fillEveryList();
      await signIn();
      await loaded();
      const row = page.locator('#deliveries li[data-kind="alert"][data-state="delivered"]');
      await row.waitFor();
      const open = row.locator('button.row-open');
      await page.getByRole('button', { name: (await open.innerText()).replace(/\s+/g, ' ').trim() }).waitFor();
      // The copy buttons say what they copy to screen readers, after the word they show.
      const copy = page.getByRole('button', { name: `Copy location id ${DEMO_LOCATION_ID}`, exact: true });
      expect(await copy.locator('span:not(.visually-hidden)').textContent()).toBe('Copy');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'runs the whole alert demo from the page, live and without reloading',
    async () => {
      await openSignedIn(width);
      const navigations = navigationCounter();
      await page.evaluate("window.demoMarker = 'the same page'");

      // Subscribe the receiver and confirm it, as a partner's app would.
      await page.fill('#endpoint', receiver.url());
      await page.click('#add-subscription button[type=submit]');
      const row = page.locator('#subscriptions li[data-subscription-id]');
      await row.and(page.locator('[data-status="pending"]')).waitFor();
      await receiver.waitFor(1);
      await row.locator('button[data-action="confirm"]').click();
      await page.locator('#subscriptions li[data-status="confirmed"]').waitFor();
      const subscriptionId = (await row.getAttribute('data-subscription-id'))!;

      // Start a leak: the receiver gets it and the delivery shows up by itself.
      await page.selectOption('#alert-type', 'lowLeak');
      await page.click('#start-alert button[type=submit]');
      await page.locator('#alerts li[data-alert-type="lowLeak"]').waitFor();
      const isLeakPost = (r: ReceivedRequest): boolean =>
        r.method === 'POST' && (r.body as { type?: string } | null)?.type === 'lowLeak';
      const [sent] = await receiver.waitForMatching(isLeakPost);
      if (!sent) throw new Error('no alert arrived');
      expect(sent.body).toMatchObject({ subscriptionId, locationId: DEMO_LOCATION_ID, type: 'lowLeak', active: true });
      const deliveryId = sent.headers['x-sandbox-delivery-id'] as string;
      const delivery = page.locator(`#deliveries li[data-delivery-id="${deliveryId}"][data-state="delivered"]`);
      await delivery.waitFor();
      expect(await delivery.textContent()).toMatch(
        /alert · lowLeak start.*POST http:\/\/127\.0\.0\.1:\d+\/r-[0-9a-f]+\/hooks.*1 attempt · 200 · \d+ ms/,
      );

      // Open it: the request as sent and the receiver's answer.
      await delivery.locator('button.row-open').click();
      const inspector = page.locator(`dialog#inspector[open][data-delivery-id="${deliveryId}"]`);
      await inspector.waitFor();
      expect(await inspector.locator('#inspector-url').textContent()).toBe(`POST ${receiver.url()}`);
      const headers = await inspector.locator('#inspector-headers').textContent();
      expect(headers).toContain(`X-Sandbox-Delivery-Id${deliveryId}`);
      expect(headers).toContain('X-Sandbox-Attempt1');
      expect(headers).toContain('Content-Typeapplication/json');
      expect(JSON.parse((await inspector.locator('#inspector-body').textContent())!)).toEqual(sent.body);
      expect(await inspector.locator('li[data-attempt="1"]').textContent()).toContain('{\n  "ok": true\n}');
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      screenshots.push(await screenshot(page, `inspector-${width}`, false));

      // Redeliver it: the same body again, as a new delivery.
      await inspector.locator('#redeliver').click();
      const again = (await receiver.waitForMatching(isLeakPost, 2))[1]!;
      expect(again.body).toEqual(sent.body);
      const copyId = again.headers['x-sandbox-delivery-id'] as string;
      expect(copyId).not.toBe(deliveryId);
      await page.locator(`dialog#inspector[open][data-delivery-id="${copyId}"][data-state="delivered"]`).waitFor();
      await page.keyboard.press('Escape');
      await page.locator('dialog#inspector[open]').waitFor({ state: 'detached' });
      await page.locator(`#deliveries li[data-delivery-id="${copyId}"]`).waitFor();

      // A scenario played by moving the clock a day (past the page's token too): no reload.
      await page.selectOption('#scenario', 'slow-leak-escalates');
      await page.click('#run-scenario button[type=submit]');
      await page.locator('#runs li[data-state="running"]').waitFor();
      await page.click('button[data-advance="86400"]');
      await page.locator('#runs li[data-state="completed"]').waitFor();
      const dayLater = new Date(TEST_START.getTime() + 86_400_000).toISOString();
      await page.locator(`#clock-now[data-now="${dayLater}"]`).waitFor();
      await page.locator('#chart[data-leaks]:not([data-leaks="0"]) canvas').waitFor();

      await page.click('#real-time');
      await page.locator(`#clock-now[data-now="${TEST_START.toISOString()}"]`).waitFor();
      expect((await docOf(t)).clock).toEqual({ offsetMs: 0, frozenAtMs: null });

      // Reset asks first.
      await page.click('#reset');
      await page.locator('#confirm-dialog[open]').waitFor();
      await page.click('#confirm-dialog button[data-answer="confirm"]');
      await page.locator('#subscriptions li.empty').waitFor();
      await page.locator('#deliveries li.empty').waitFor();
      await page.locator('#alerts li.empty').waitFor();
      expect((await docOf(t)).subscriptions).toEqual([]);

      expect(navigations()).toBe(0);
      expect(await page.evaluate('window.demoMarker')).toBe('the same page');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('the water-use chart', () => {
  /** The chart's leak bands and "now" line, in CSS pixels from the plot area's left edge. */
  async function chartMarks(): Promise<{
    bands: { left: number; right: number }[];
    now: { left: number; right: number } | null;
    plotWidth: number;
  }> {
    // Text, not a function: the tests are compiled without the DOM's types.
    return page.evaluate(`(() => {
      const over = document.querySelector('#chart .u-over');
      const canvas = document.querySelector('#chart canvas');
      const origin = over.getBoundingClientRect();
      const bands = [...over.querySelectorAll('.leak-band')].map((band) => {
        const box = band.getBoundingClientRect();
        return { left: box.left - origin.left, right: box.right - origin.left };
      });
      // The now line is drawn on the canvas in ${NOW_LINE_RGB.join(', ')}: find it on a row near the plot's bottom.
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const canvasLeft = canvas.getBoundingClientRect().left;
      const y = Math.round((origin.bottom - 3 - canvas.getBoundingClientRect().top) * ratio);
      const row = canvas.getContext('2d').getImageData(0, y, canvas.width, 1).data;
      const xs = [];
      for (let x = 0; x < canvas.width; x++) {
        const [r, g, b] = [row[x * 4], row[x * 4 + 1], row[x * 4 + 2]];
        if (Math.abs(r - ${NOW_LINE_RGB[0]}) < 8 && Math.abs(g - ${NOW_LINE_RGB[1]}) < 8 && Math.abs(b - ${NOW_LINE_RGB[2]}) < 8) xs.push(x / ratio + canvasLeft - origin.left);
      }
      return {
        bands,
        now: xs.length ? { left: Math.min(...xs), right: Math.max(...xs) + 1 / ratio } : null,
        plotWidth: origin.width,
      };
    })()`);
  }

  it(
    'shows a leak that has just started, and a finished six-minute one, as bands at least 8 px wide from their start, beside the now line',
    async () => {
      await openSignedIn(1280);
      const started = await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { type: 'lowLeak' }).expect(
        201,
      );
      await page.locator('#chart[data-leaks="1"] .leak-band[data-active="true"]').waitFor();
      const live = await chartMarks();
      expect(live.bands).toHaveLength(1);
      const [band] = live.bands;
      expect(band!.right - band!.left).toBeGreaterThanOrEqual(8);
      // It starts at the now line (the leak started now) and shows beyond it.
      expect(live.now).not.toBeNull();
      expect(Math.abs(band!.left - live.now!.left)).toBeLessThanOrEqual(2);
      expect(band!.right - live.now!.right).toBeGreaterThanOrEqual(5);

      // Six minutes later it ends; three hours later it is a band of its own, still 8 px wide.
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 360 }).expect(200);
      const alertId = (started.body as { alertId: string }).alertId;
      await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alertId}/end`).expect(200);
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 3 * 3600 }).expect(200);
      // The drawing at the new now (the alert's end is drawn first, at the old one).
      const laterS = TEST_START.getTime() / 1000 + 360 + 3 * 3600;
      await page.locator(`#chart[data-now="${laterS}"][data-leaks="1"] .leak-band[data-active="false"]`).waitFor();
      const finished = await chartMarks();
      const [short] = finished.bands;
      expect(short!.right - short!.left).toBeGreaterThanOrEqual(8);
      // Three hours before the now line, in a 50-hour axis.
      const hourPx = finished.plotWidth / 50;
      expect(finished.now!.left - short!.left).toBeGreaterThan(2.5 * hourPx);
      expect(finished.now!.left - short!.left).toBeLessThan(3.5 * hourPx);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "cuts a leak's spike at the top of an axis scaled to the usual use, and says so",
    async () => {
      await openSignedIn(1280);
      const nowS = TEST_START.getTime() / 1000;
      await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { type: 'highLeak', peakValue: 12 }).expect(
        201,
      );
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 3600 }).expect(200);
      await page.locator('#chart[data-leaks="1"]:not([data-cut="0"])').waitFor();
      const readings = (
        await asDemo(
          'get',
          `/v1/locations/${DEMO_LOCATION_ID}/readings/water-usage?startTime=${nowS - 47 * 3600}&groupBy=hour&perPage=100`,
        ).expect(200)
      ).body.readings as { time: string; volume: number }[];
      // The hours the leak ran in, and the others.
      const leakHours = readings.filter((r) => Date.parse(r.time) / 1000 + 3600 > nowS).map((r) => r.volume);
      const usual = readings.filter((r) => Date.parse(r.time) / 1000 + 3600 <= nowS).map((r) => r.volume);
      const axisMax = Number(await page.getAttribute('#chart', 'data-axis-max'));
      expect(Math.min(...leakHours)).toBeGreaterThan(axisMax);
      expect(axisMax).toBeGreaterThanOrEqual(Math.max(...usual));
      expect(axisMax).toBeLessThanOrEqual(Math.max(...usual) * 1.2);
      expect(await page.getAttribute('#chart', 'data-cut')).toBe(String(leakHours.length));
      expect(await page.textContent('#chart-caption')).toContain('are cut short, marked with a break');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('the Readiness panel', () => {
  it(
    'lists every check, updates live as requests arrive, opens a check to its evidence and fix, and runs drills and a new window from its buttons',
    async () => {
      await openPage(1280);
      await signIn();
      const checks = page.locator('#readiness-checks li[data-check]');
      await checks.nth(13).waitFor();
      expect(await checks.count()).toBe(14);
      const rateLimit = page.locator('#readiness-checks li[data-check="errors.rate-limit"]');
      expect(await rateLimit.getAttribute('data-status')).toBe('pending');
      expect(await page.locator('#readiness-summary').textContent()).toBe(
        '(not ready: 0 passed, 0 failed, 12 pending, 2 n/a)',
      );

      await page.getByRole('button', { name: 'Rate limit (429)' }).click();
      await page
        .locator('#flash', { hasText: 'Drill rate-limit: the next 3 /v1 requests answer 429 with Retry-After: 2.' })
        .waitFor();
      // The partner's app retries at once: the checklist shows it without a reload.
      await asDemo('get', '/v1/locations').expect(429);
      await asDemo('get', '/v1/locations').expect(429);
      await page.locator('#readiness-checks li[data-check="errors.rate-limit"][data-status="failed"]').waitFor();

      await rateLimit.locator('summary').click();
      const opened = rateLimit.locator('details[open]');
      await opened.waitFor();
      expect(await opened.locator('ul.evidence li').first().textContent()).toMatch(
        /GET \/v1\/locations \u2192 429sent \d(\.\d+)? s after the 429 of /,
      );
      expect(await opened.locator('p.fix').textContent()).toBe(
        'Fix: After a 429, wait at least the seconds its Retry-After header gives before the next request.',
      );
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      screenshots.push(await screenshot(page, 'readiness-1280', false));

      // A drill that needs something first says what.
      await page.getByRole('button', { name: 'Duplicate alert' }).click();
      await page.locator('#flash', { hasText: 'No alert notification has been delivered' }).waitFor();

      await page.getByRole('button', { name: 'Start a new window' }).click();
      await page.locator('#readiness-checks li[data-check="errors.rate-limit"][data-status="pending"]').waitFor();
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('the dashboard in a real browser', () => {
  it(
    'cancels a running scenario with its Cancel button: no later step, the run shown cancelled',
    async () => {
      await openSignedIn(1280);
      await page.selectOption('#scenario', 'slow-leak-escalates');
      await page.click('#run-scenario button[type=submit]');
      await page.locator('#runs li[data-state="running"]').waitFor();
      await page.getByRole('button', { name: 'Cancel the slow-leak-escalates run' }).click();
      await page.locator('#runs li[data-state="cancelled"]').waitFor();
      expect(await page.locator('#runs li[data-state="cancelled"] button').count()).toBe(0);
      await page.click('button[data-advance="86400"]');
      await page
        .locator(`#clock-now[data-now="${new Date(TEST_START.getTime() + 86_400_000).toISOString()}"]`)
        .waitFor();
      const [run] = (await docOf(t)).runs;
      expect({ state: run?.state, nextStep: run?.nextStep }).toEqual({ state: 'cancelled', nextStep: 2 });
    },
    BROWSER_TEST_MS,
  );

  it(
    'renews its access token from the session when the API refuses it, without reloading',
    async () => {
      await openSignedIn(1280);
      const navigations = navigationCounter();
      await asDemo('post', '/sandbox/tokens/expire', {}).expect(200);
      await page.click('#toggle-home-away');
      await page.locator('#home-away.away').waitFor();
      expect((await docOf(t)).locations.find((l) => l.locationId === DEMO_LOCATION_ID)?.homeAway).toBe('away');
      expect(navigations()).toBe(0);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'keeps its own calls working as the clock moves forward, back and through a scenario: no refused call, no console error',
    async () => {
      await openSignedIn(1280);
      const { refused, consoleErrors } = recordFailures();
      await page.selectOption('#scenario', 'away-leak');
      await page.click('#run-scenario button[type=submit]');
      await page.locator('#runs li[data-state="running"]').waitFor();

      /** Moves the clock (from the page or the API) and waits for the page to show it and reload what it changed. */
      const moveClock = async (move: () => Promise<unknown>, toMs: number): Promise<void> => {
        const reloaded = page.waitForResponse(
          (r) => new URL(r.url()).pathname === '/sandbox/runs' && r.status() === 200,
        );
        await move();
        await page.locator(`#clock-now[data-now="${new Date(toMs).toISOString()}"]`).waitFor();
        await reloaded;
      };
      let nowMs = TEST_START.getTime();
      for (const seconds of [3600, 86_400, 604_800]) {
        nowMs += seconds * 1000;
        await moveClock(() => page.click(`button[data-advance="${seconds}"]`), nowMs);
      }
      await page.locator('#runs li[data-state="completed"]').waitFor();
      // Back: a day behind real time (from another client), then real time.
      const dayBefore = TEST_START.getTime() - 86_400_000;
      await moveClock(
        () => asDemo('post', '/sandbox/clock', { now: new Date(dayBefore).toISOString() }).expect(200),
        dayBefore,
      );
      await moveClock(() => page.click('#real-time'), TEST_START.getTime());
      await page.click('#toggle-home-away');
      await page.locator('#home-away.away').waitFor();

      expect(refused).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'renews its token before it runs out on real time, so its calls after an hour are not refused',
    async () => {
      await openPage(1280);
      // The page's own timers and performance.now, moved by the test.
      await page.clock.install();
      await signIn();
      await loaded();
      const { refused, consoleErrors } = recordFailures();
      // An hour and a minute of real time for both: the token the page started with has run out.
      const elapsedMs = (t.deps.config.accessTokenTtlSeconds + 60) * 1000;
      t.clock.advance(elapsedMs);
      await page.clock.fastForward(elapsedMs);
      const renewed = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/dashboard/token' && r.status() === 200,
      );
      const reloaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/sandbox/runs' && r.status() === 200);
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 7200 }).expect(200);
      await Promise.all([renewed, reloaded]);
      expect(refused).toEqual([]);
      expect(consoleErrors).toEqual([]);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "shows home or away as GET /v1/locations says when a scenario's steps change it",
    async () => {
      await openSignedIn(1280);
      const homeAway = async (): Promise<string> =>
        ((await asDemo('get', `/v1/locations/${DEMO_LOCATION_ID}`).expect(200)).body as { homeAway: string }).homeAway;
      await page.selectOption('#scenario', 'away-leak');
      await page.click('#run-scenario button[type=submit]');
      await page.locator('#runs li[data-state="running"]').waitFor();
      expect(await homeAway()).toBe('away');
      await page.locator('#home-away.away').waitFor();
      expect(await page.textContent('#toggle-home-away')).toBe('Set home');

      // The day plays the leak (whose alerts reload the card) and, last, the family coming home.
      await page.click('button[data-advance="86400"]');
      await page.locator('#runs li[data-state="completed"]').waitFor();
      expect(await homeAway()).toBe('home');
      await page.locator('#home-away.home').waitFor();
      expect(await page.textContent('#toggle-home-away')).toBe('Set away');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "writes every time in the selected location's zone, and all of them in the other's once that one is selected",
    async () => {
      await fillEveryList();
      await openSignedIn(1280);
      await page.locator('#deliveries li[data-kind="alert"]').first().waitFor();
      /** The zones named after the times in an element's text ("Mar 10, 11:30:00 EDT"). */
      const zonesIn = async (selector: string): Promise<string[]> => {
        const text = await page.innerText(selector);
        return [...new Set([...text.matchAll(/\d{2}:\d{2}:\d{2} ([A-Z]{3,4}|GMT[+-]\d+)/g)].map((m) => m[1]!))].sort();
      };
      await page.locator('#readiness-since', { hasText: 'EDT' }).waitFor();
      expect(await zonesIn('#dashboard')).toEqual(['EDT']);

      // The deliveries, the journal and readiness belong to Maple Street Home (New York); Lakeside Cabin is in Los Angeles.
      const pacific = DEMO_LOCATIONS.find((l) => l.timeZone === 'America/Los_Angeles')!;
      await page.click(`[role="tab"][data-location-id="${pacific.locationId}"]`);
      for (const shown of ['#readiness-since', '#journal li .detail', '#deliveries li .detail', '#clock-now'])
        await page.locator(shown, { hasText: 'PDT' }).first().waitFor();
      expect(await zonesIn('#dashboard')).toEqual(['PDT']);
      await page.locator('#deliveries li[data-kind="alert"] button.row-open').first().click();
      await page.locator('dialog#inspector[open]').waitFor();
      expect(await zonesIn('dialog#inspector')).toEqual(['PDT']);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    "shortens the ids in the sandbox's sentences to 8 characters: scenario runs, drill banners, readiness evidence",
    async () => {
      await givenConfirmedSubscription(t, receiver);
      await asDemo('post', '/sandbox/scenarios/slow-leak-escalates/runs', { locationId: DEMO_LOCATION_ID }).expect(201);
      await t.deps.dispatcher.idle();
      await openSignedIn(1280);
      // A whole UUID standing as a word (one in a path stays whole: it is what the app sent).
      const wholeId = /(?<![\w/=.-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
      const shortened = /\b[0-9a-f]{8}\u2026/;

      // Its last step: "ended lowLeak alert c21f1732-...".
      const run = page.locator('#runs li').first();
      await run.waitFor();
      await page.click('button[data-advance="86400"]');
      await page.locator('#runs li[data-state="completed"]').waitFor();
      const runText = await run.innerText();
      expect(runText).toMatch(/ended \w+ alert [0-9a-f]{8}\u2026/);
      expect(runText).not.toMatch(wholeId);

      await page.getByRole('button', { name: 'Duplicate alert' }).click();
      const banner = page.locator('#flash', { hasText: 'Drill duplicate-delivery' });
      await banner.waitFor();
      expect(await banner.innerText()).toMatch(shortened);
      expect(await banner.innerText()).not.toMatch(wholeId);
      // The whole sentence stays in the tooltip.
      expect(await banner.locator('div').getAttribute('title')).toMatch(wholeId);

      const check = page.locator('#readiness-checks li[data-check="webhooks.alert-answer"]');
      await check.locator('summary').click();
      await check.locator('details[open] ul.evidence li').first().waitFor();
      expect(await check.innerText()).toMatch(shortened);
      expect(await check.innerText()).not.toMatch(wholeId);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'lists deliveries newest first by creation and shows that time, the last attempt of a retried one beside it, and a status once',
    async () => {
      await givenConfirmedSubscription(t, receiver);
      await openSignedIn(1280);
      // The alert's start fails once (500) and is retried (a second later: WEBHOOK_BACKOFF_MS) after
      // the alert's end was created and delivered, half a second after the start.
      receiver.script = [{ status: 500, body: '{"error":"down"}' }];
      const started = await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { type: 'lowLeak' }).expect(
        201,
      );
      await t.deps.dispatcher.idle();
      t.clock.advance(500);
      const alertId = (started.body as { alertId: string }).alertId;
      await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alertId}/end`).expect(200);
      await t.deps.dispatcher.idle();
      t.clock.advance(3000);
      await t.deps.dispatcher.drain();
      await page.locator('#deliveries li[data-kind="alert"][data-state="delivered"]').nth(1).waitFor();
      const rows = page.locator('#deliveries li[data-delivery-id]');
      await page.locator('#deliveries li', { hasText: '2 attempts' }).waitFor();

      const texts = await rows.allInnerTexts();
      const created = texts.map((text) => /created \w+ \d+, (\d{2}):(\d{2}):(\d{2})/.exec(text));
      expect(created.every((m) => m !== null)).toBe(true);
      const seconds = created.map((m) => Number(m![1]) * 3600 + Number(m![2]) * 60 + Number(m![3]));
      expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
      const [end, start] = texts;
      expect(end).toContain('alert · lowLeak end');
      expect(start).toContain('alert · lowLeak start');
      // Created in the same second as the end, last attempted 3 s later.
      const lastAt = /2 attempts · 200 · \d+ ms · last at \w+ \d+, (\d{2}):(\d{2}):(\d{2}) EDT/.exec(start!);
      expect(lastAt).not.toBeNull();
      expect(Number(lastAt![1]) * 3600 + Number(lastAt![2]) * 60 + Number(lastAt![3]) - seconds[1]!).toBe(3);

      await page.locator('#deliveries li', { hasText: 'alert · lowLeak start' }).locator('button.row-open').click();
      const first = page.locator('dialog#inspector[open] li[data-attempt="1"]');
      await first.waitFor();
      expect(await page.locator('dialog#inspector[open]').innerText()).not.toContain('HTTP 500');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'says in words what the Start alert form will do: units and ranges, awayLeak at a home set to home, a leak at one set to away',
    async () => {
      await openSignedIn(1280);
      const hint = page.locator('#alert-peak-hint');
      const note = page.locator('#alert-mode-note');
      await page.locator('#home-away.home').waitFor();
      expect(await hint.textContent()).toBe(
        'A slow leak. Peak flow in gallons per minute: from 0.1 to 2. Empty for 0.5.',
      );
      expect(await note.isVisible()).toBe(false);

      await page.selectOption('#alert-type', 'awayLeak');
      expect(await hint.textContent()).toBe(
        'Any flow while away. Peak flow in gallons per minute: more than 0.1, up to 15. Empty for 0.5.',
      );
      expect(await note.textContent()).toContain(
        'This home is set to home, and production raises awayLeak only while it is away',
      );
      // The API still starts it (receivers must cope with one).
      await page.click('#start-alert button[type=submit]');
      await page.locator('#alerts li[data-alert-type="awayLeak"]').waitFor();
      await page.locator('#alerts li[data-alert-type="awayLeak"] button[data-end-alert]').click();
      await page.locator('#alerts li.empty').waitFor();

      await page.click('#toggle-home-away');
      await page.locator('#home-away.away').waitFor();
      expect(await note.isVisible()).toBe(false);
      await page.selectOption('#alert-type', 'highLeak');
      expect(await note.textContent()).toBe(
        'This home is set to away: as in production, a highLeak starts as awayLeak (any flow while away). Set home first for a highLeak.',
      );
      await page.click('#start-alert button[type=submit]');
      await page.locator('#alerts li[data-alert-type="awayLeak"]').waitFor();

      await page.selectOption('#alert-type', 'ambientTemp');
      expect(await hint.textContent()).toBe(
        'Room temperature too low. Peak temperature in degrees Fahrenheit: from -40 to 50. Empty for 38.',
      );
      expect(await note.isVisible()).toBe(false);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'keeps its layout: a status banner moves nothing, the two columns end near each other at 1280 px, and header names take only their width',
    async () => {
      await givenConfirmedSubscription(t, receiver);
      // Lists that grow with use: 24 alert deliveries and 36 requests in the journal.
      for (let i = 0; i < 12; i++) {
        const started = await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, {
          type: 'lowLeak',
        }).expect(201);
        const alertId = (started.body as { alertId: string }).alertId;
        await asDemo('post', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts/${alertId}/end`).expect(200);
        await asDemo('get', '/v1/locations/not-a-location').expect(404);
      }
      await t.deps.dispatcher.idle();
      await openSignedIn(1280);
      await page.setViewportSize({ width: 1280, height: 720 });
      await page.locator('#deliveries li[data-kind="alert"]').nth(23).waitFor();
      await page.locator('#journal li').nth(29).waitFor();

      const topOf = (selector: string): Promise<number> =>
        page.evaluate<number>(
          `document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().top + scrollY`,
        );
      const before = await Promise.all(['#location-panel', '#usage-title', '#subscriptions-title'].map(topOf));
      await page.click('button[data-advance="3600"]');
      await page.locator('#flash', { hasText: 'Clock moved forward 1 hour.' }).waitFor();
      expect(await Promise.all(['#location-panel', '#usage-title', '#subscriptions-title'].map(topOf))).toEqual(before);
      // An error stays until dismissed; dismissing it moves nothing either.
      await page.getByRole('button', { name: 'Duplicate alert' }).click();
      await page.getByRole('button', { name: 'Dismiss' }).click();
      await page.locator('#toast').waitFor({ state: 'hidden' });

      // Where each column's last card ends, from the top of the columns.
      const columnEnds = await page.evaluate<number[]>(
        `[...document.querySelectorAll('.grid > .col')].map((c) => c.lastElementChild.getBoundingClientRect().bottom - c.getBoundingClientRect().top)`,
      );
      expect(columnEnds).toHaveLength(2);
      expect(Math.min(...columnEnds) / Math.max(...columnEnds)).toBeGreaterThan(0.8);
      screenshots.push(await screenshot(page, 'dashboard-lists-1280x720'));

      await page.locator('#deliveries li[data-kind="alert"] button.row-open').first().click();
      await page.locator('dialog#inspector[open]').waitFor();
      const widths = await page.evaluate<{ table: number; names: number[]; heights: number[]; line: number }>(
        `(() => {
          const table = document.querySelector('#inspector-headers');
          const names = [...table.querySelectorAll('th')];
          return {
            table: table.getBoundingClientRect().width,
            names: names.map((th) => th.getBoundingClientRect().width),
            heights: names.map((th) => th.getBoundingClientRect().height),
            line: parseFloat(getComputedStyle(names[0]).lineHeight) || 20,
          };
        })()`,
      );
      // The names' column is as wide as the longest name (one line each), and the values get the rest.
      expect(Math.max(...widths.names) / widths.table).toBeLessThan(0.3);
      for (const height of widths.heights) expect(height).toBeLessThan(2 * widths.line + 8);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'shows changes made by other clients as they happen',
    async () => {
      await openSignedIn(1280);
      await asDemo('put', `/v1/locations/${DEMO_LOCATION_ID}`, { homeAway: 'away' }).expect(200);
      await page.locator('#home-away.away').waitFor();
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 7200 }).expect(200);
      await page
        .locator(`#clock-now[data-now="${new Date(TEST_START.getTime() + 7_200_000).toISOString()}"]`)
        .waitFor();
      await asDemo('get', '/v1/subscriptions/nope').expect(404);
      const failed = page.locator('#journal li.error').first();
      await failed.waitFor();
      expect(await failed.textContent()).toContain('GET /v1/subscriptions/nope');
      await failed.locator('summary').click();
      expect(await failed.locator('pre').textContent()).toContain('"error": "not_found"');
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'says so, and offers to sign in again, when the session ends in another tab',
    async () => {
      await openSignedIn(1280);
      const other = await context.newPage();
      await other.goto(`${server.baseUrl}/`);
      await Promise.all([other.waitForURL(`${server.baseUrl}/`), other.click('#sign-out')]);
      // The next thing the page does (here: it hears of the clock move and reloads its data) finds the session gone.
      await asDemo('post', '/sandbox/clock', { advanceSeconds: 7200 }).expect(200);
      await page.locator('.signed-out a[href="/"]').waitFor();
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'shows hostile names as text, in the server-rendered page and in what the script renders',
    async () => {
      const hostile = '<img src=x onerror=alert(1)><script>alert(2)</script>';
      await changeDoc(t, (d) => {
        d.locations.find((l) => l.locationId === DEMO_LOCATION_ID)!.name = hostile;
      });
      await asDemo('post', `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`, { endpoint: receiver.url() }).expect(200);
      await openSignedIn(1280);
      expect(await page.textContent('#location-name')).toBe(hostile);
      const row = page.locator('#subscriptions li[data-subscription-id]');
      await row.waitFor();
      expect(await row.textContent()).toContain(hostile);
      expect(await page.locator('img').count()).toBe(0);
      expect(await page.locator('[role="tab"][data-location-id]').count()).toBe(DEMO_LOCATIONS.length);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
