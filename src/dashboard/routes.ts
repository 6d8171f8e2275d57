import { Router, type Request, type Response } from 'express';

import { ALERT_TYPE_SPECS, ALERT_TYPES } from '../alerts/index.js';
import {
  createLoginThrottle,
  createPasswordCheck,
  loginSession,
  pruneGrants,
  revokeGrant,
  secretsEqual,
  sessionCall,
  SESSION_COOKIE,
  signedInUser,
  type SessionDeps,
  type UsersDeps,
} from '../auth/index.js';
import { accountNowMs } from '../clock/index.js';
import { AppError } from '../core/errors.js';
import { allowOnly } from '../http/routing.js';
import { dashboardToken } from './access.js';
import { renderDashboardErrorPage, renderDashboardPage, renderSignInPage, type DashboardConfig } from './page.js';

declare module 'express-session' {
  interface SessionData {
    /** Groups the dashboard's access tokens of this browser session, so signing out revokes them. */
    dashboardGrantId: string;
  }
}

/**
 * Only this page's nonce may run a script or style. No connect-src beyond 'self': the
 * script calls this sandbox only. form-action 'self' holds because both forms redirect to /.
 */
const contentSecurityPolicy = (nonce: string): string =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    'img-src data:',
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

function sendPage(res: Response, status: number, nonce: string, body: string): void {
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      // The signed-in page carries an access token: never cache it.
      'Cache-Control': 'no-store',
      'Content-Security-Policy': contentSecurityPolicy(nonce),
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
    .send(body);
}

const formValue = (body: unknown, name: string): string | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

const ALERT_TYPE_OPTIONS: DashboardConfig['alertTypes'] = ALERT_TYPES.map((type) => {
  const spec = ALERT_TYPE_SPECS[type];
  return { type, meaning: spec.meaning, unit: spec.unit, defaultPeakValue: spec.defaultPeakValue, min: spec.min, max: spec.max, minExclusive: spec.minExclusive === true };
});

/**
 * GET / (the demo dashboard, or its sign-in form), POST /dashboard/sign-in, POST /dashboard/sign-out.
 * SANDBOX: production serves no page on the API host; this one exists for demos and manual testing.
 */
export interface DashboardDeps extends SessionDeps, UsersDeps {
  scenarios: ReadonlyMap<string, { name: string; description: string }>;
  config: SessionDeps['config'] & { readonly accessTokenTtlSeconds: number };
}

export function dashboardRouter(deps: DashboardDeps): Router {
  const router = Router({ strict: true });
  const session = loginSession(deps);
  const checkPassword = createPasswordCheck(deps);
  const throttle = createLoginThrottle(deps);

  const nonce = (): string => deps.ids.secret(18);

  const showSignIn = (req: Request, res: Response, status: number, extra: { email?: string; error?: string } = {}): void => {
    req.session.csrfToken ??= deps.ids.secret(24);
    const n = nonce();
    sendPage(res, status, n, renderSignInPage({ nonce: n, csrfToken: req.session.csrfToken, ...extra }));
  };

  const csrfValid = (req: Request): boolean => {
    const given = formValue(req.body, 'csrf_token');
    const expected = req.session.csrfToken;
    return given !== undefined && expected !== undefined && secretsEqual(given, expected);
  };

  router.get('/', session, async (req, res) => {
    const user = await signedInUser(deps.store, req.session);
    if (!user) return showSignIn(req, res, 200);
    const { accountId, userId } = user;
    req.session.csrfToken ??= deps.ids.secret(24);
    req.session.dashboardGrantId ??= `dashboard-${deps.ids.secret(18)}`;
    const grantId = req.session.dashboardGrantId;
    const newToken = deps.ids.secret(32);
    const { token, view } = await deps.store.accounts.update(accountId, (d) => {
      const nowMs = accountNowMs(deps.clock, d.clock);
      pruneGrants(d, nowMs);
      return {
        token: dashboardToken(d, { grantId, userId, accountId, nowMs, ttlSeconds: deps.config.accessTokenTtlSeconds, newToken }),
        view: { accountName: d.account.name, locations: d.locations.map((l) => ({ locationId: l.locationId, name: l.name, timeZone: l.timeZone })) },
      };
    });
    const n = nonce();
    sendPage(
      res,
      200,
      n,
      renderDashboardPage({
        nonce: n,
        csrfToken: req.session.csrfToken,
        accountName: view.accountName,
        user: { name: user.name, email: user.email },
        scenarios: [...deps.scenarios.values()].map((s) => ({ name: s.name, description: s.description })),
        config: { accessToken: token.accessToken, tokenExpiresAt: token.expiresAt, locations: view.locations, alertTypes: ALERT_TYPE_OPTIONS },
      }),
    );
  });
  allowOnly(router, '/', ['GET']);

  router.post('/dashboard/sign-in', session, async (req, res) => {
    // 403, as the authorization host's /login answers a form it did not issue; the form comes back with a fresh token.
    if (!csrfValid(req)) {
      return showSignIn(req, res, 403, { error: 'This form was not sent from a current sign-in page of this browser (or cookies are blocked); sign in again.' });
    }
    const email = formValue(req.body, 'email')?.trim() ?? '';
    const password = formValue(req.body, 'password') ?? '';
    // 422, as the authorization host's /login: the page is the form again, and scripts can tell it failed.
    if (email === '' || password === '') return showSignIn(req, res, 422, { email, error: 'Enter your e-mail address and your password.' });
    const address = req.ip ?? 'unknown';
    try {
      await throttle.check(address, email);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 429) throw error;
      res.set(error.headers ?? {});
      return showSignIn(req, res, 429, { email, error: error.message });
    }
    const user = await checkPassword(email, password);
    if (!user) {
      await throttle.recordFailure(address, email);
      return showSignIn(req, res, 422, { email, error: 'The e-mail address or the password is not correct.' });
    }
    // A new session id at sign-in, so an id planted before it is worth nothing (session fixation).
    await sessionCall((done) => req.session.regenerate(done));
    req.session.userId = user.userId;
    req.session.accountId = user.accountId;
    req.session.csrfToken = deps.ids.secret(24);
    await sessionCall((done) => req.session.save(done));
    res.set('Cache-Control', 'no-store').redirect(303, '/');
  });
  // A reload of the address bar after a refused sign-in lands here: send it to the form.
  router.get('/dashboard/sign-in', (_req, res) => {
    res.redirect(303, '/');
  });
  allowOnly(router, '/dashboard/sign-in', ['GET', 'POST']);

  router.post('/dashboard/sign-out', session, async (req, res) => {
    if (!csrfValid(req)) {
      const n = nonce();
      return sendPage(
        res,
        403,
        n,
        renderDashboardErrorPage({ nonce: n, title: 'Sign-out refused', message: 'This sign-out was not sent from a current dashboard page of this browser; open the dashboard and use its Sign out button.' }),
      );
    }
    const user = await signedInUser(deps.store, req.session);
    const grantId = req.session.dashboardGrantId;
    if (user && grantId !== undefined) {
      await deps.store.accounts.update(user.accountId, (d) => revokeGrant(d, grantId, new Date(accountNowMs(deps.clock, d.clock)).toISOString()));
    }
    // The login session is shared with the authorization host, so this signs the browser out there too.
    await sessionCall((done) => req.session.destroy(done));
    res.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: deps.config.tls.mode !== 'off' });
    res.set('Cache-Control', 'no-store').redirect(303, '/');
  });
  allowOnly(router, '/dashboard/sign-out', ['POST']);

  return router;
}
