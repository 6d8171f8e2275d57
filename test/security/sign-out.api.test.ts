import {
  allowApp,
  askForCode,
  codeIn,
  hostedSandbox,
  registerApp,
  STRANGER_SIGN_OUT,
  type RegisteredApp,
} from '../helpers/allowed-app.js';
import type { TestApp } from '../helpers/build-test-app.js';
import { DEMO_API_KEY, DEMO_CLIENT, DEMO_USER } from '../helpers/demo.js';
import { HostedBrowser } from '../helpers/hosted-browser.js';

// Issue #40, item 5, on a hosted sandbox over real HTTP: /logout is no open redirect, and no
// other site can sign a partner out. A GET acts at once only for the session of a client of the
// user's own account (or the fixtures'), as production's documented sign-out does; otherwise the
// user is asked, and the browser is never sent to another account's sign-out URI.

let t: TestApp;
let url: string;
let close: () => Promise<void>;
let stranger: RegisteredApp;

beforeEach(async () => {
  ({ t, url, close } = await hostedSandbox());
  stranger = await registerApp(url);
});
afterEach(async () => {
  await close();
});

const logoutPath = (clientId: string, logoutUri: string): string =>
  `/logout?${new URLSearchParams({ client_id: clientId, logout_uri: logoutUri }).toString()}`;
const DEMO_SIGN_OUT = 'https://localhost:3000/signed-out';
const OWN_SIGN_OUT = 'https://partner.example/signed-out';

async function signedInBrowser(): Promise<HostedBrowser> {
  const browser = new HostedBrowser(url);
  await browser.signIn(DEMO_USER);
  return browser;
}

/** Whether the browser is still signed in: the dashboard shows its page, not its sign-in form. */
const signedIn = async (browser: HostedBrowser): Promise<boolean> => {
  const page = await browser.get('/');
  return page.text.includes('id="sign-out"') && !page.text.includes('name="password"');
};

describe('GET /logout from another site', () => {
  it("of the stranger's application: no redirect to the stranger, the partner stays signed in, and is asked instead", async () => {
    expect(t.deps.config.hosted).toBe(true);
    const browser = await signedInBrowser();
    const res = await browser.get(logoutPath(stranger.clientId, STRANGER_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 200, location: null });
    expect(res.text).toContain('Sign out of the sandbox?');
    expect(res.text).toContain('Totally Legit Water App');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await signedIn(browser)).toBe(true);
  });

  it("of the fixtures' demo-client, for a browser that never signed in through it: asked first (no sign-out CSRF)", async () => {
    const browser = await signedInBrowser();
    const res = await browser.get(logoutPath(DEMO_CLIENT.clientId, DEMO_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 200, location: null });
    expect(await signedIn(browser)).toBe(true);
  });

  it("of the stranger's application, for a browser not signed in: no redirect (no open redirect for anyone)", async () => {
    const visitor = new HostedBrowser(url);
    const res = await visitor.get(logoutPath(stranger.clientId, STRANGER_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 200, location: null });
    expect(res.text).toContain('not signed in');
    expect(res.text).not.toContain('evil.example/signed-out');
  });

  it("of the stranger's application after the partner allowed it and signed in through it: still asked, since it is another account's", async () => {
    const browser = await signedInBrowser();
    await allowApp(browser, stranger);
    const res = await browser.get(logoutPath(stranger.clientId, STRANGER_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 200, location: null });
    expect(await signedIn(browser)).toBe(true);

    // Confirmed: signed out, and shown a page, not sent on to the stranger's site.
    const confirmed = await browser.submit(res, '/logout');
    expect({ status: confirmed.status, location: confirmed.location }).toEqual({ status: 200, location: null });
    expect(confirmed.text).toContain('signed out of the water sandbox');
    expect(await signedIn(browser)).toBe(false);
  });
});

describe("production's sign-out keeps working", () => {
  it('for the demo-client the browser signed in through: the session ends and the browser goes to the sign-out URI', async () => {
    const browser = await signedInBrowser();
    codeIn(
      await browser.get(
        `/login?response_type=code&client_id=${DEMO_CLIENT.clientId}&redirect_uri=waterapp%3A%2F%2Fcallback`,
      ),
    );
    const res = await browser.get(logoutPath(DEMO_CLIENT.clientId, DEMO_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 302, location: DEMO_SIGN_OUT });
    expect(await signedIn(browser)).toBe(false);
  });

  it("for a client of the user's own account the browser signed in through", async () => {
    const own = await registerApp(
      url,
      { applicationName: 'Own App', redirectUri: 'https://partner.example/cb', signOutUri: OWN_SIGN_OUT },
      DEMO_API_KEY,
    );
    const browser = await signedInBrowser();
    codeIn(await askForCode(browser, own, { redirectUri: 'https://partner.example/cb' }));
    const res = await browser.get(logoutPath(own.clientId, OWN_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 302, location: OWN_SIGN_OUT });
    expect(await signedIn(browser)).toBe(false);
  });

  it('for a fixture client and a browser not signed in (nothing to end): to its sign-out URI', async () => {
    const res = await new HostedBrowser(url).get(logoutPath(DEMO_CLIENT.clientId, DEMO_SIGN_OUT));
    expect({ status: res.status, location: res.location }).toEqual({ status: 302, location: DEMO_SIGN_OUT });
  });
});

describe('POST /logout, the confirmation', () => {
  it("for a client of the user's own account: signed out, then to its sign-out URI", async () => {
    const own = await registerApp(url, { applicationName: 'Own App', signOutUri: OWN_SIGN_OUT }, DEMO_API_KEY);
    const browser = await signedInBrowser();
    const page = await browser.get(logoutPath(own.clientId, OWN_SIGN_OUT));
    expect(page.status).toBe(200);
    const confirmed = await browser.submit(page, '/logout');
    expect({ status: confirmed.status, location: confirmed.location }).toEqual({ status: 303, location: OWN_SIGN_OUT });
    expect(await signedIn(browser)).toBe(false);
  });

  it("from another site, without the page's token, or with another page's: refused, nothing ends", async () => {
    const browser = await signedInBrowser();
    const forged = await browser.post('/logout', { client_id: DEMO_CLIENT.clientId, logout_uri: DEMO_SIGN_OUT });
    expect({ status: forged.status, location: forged.location }).toEqual({ status: 403, location: null });
    const strangers = await browser.get(logoutPath(stranger.clientId, STRANGER_SIGN_OUT));
    const swapped = await browser.submit(strangers, '/logout', {
      client_id: DEMO_CLIENT.clientId,
      logout_uri: DEMO_SIGN_OUT,
    });
    expect(swapped.status).toBe(403);
    expect(await signedIn(browser)).toBe(true);
  });

  it.each([
    ['an unregistered logout_uri', { logout_uri: 'https://evil.example/elsewhere' }],
    ['a sign-out URI spelt otherwise', { logout_uri: 'https://LOCALHOST:3000/signed-out' }],
    ['a redirect URI as logout_uri', { logout_uri: DEMO_CLIENT.redirectUri }],
    ['an unknown client', { client_id: 'nobody' }],
  ])('with %s: a 400 page, no redirect, nothing ends', async (_case, changed) => {
    const browser = await signedInBrowser();
    const page = await browser.get(logoutPath(DEMO_CLIENT.clientId, DEMO_SIGN_OUT));
    const res = await browser.submit(page, '/logout', changed);
    expect({ status: res.status, location: res.location }).toEqual({ status: 400, location: null });
    expect(await signedIn(browser)).toBe(true);
    // The same through a GET: the error page, no redirect.
    const fields = { client_id: DEMO_CLIENT.clientId, logout_uri: DEMO_SIGN_OUT, ...changed };
    const got = await browser.get(logoutPath(fields.client_id, fields.logout_uri));
    expect({ status: got.status, location: got.location }).toEqual({ status: 400, location: null });
  });
});
