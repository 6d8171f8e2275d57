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
      const refused: string[] = [];
      const consoleErrors: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
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
      const refused: string[] = [];
      const consoleErrors: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
      });
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
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
