import { listen } from '../auth/listening.js';
import { buildTestApp, type TestApp } from './build-test-app.js';
import { BEHIND_HTTPS_PROXY } from './dashboard-sign-in.js';
import { bearer, DEMO_USER, OTHER_API_KEY } from './demo.js';
import { HostedBrowser, type BrowserAnswer } from './hosted-browser.js';
import { live } from './live.js';
import { basicAuth, loginPath, partnerRegistration, type OAuthTokens } from './oauth.js';

/**
 * The scene of issue #40 on a hosted sandbox over real HTTP: a stranger (the fixtures' other
 * account) registers an application that sends codes to their own site, and a signed-in user of
 * the demo account allows it on the consent page.
 */

export const HOSTED_ENV = { PUBLIC_URL: 'https://sandbox.example.com' } as const;
export const STRANGER_CALLBACK = 'https://evil.example/cb';
export const STRANGER_SIGN_OUT = 'https://evil.example/signed-out';

/** A test app of a hosted sandbox (buildTestApp: the in-memory store, or Redis in the Redis API run) listening on loopback. */
export async function hostedSandbox(
  env: Record<string, string> = {},
): Promise<{ t: TestApp; url: string; close: () => Promise<void> }> {
  const t = await buildTestApp({ env: { ...HOSTED_ENV, TOKEN_DELIVERY: 'false', ...env } });
  const { baseUrl, close } = await listen(t.app);
  return { t, url: baseUrl, close };
}

/** What each test of a file starts from: a hosted sandbox, the stranger's application, and the demo user's browser, signed in. */
export interface StrangersScene {
  t: TestApp;
  url: string;
  app: RegisteredApp;
  browser: HostedBrowser;
}

/** The scene (a fresh one for each test of the file or describe that calls it), closed after the test. */
export function useStrangersScene(env: Record<string, string> = {}): StrangersScene {
  let scene: (StrangersScene & { close: () => Promise<void> }) | null = null;
  beforeEach(async () => {
    const sandbox = await hostedSandbox(env);
    const browser = new HostedBrowser(sandbox.url);
    scene = { ...sandbox, app: await registerApp(sandbox.url), browser };
    await browser.signIn(DEMO_USER);
  });
  afterEach(async () => {
    await scene?.close();
    scene = null;
  });
  return live('the scene', () => scene);
}

/** An application a client registered: its credentials and registration. */
export interface RegisteredApp {
  clientId: string;
  clientSecret: string;
  applicationName: string;
}

/** Registers an application for the account of `apiKey` (the stranger's by default), redirecting to the stranger's site. */
export async function registerApp(
  url: string,
  overrides: Record<string, unknown> = {},
  apiKey = OTHER_API_KEY,
): Promise<RegisteredApp> {
  const res = await fetch(`${url}/sandbox/oauth-clients`, {
    method: 'POST',
    headers: { ...bearer(apiKey), 'content-type': 'application/json' },
    body: JSON.stringify(
      partnerRegistration({
        applicationName: 'Totally Legit Water App',
        applicationWebsite: 'https://evil.example',
        redirectUri: STRANGER_CALLBACK,
        signOutUri: STRANGER_SIGN_OUT,
        ...overrides,
      }),
    ),
  });
  const body = (await res.json()) as { client_id: string; client_secret: string; applicationName: string };
  if (res.status !== 201) throw new Error(`registering an application answered ${res.status}: ${JSON.stringify(body)}`);
  return { clientId: body.client_id, clientSecret: body.client_secret, applicationName: body.applicationName };
}

/** The signed-in browser asks /login for a code for `app` (to the stranger's callback unless told). */
export const askForCode = (
  browser: HostedBrowser,
  app: RegisteredApp,
  params: { state?: string; redirectUri?: string; extra?: Record<string, string> } = {},
): Promise<BrowserAnswer> => {
  const path = loginPath({
    clientId: app.clientId,
    redirectUri: params.redirectUri ?? STRANGER_CALLBACK,
    state: params.state,
  });
  const extra = new URLSearchParams(params.extra ?? {}).toString();
  return browser.get(extra === '' ? path : `${path}&${extra}`);
};

/** The code a redirect to the client carries; throws with the answer when there is none. */
export function codeIn(answer: BrowserAnswer): string {
  const code = answer.location === null ? null : new URL(answer.location).searchParams.get('code');
  if (answer.status !== 302 || !code)
    throw new Error(`expected a redirect with a code, got ${answer.status}: ${answer.text}`);
  return code;
}

/** The user allows `app` on its consent page (which must show): the code the client gets. */
export async function allowApp(browser: HostedBrowser, app: RegisteredApp, state = 'st4te'): Promise<string> {
  const page = await askForCode(browser, app, { state });
  if (page.status !== 200 || !page.text.includes('name="decision"'))
    throw new Error(`expected the consent page, got ${page.status}: ${page.text}`);
  return codeIn(await browser.submit(page, '/login/consent', { decision: 'allow' }));
}

/** A token request of `app` (HTTP Basic), as its server sends it. */
export function tokenRequest(url: string, app: RegisteredApp, form: Record<string, string>): Promise<Response> {
  return fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: basicAuth(app.clientId, app.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  });
}

/** The app exchanges a code for tokens (to the stranger's callback unless told). */
export async function exchange(
  url: string,
  app: RegisteredApp,
  code: string,
  redirectUri = STRANGER_CALLBACK,
): Promise<OAuthTokens> {
  const res = await tokenRequest(url, app, { grant_type: 'authorization_code', code, redirect_uri: redirectUri });
  const body = (await res.json()) as OAuthTokens;
  if (res.status !== 200) throw new Error(`the code exchange answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** A call of the sandbox with a credential, over HTTP: its status, JSON body (or null) and headers. */
export async function call(
  url: string,
  method: string,
  path: string,
  credential: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> | null; headers: Headers }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...BEHIND_HTTPS_PROXY,
      ...bearer(credential),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: Record<string, unknown> | null = null;
  try {
    parsed = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
