import type { BrowserContext, Page } from 'playwright-core';

import { launchBrowser } from '../helpers/browser.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_LOCATIONS, DEMO_USER, OTHER_API_KEY } from '../helpers/demo.js';
import { registerClient, type RegisteredClient } from '../helpers/oauth-clients.js';
import { basicAuth } from '../helpers/oauth.js';
import { horizontalOverflow, screenshot, seriousAccessibilityViolations, WIDTHS } from '../helpers/page-checks.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { listen } from './listening.js';

let context: BrowserContext;
let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let receiver: WebhookReceiver;
let client: RegisteredClient;
let page: Page;

let browser: Awaited<ReturnType<typeof launchBrowser>>;
beforeAll(async () => {
  browser = await launchBrowser();
  context = browser.context;
});
afterAll(async () => {
  // Unset when beforeAll failed.
  await (browser as typeof browser | undefined)?.close();
});

beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
  receiver = await WebhookReceiver.start();
  client = await registerClient(t.app, {
    applicationName: 'Browser Partner App',
    description: 'Driven by headless Chromium',
    redirectUri: receiver.url('/callback'),
    signOutUri: receiver.url('/signed-out'),
  });
  await context.clearCookies();
  page = await context.newPage();
});
afterEach(async () => {
  await page.close();
  await t.deps.dispatcher.idle();
  await receiver.close();
  await server.close();
});

const loginUrl = (state: string, redirectUri = receiver.url('/callback')): string =>
  `${server.baseUrl}/login?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri, state }).toString()}`;

async function submit(password: string): Promise<void> {
  await page.fill('#password', password);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
}

describe('the login form in a real browser', () => {
  it('signs in, exchanges the code, calls the API, skips the form when signed in, and signs out', async () => {
    await page.goto(loginUrl('state-1'));
    expect(await page.textContent('#application-name')).toBe('Browser Partner App');

    await page.fill('#email', DEMO_USER.email);
    await submit('not-the-password');
    expect(await page.textContent('#login-error')).toContain('not correct');
    expect(page.url()).toBe(`${server.baseUrl}/login`);
    expect(await page.inputValue('#email')).toBe(DEMO_USER.email);

    await page.fill('#password', DEMO_USER.password);
    await Promise.all([page.waitForURL(`${receiver.url('/callback')}?**`), page.click('button[type=submit]')]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('state-1');
    const code = callback.searchParams.get('code')!;

    const token = await fetch(`${server.baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        Authorization: basicAuth(client.client_id, client.client_secret),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: receiver.url('/callback') }),
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as { access_token: string };
    const api = await fetch(`${server.baseUrl}/v1/locations`, { headers: bearer(tokens.access_token) });
    expect(((await api.json()) as { total: number }).total).toBe(DEMO_LOCATIONS.length);
    await t.deps.dispatcher.idle();
    expect(receiver.received.find((r) => r.method === 'POST')?.body).toEqual(tokens);

    const cookie = (await context.cookies(server.baseUrl)).find((c) => c.name === 'water_sandbox_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', secure: false });

    // Signed in: the authorization request goes straight back with a new code.
    await page.goto(loginUrl('state-2'));
    await page.waitForURL(`${receiver.url('/callback')}?**`);
    expect(new URL(page.url()).searchParams.get('state')).toBe('state-2');
    expect(new URL(page.url()).searchParams.get('code')).not.toBe(code);

    await page.goto(
      `${server.baseUrl}/logout?client_id=${encodeURIComponent(client.client_id)}&logout_uri=${encodeURIComponent(receiver.url('/signed-out'))}`,
    );
    await page.waitForURL(receiver.url('/signed-out'));

    await page.goto(loginUrl('state-3'));
    expect(page.url()).toContain(`${server.baseUrl}/login?`);
    expect(await page.isVisible('#password')).toBe(true);
  });

  it('shows an error page and stays on the sandbox for an unregistered redirect URI', async () => {
    const response = await page.goto(loginUrl('s', 'https://evil.example/cb'));
    expect(response?.status()).toBe(400);
    expect(page.url()).toContain(server.baseUrl);
    expect(await page.textContent('#error-message')).toContain('is not registered for Browser Partner App');
  });
});

describe.each(WIDTHS)('the login form at %i px wide', (width) => {
  it('fits the screen, with its error shown, and passes an accessibility scan', async () => {
    await page.setViewportSize({ width, height: 844 });
    await page.goto(loginUrl('state-narrow'));
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.fill('#email', DEMO_USER.email);
    await submit('not-the-password');
    await page.locator('#login-error').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    process.stdout.write(`login screenshot: ${await screenshot(page, `login-${width}`)}\n`);
  });
});

describe('the consent page in a real browser', () => {
  /** A client that the other account registered, redirecting to the receiver. */
  async function othersClient(): Promise<string> {
    const registered = await registerClient(
      t.app,
      {
        applicationName: 'Another Account App',
        applicationWebsite: 'https://another.example',
        redirectUri: receiver.url('/callback'),
        signOutUri: receiver.url('/signed-out'),
      },
      OTHER_API_KEY,
    );
    return registered.client_id;
  }
  const othersLoginUrl = (clientId: string, state: string): string =>
    `${server.baseUrl}/login?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: receiver.url('/callback'), state }).toString()}`;

  it("comes after the sign-in for another account's client: Deny returns access_denied, Allow a code", async () => {
    const clientId = await othersClient();
    await page.goto(othersLoginUrl(clientId, 'state-c1'));
    await page.fill('#email', DEMO_USER.email);
    await submit(DEMO_USER.password);
    expect(page.url()).toBe(`${server.baseUrl}/login`);
    expect(await page.textContent('#application-name')).toBe('Another Account App');
    expect(await page.textContent('#application-website')).toBe('https://another.example');

    await Promise.all([page.waitForURL(`${receiver.url('/callback')}?**`), page.click('#deny')]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ error: 'access_denied', state: 'state-c1' });

    // Signed in now: the link shows the consent page at once, and Allow sends a code.
    await page.goto(othersLoginUrl(clientId, 'state-c2'));
    await Promise.all([page.waitForURL(`${receiver.url('/callback')}?**`), page.click('#allow')]);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('state-c2');
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
  });

  it.each(WIDTHS)('fits %i px and passes an accessibility scan', async (width) => {
    const clientId = await othersClient();
    await page.setViewportSize({ width, height: 844 });
    await page.goto(othersLoginUrl(clientId, 's'));
    await page.fill('#email', DEMO_USER.email);
    await submit(DEMO_USER.password);
    await page.locator('#allow').waitFor();
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    process.stdout.write(`consent screenshot: ${await screenshot(page, `consent-${width}`)}\n`);
  });
});
