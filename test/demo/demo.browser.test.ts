import type { BrowserContext, Page } from 'playwright-core';

import type { RunningSandbox } from '../../src/server.js';
import { launchBrowser, type BrowserLocale } from '../helpers/browser.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_USER } from '../helpers/demo.js';
import { horizontalOverflow, screenshot, seriousAccessibilityViolations } from '../helpers/page-checks.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

/**
 * The presenter view in the real Chromium, on a real sandbox (its real clock: a story plays in
 * real time, its page ticking it on), with an audience in a second browser context.
 */

let sandbox: RunningSandbox;
const browsers: { context: BrowserContext; close: () => Promise<void> }[] = [];
const screenshots: string[] = [];
/** What went wrong in any page: script errors, console errors (a refused request, a CSP refusal), dialogs. */
let problems: string[];
const BROWSER_TEST_MS = 90_000;

beforeEach(async () => {
  sandbox = await startTestSandbox();
  problems = [];
});
afterEach(async () => {
  for (const b of browsers.splice(0)) await b.close();
  await stopAllSandboxes();
});
afterAll(() => {
  if (screenshots.length > 0)
    process.stdout.write(`presenter view screenshots:\n${screenshots.map((p) => `  ${p}\n`).join('')}`);
});

async function newContext(
  viewport: { width: number; height: number },
  locale: BrowserLocale = {},
): Promise<BrowserContext> {
  // The browser's own zone is neither the location's nor the machine's: every time shown must be the location's.
  const browser = await launchBrowser(viewport, { timezoneId: 'Asia/Tokyo', ...locale });
  browsers.push(browser);
  return browser.context;
}

async function watched(context: BrowserContext, name: string): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => problems.push(`${name}: page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${name}: console: ${message.text()}`);
  });
  // A refused call of the page's own (a 403 token_expired after a clock move, say) is a problem too.
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`${name}: ${response.status()} ${new URL(response.url()).pathname}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`${name}: browser dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return page;
}

/** Signs in from /demo (the dashboard's form, and back to the view). */
async function openPresenter(context: BrowserContext, query = ''): Promise<Page> {
  const page = await watched(context, 'presenter');
  await page.goto(`${sandbox.url}/demo${query}`);
  await page.fill('#email', DEMO_USER.email);
  await page.fill('#password', DEMO_USER.password);
  await Promise.all([page.waitForURL(`${sandbox.url}/demo${query}`), page.click('button[type=submit]')]);
  await page.locator('#demo[data-ready="true"]').waitFor();
  await page.locator('#live[data-state="live"]').waitFor();
  return page;
}

const api = (method: string, path: string, body?: unknown): Promise<Response> =>
  fetch(`${sandbox.url}${path}`, {
    method,
    headers: { ...bearer(DEMO_API_KEY), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The page's visible text, as a person reads it. */
const visibleText = (page: Page): Promise<string> => page.evaluate<string>('document.body.innerText');

async function checkLayout(page: Page, name: string): Promise<void> {
  const size = page.viewportSize()!;
  // No scrolling, either way; the three panes whole on the screen.
  const scroll = await page.evaluate<{ height: number; width: number }>(
    '({ height: document.scrollingElement.scrollHeight, width: document.scrollingElement.scrollWidth })',
  );
  expect({ name, ...scroll }).toEqual({ name, height: size.height, width: size.width });
  expect(await horizontalOverflow(page)).toBe(0);
  for (const pane of ['#home-pane', '#partner-pane', '#phone-pane', '#chart canvas']) {
    const box = (await page.locator(pane).first().boundingBox())!;
    expect({ name, pane, inside: box.y >= 0 && box.y + box.height <= size.height && box.width > 100 }).toEqual({
      name,
      pane,
      inside: true,
    });
  }
  const text = await visibleText(page);
  expect({
    name,
    uuid: /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.exec(text)?.[0] ?? null,
  }).toEqual({
    name,
    uuid: null,
  });
  expect({ name, camelCase: /\b[a-z]+[A-Z][A-Za-z]*\b/.exec(text)?.[0] ?? null }).toEqual({ name, camelCase: null });
  expect({ name, epoch: /\b1[5-9]\d{8}(\d{3})?\b/.exec(text)?.[0] ?? null }).toEqual({ name, epoch: null });
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  screenshots.push(await screenshot(page, name, false));
}

/** Plays the story picked, from the keyboard, at a day a second, recording every caption the page shows. */
async function playWithCaptions(page: Page, story: string): Promise<string[]> {
  await page.selectOption('#story-choice', story);
  await page.selectOption('#speed', '86400');
  await page.evaluate(`(() => {
    window.captions = [];
    const caption = document.getElementById('caption');
    new MutationObserver(() => window.captions.push(caption.textContent)).observe(caption, { childList: true, characterData: true, subtree: true });
  })()`);
  await page.locator('#stage').focus();
  await page.keyboard.press('Space');
  // Playing first (a story ended before may still show as ended), then to its end (each step holds for seconds).
  await page.locator('#demo[data-story="playing"]').waitFor();
  await page.locator('#demo[data-story="ended"]').waitFor({ timeout: 60_000 });
  return page.evaluate<string[]>('window.captions');
}

describe.each([
  { width: 1280, height: 720 },
  { width: 1920, height: 1080 },
])('the presenter view at $width x $height', (viewport) => {
  it(
    'shows the home, the partner side and the phone without scrolling, in words, before and after a story',
    async () => {
      const page = await openPresenter(await newContext(viewport), '?prospect=Acme%20Insurance');
      await page.locator('#for-prospect', { hasText: 'for Acme Insurance' }).waitFor();
      await checkLayout(page, `demo-${viewport.width}-before`);

      const captions = await playWithCaptions(page, 'slow-leak-escalates');
      const steps = await page.locator('#steps li').count();
      expect(steps).toBe(5);
      await page.locator('#cards li[data-tone="ok"]').nth(4).waitFor();
      await page.locator('#notifications li[data-active="false"]').waitFor();
      expect(await page.locator('#cards li').first().innerText()).toContain(
        "All-clear for the slow leak sent to Acme Insurance's endpoint",
      );
      await checkLayout(page, `demo-${viewport.width}-after`);
      expect(captions.length).toBeGreaterThan(0);
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('a story in the presenter view', () => {
  it(
    'plays from start to end at a high speed with every caption shown, and the clicker moves it a step at a time',
    async () => {
      const page = await openPresenter(await newContext({ width: 1280, height: 720 }));
      const captions = await playWithCaptions(page, 'slow-leak-escalates');
      const scenario = (await (await api('GET', '/sandbox/scenarios/slow-leak-escalates')).json()) as {
        steps: { caption: string }[];
      };
      for (const step of scenario.steps)
        expect({ caption: step.caption, shown: captions.some((c) => c.includes(step.caption)) }).toEqual({
          caption: step.caption,
          shown: true,
        });
      expect(await page.locator('#steps li.done').count()).toBe(5);

      // Restart, then a presenter's clicker: PageDown and the right arrow are the next step.
      await page.click('#restart');
      await page.locator('#demo[data-story="ready"]').waitFor();
      await page.locator('#stage').focus();
      await page.keyboard.press('PageDown');
      await page.locator('#demo[data-steps-done="2"]').waitFor();
      await page.keyboard.press('ArrowRight');
      await page.locator('#demo[data-steps-done="3"]').waitFor();
      expect(await page.locator('#caption').innerText()).toContain('The pipe bursts');
      await page.locator('#chart .leak-band').first().waitFor();
      const band = (await page.locator('#chart .leak-band').first().boundingBox())!;
      expect(band.width).toBeGreaterThanOrEqual(10);
      expect(await page.locator('#chart .leak-label').first().innerText()).toBe('Leak detected 2:10 AM');

      // A control clicked with the mouse, or a dialog closed with it, leaves space to play and pause
      // (at an hour in 4 seconds: the last step is more than 5 s away).
      await page.selectOption('#speed', '900');
      await page.click('#next');
      await page.locator('#demo[data-steps-done="4"]').waitFor();
      await page.locator('#cards li .card-raw').first().click();
      await page.locator('#raw-dialog[open]').waitFor();
      await page.click('#close-raw');
      await page.keyboard.press('Space');
      await page.locator('#demo[data-story="playing"]').waitFor();
      expect(await page.locator('#raw-dialog[open]').count()).toBe(0);
      await page.keyboard.press('Space');
      await page.locator('#demo[data-story="paused"]').waitFor();
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );

  it(
    'shows no console error in either view as the clock moves',
    async () => {
      const page = await openPresenter(await newContext({ width: 1280, height: 720 }));
      await page.click('#share');
      await page.click('#new-link');
      const url = await page.locator('#links input').first().inputValue();
      await page.click('#close-share');
      const audience = await watched(await newContext({ width: 1280, height: 720 }), 'audience');
      await audience.goto(url);
      await audience.locator('#live[data-state="live"]').waitFor();
      // An hour, a day, three days: each shows another time on the clock (a week would show the same weekday and hour).
      for (const seconds of [3600, 86_400, 3 * 86_400]) {
        const before = await audience.locator('#now-text').innerText();
        expect((await api('POST', '/sandbox/clock', { advanceSeconds: seconds })).status).toBe(200);
        await audience.locator('#now-text', { hasNotText: before }).waitFor();
        await page.locator('#now-text', { hasNotText: before }).waitFor();
      }
      await api('POST', '/sandbox/clock', { realTime: true });
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('a long story', () => {
  it(
    'plays across many virtual hours with no refused call and no console error, in the view and in the dashboard beside it',
    async () => {
      const context = await newContext({ width: 1280, height: 720 });
      const page = await openPresenter(context);
      const dashboard = await watched(context, 'dashboard');
      await dashboard.goto(`${sandbox.url}/`);
      await dashboard.locator('#dashboard[data-ready="true"]').waitFor();
      // Eight hours each (their last steps are at +8h), one after the other: the account clock moves by hours a second.
      for (const story of ['away-leak', 'monitor-offline']) {
        await page.bringToFront();
        await playWithCaptions(page, story);
        expect(await page.locator('#steps li.done').count()).toBe(await page.locator('#steps li').count());
      }
      // A story starts in the past (its time of day, today or yesterday): three days on, past the tokens' hour.
      const before = await page.locator('#now-text').innerText();
      expect((await api('POST', '/sandbox/clock', { advanceSeconds: 3 * 86_400 })).status).toBe(200);
      await page.locator('#now-text', { hasNotText: before }).waitFor();
      // The dashboard, open all along with the token it got at the start, still makes its calls after the clock moved.
      await dashboard.bringToFront();
      const awayBefore = await dashboard.locator('#home-away.away').count();
      const changed = dashboard.waitForResponse((r) => r.request().method() !== 'GET' && /\/locations\//.test(r.url()));
      await dashboard.click('#toggle-home-away');
      expect((await changed).status()).toBe(200);
      await dashboard.locator(awayBefore === 1 ? '#home-away:not(.away)' : '#home-away.away').waitFor();
      // Present, on the dashboard's header, opens the presenter view.
      await Promise.all([
        dashboard.waitForURL(`${sandbox.url}/demo`),
        dashboard.getByRole('link', { name: 'Present' }).click(),
      ]);
      await dashboard.locator('#demo[data-ready="true"]').waitFor();
      expect(problems).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});

describe('an audience link', () => {
  it(
    'shows the view live in a browser without cookies within 2 s of an alert, refuses every write, and is a 404 once revoked',
    async () => {
      const presenter = await openPresenter(await newContext({ width: 1280, height: 720 }), '?prospect=Acme');
      await presenter.click('#share');
      await presenter.click('#new-link');
      const url = await presenter.locator('#links input').first().inputValue();
      expect(url).toMatch(/\/demo\/watch\/[\w-]{43}$/);
      await presenter.click('#close-share');
      // A story subscribes the sandbox's demo receiver (confirmed): alerts then go somewhere.
      await presenter.selectOption('#story-choice', 'cold-snap');
      await presenter.click('#next');
      await presenter.locator('#demo[data-steps-done="1"]').waitFor();

      const context = await newContext({ width: 1280, height: 720 }, { env: { LANG: 'C.UTF-8' }, locale: null });
      const audience = await watched(context, 'audience');
      const opened = await audience.goto(url);
      expect(opened?.status()).toBe(200);
      await audience.locator('#live[data-state="live"]').waitFor();
      expect(await context.cookies()).toEqual([]);
      expect(await audience.locator('footer.controls, #play, #share').count()).toBe(0);
      expect(await audience.locator('#link-ends').innerText()).toMatch(
        /^This link ends at \d+:\d\d [AP]M .+, in (4 hours|3 hours 59 minutes)\.$/,
      );
      await checkLayout(audience, 'audience-1280');

      // A leak starts (from the API, as a device would report it): the audience sees its webhook within 2 s.
      const before = await audience.locator('#cards li[data-tone]').count();
      const startedAt = performance.now();
      expect((await api('POST', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, { type: 'lowLeak' })).status).toBe(
        201,
      );
      await audience.locator('#cards li[data-tone]').nth(before).waitFor({ timeout: 2000 });
      expect(performance.now() - startedAt).toBeLessThan(2000);
      expect(await audience.locator('#cards li').first().innerText()).toContain(
        "Slow leak alert sent to Acme's endpoint",
      );

      // Every write from the audience's page is refused.
      const statuses = await audience.evaluate<number[]>(`Promise.all([
        ['POST', '/demo/story', '{"scenario":"cold-snap"}'],
        ['POST', '/demo/story/play', ''],
        ['PUT', '/demo/view', '{"prospect":"x"}'],
        ['POST', '/demo/links', ''],
        ['POST', location.pathname, ''],
        ['DELETE', location.pathname, ''],
        ['POST', location.pathname + '/scene', ''],
        ['POST', '/sandbox/clock', '{"advanceSeconds":60}'],
        ['POST', '/sandbox/reset', ''],
      ].map(([method, path, body]) => fetch(path, { method, headers: { 'content-type': 'application/json' }, body: body || undefined }).then((r) => r.status)))`);
      expect(statuses.every((s) => s === 401 || s === 405)).toBe(true);
      // Those refusals were the test's own writes, not the page's calls.
      problems = problems.filter((p) => !/^audience: 40[15] /.test(p));

      // Revoked: the open page says so, and the link is a 404 page.
      await presenter.click('#share');
      await presenter.locator('#links li button', { hasText: 'Revoke' }).first().click();
      await presenter.locator('#links li.empty').waitFor();
      await audience.locator('.ended', { hasText: 'This demo has ended' }).waitFor();
      const gone = await audience.goto(url);
      expect(gone?.status()).toBe(404);
      expect(await audience.locator('h1').innerText()).toBe('This demo link has ended');
      // A refused stream is not an error of the page; anything else is.
      expect(problems.filter((p) => !/404|Failed to load resource/.test(p))).toEqual([]);
    },
    BROWSER_TEST_MS,
  );
});
