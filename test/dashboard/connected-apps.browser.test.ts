import type { Page } from 'playwright-core';
import request from 'supertest';

import { listen } from '../auth/listening.js';
import { launchBrowser } from '../helpers/browser.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_USER, OTHER_ACCOUNT_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { registerClient } from '../helpers/oauth-clients.js';
import { basicAuth, codeOf, formFields, loginPath } from '../helpers/oauth.js';
import { horizontalOverflow, screenshot, seriousAccessibilityViolations, WIDTHS } from '../helpers/page-checks.js';

// The dashboard's Connected apps (issue #40): the applications of other accounts that the demo
// user allowed, with a Revoke button that asks first and then ends the application's tokens.

let browser: Awaited<ReturnType<typeof launchBrowser>>;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let page: Page;
const BROWSER_TEST_MS = 60_000;

beforeAll(async () => {
  browser = await launchBrowser(undefined, { timezoneId: 'Europe/Berlin' });
});
afterAll(async () => {
  await (browser as typeof browser | undefined)?.close();
});
beforeEach(async () => {
  t = await buildTestApp({ env: { TOKEN_DELIVERY: 'false' } });
  server = await listen(t.app);
});
afterEach(async () => {
  for (const open of browser.context.pages()) await open.close();
  await browser.context.clearCookies();
  await server.close();
});

/** The other account's application, allowed by the demo user in a browser session of its own: its access token. */
async function allowedApplication(): Promise<string> {
  const app = await registerClient(
    t.app,
    { applicationName: 'Leak Alerts by Someone Else', applicationWebsite: 'https://someone-else.example' },
    OTHER_API_KEY,
  );
  const agent = request.agent(t.app);
  const signIn = await agent.get(loginPath({ clientId: app.client_id })).expect(200);
  const consent = await agent
    .post('/login')
    .type('form')
    .send({ ...formFields(signIn.text), ...DEMO_USER })
    .expect(200);
  const allowed = await agent
    .post('/login/consent')
    .type('form')
    .send({ ...formFields(consent.text), decision: 'allow' });
  const tokens = await request(t.app)
    .post('/oauth2/token')
    .set('Authorization', basicAuth(app.client_id, app.client_secret))
    .type('form')
    .send({ grant_type: 'authorization_code', code: codeOf(allowed), redirect_uri: 'waterapp://callback' })
    .expect(200);
  return (tokens.body as { access_token: string }).access_token;
}

async function openDashboard(width: number): Promise<void> {
  page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 844 });
  await page.goto(`${server.baseUrl}/`);
  await page.fill('#email', DEMO_USER.email);
  await page.fill('#password', DEMO_USER.password);
  await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click('button[type=submit]')]);
  await page.locator('#dashboard[data-ready="true"]').waitFor();
}

describe('Connected apps on the dashboard', () => {
  it(
    "lists the allowed application with its website, owner's account, who allowed it and when; Revoke asks, then ends its tokens",
    async () => {
      const token = await allowedApplication();
      await openDashboard(1280);
      const row = page.locator('#connected-apps li.row');
      await row.waitFor();
      const text = await row.innerText();
      expect(text).toContain('Leak Alerts by Someone Else');
      expect(text).toContain('https://someone-else.example');
      expect(text).toContain(`registered by ${(await docOf(t, OTHER_ACCOUNT_ID)).account.name}`);
      expect(text).toContain(`allowed by ${DEMO_USER.email}`);
      expect(await page.textContent('#connected-apps-count')).toBe('(1)');
      await screenshot(page, 'connected-apps-1280');

      // Asked first: Cancel keeps it.
      await page.click('#connected-apps button[data-revoke]');
      await page.locator('#confirm-dialog[open]').waitFor();
      expect(await page.textContent('#confirm-title')).toBe('Revoke Leak Alerts by Someone Else?');
      await page.click('#confirm-dialog button[data-answer="cancel"]');
      await request(t.app).get('/v1/locations').set(bearer(token)).expect(200);

      await page.click('#connected-apps button[data-revoke]');
      await page.click('#confirm-dialog button[data-answer="confirm"]');
      await page.locator('#connected-apps li.empty').waitFor();
      expect(await page.textContent('#flash')).toContain('Leak Alerts by Someone Else revoked: 2 of its tokens ended.');
      const refused = await request(t.app).get('/v1/locations').set(bearer(token)).expect(403);
      expect((refused.body as { error: string }).error).toBe('token_revoked');
    },
    BROWSER_TEST_MS,
  );

  it.each(WIDTHS)(
    'fits a %i px screen and passes an accessibility scan',
    async (width) => {
      await allowedApplication();
      await openDashboard(width);
      await page.locator('#connected-apps li.row').waitFor();
      expect(await horizontalOverflow(page)).toBe(0);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      await page.locator('#connected-apps').scrollIntoViewIfNeeded();
      await screenshot(page, `connected-apps-${width}`, false);
    },
    BROWSER_TEST_MS,
  );
});
