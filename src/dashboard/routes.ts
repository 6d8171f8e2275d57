import { Router, type Request, type Response } from 'express';
import type { SessionData } from 'express-session';

import { ALERT_TYPE_SPECS, ALERT_TYPES } from '../alerts/index.js';
import {
  createCsrf,
  createSignIn,
  endSession,
  loginSession,
  pruneGrants,
  pruneInternalTokens,
  revokeGrant,
  sendMessagePage,
  signedInUser,
  sendSignInPage,
  startUserSession,
  type SessionDeps,
  type UserSessionDeps,
  type UsersDeps,
} from '../auth/index.js';
import { accountNowMs } from '../clock/index.js';
import { AppError, invalidParameter } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { clientAddressKey } from '../http/client-address.js';
import { html } from '../http/html.js';
import { allowOnly, queryString } from '../http/routing.js';
import type { LiveStreams } from '../live/index.js';
import { dashboardToken } from './access.js';
import { loadDashboardAssets } from './assets.js';
import { DASHBOARD_PATHS, type PageConfig, type TokenAnswer } from './page-config.js';
import { renderDashboardPage } from './page.js';

declare module 'express-session' {
  interface SessionData {
    /** Groups the dashboard's access tokens of this browser session, so signing out revokes them. */
    dashboardGrantId: string;
  }
}

/**
 * The signed-in page: its script and style sheet come from this origin only (the bundled
 * assets), with no inline script or style; it talks to this sandbox only (connect-src covers
 * fetch and the event stream), is never framed, and its forms post here. (The sign-in form and
 * the error pages are the authorization host's form pages, with their policy: auth/pages.ts.)
 */
const DASHBOARD_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  'img-src data:',
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function sendDashboard(res: Response, body: string): void {
  res
    .status(200)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      // The signed-in page carries an access token: never cache it.
      'Cache-Control': 'no-store',
      'Content-Security-Policy': DASHBOARD_POLICY,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
    .send(body);
}

/** The CSRF purposes of the dashboard's forms: its sign-in form, and the signed-in page (sign-out, token renewal). */
const SIGN_IN_FORM = 'dashboard sign-in';
const PAGE_FORMS = 'dashboard page';

const formValue = (body: unknown, name: string): string | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
};

const ALERT_TYPE_OPTIONS: PageConfig['alertTypes'] = ALERT_TYPES.map((type) => {
  const spec = ALERT_TYPE_SPECS[type];
  return {
    type,
    meaning: spec.meaning,
    unit: spec.unit,
    leak: spec.leak,
    defaultPeakValue: spec.defaultPeakValue,
    min: spec.min,
    max: spec.max,
    minExclusive: spec.minExclusive === true,
  };
});

/** The assets are immutable: their names change with their content. */
const ASSET_CACHING = 'public, max-age=31536000, immutable';

/**
 * GET / (the demo dashboard, or its sign-in form), POST /dashboard/sign-in and /sign-out, and
 * what the signed-in page uses besides the public API: its assets, a fresh access token, its
 * event stream, and a demo webhook receiver.
 * SANDBOX: production serves no page on the API host; this one exists for demos and manual testing.
 */
export interface DashboardDeps extends SessionDeps, UsersDeps, UserSessionDeps {
  scenarios: ReadonlyMap<string, { name: string; description: string; durationMs: number; steps: readonly unknown[] }>;
  config: SessionDeps['config'] & { readonly accessTokenTtlSeconds: number };
  liveStreams: LiveStreams;
  logger: Logger;
  /** Where the bundled browser code is; dist/dashboard-assets by default. */
  dashboardAssetsDir?: string;
}

export function dashboardRouter(deps: DashboardDeps): Router {
  const router = Router({ strict: true });
  const session = loginSession(deps);
  const signIn = createSignIn(deps);
  const csrf = createCsrf(deps);
  const assets = loadDashboardAssets(deps.dashboardAssetsDir);
  if ('missing' in assets)
    deps.logger.error('the dashboard page is not built; run npm run build', { reason: assets.missing });

  const showSignIn = (
    req: Request,
    res: Response,
    status: number,
    extra: { email?: string; error?: string } = {},
  ): void =>
    sendSignInPage(deps, csrf, req, res, status, SIGN_IN_FORM, {
      title: 'Sign in - Water sandbox dashboard',
      lead: html`to the water sandbox dashboard`,
      action: '/dashboard/sign-in',
      hidden: {},
      ...extra,
      note: html`Water-monitoring sandbox: sign in with a sandbox user (demo: <code>demo@example.com</code> / <code>demo-password</code>); nothing here reaches production.`,
    });

  const showError = (res: Response, status: number, title: string, message: string): void =>
    sendMessagePage(deps, res, status, {
      title,
      message,
      link: { href: '/', text: 'Back to the dashboard' },
      note: 'Water sandbox dashboard.',
    });

  /** The page's access token for this browser session: reused while it has half its life (of real time) left. */
  const pageToken = async (
    req: Request,
    user: { accountId: string; userId: string },
  ): Promise<TokenAnswer & { accountName: string; locations: PageConfig['locations'] }> => {
    req.session.dashboardGrantId ??= `dashboard-${deps.ids.secret(18)}`;
    const grantId = req.session.dashboardGrantId;
    const newToken = deps.ids.secret(32);
    const { accountId, userId } = user;
    return deps.store.accounts.update(accountId, (d) => {
      const processMs = deps.clock.now().getTime();
      pruneGrants(d, accountNowMs(deps.clock, d.clock));
      pruneInternalTokens(d, processMs);
      const token = dashboardToken(d, {
        grantId,
        userId,
        accountId,
        processMs,
        ttlSeconds: deps.config.accessTokenTtlSeconds,
        newToken,
      });
      return {
        ...token,
        accountName: d.account.name,
        locations: d.locations.map((l) => ({ locationId: l.locationId, name: l.name, timeZone: l.timeZone })),
      };
    });
  };

  router.get('/', session, async (req, res) => {
    const user = await signedInUser(deps.store, req.session);
    if (!user) {
      showSignIn(req, res, 200);
      return;
    }
    if ('missing' in assets) {
      showError(
        res,
        503,
        'Dashboard not built',
        `The dashboard's browser code is not built (${assets.missing}). Run npm run build, then start the sandbox again.`,
      );
      return;
    }
    const csrfToken = csrf.token(req, res, PAGE_FORMS);
    const token = await pageToken(req, user);
    sendDashboard(
      res,
      renderDashboardPage({
        csrfToken,
        accountName: token.accountName,
        user: { name: user.name, email: user.email },
        assets,
        config: {
          accessToken: token.accessToken,
          tokenExpiresAt: token.expiresAt,
          tokenExpiresIn: token.expiresIn,
          csrfToken,
          locations: token.locations,
          alertTypes: ALERT_TYPE_OPTIONS,
          scenarios: [...deps.scenarios.values()].map((s) => ({
            name: s.name,
            description: s.description,
            steps: s.steps.length,
            durationSeconds: s.durationMs / 1000,
          })),
        },
      }),
    );
  });
  allowOnly(router, '/', ['GET']);

  router.post('/dashboard/sign-in', session, async (req, res) => {
    // 403, as the authorization host's /login answers a form it did not issue; the form comes back with a fresh token.
    if (!csrf.valid(req, SIGN_IN_FORM, formValue(req.body, 'csrf_token'))) {
      showSignIn(req, res, 403, {
        error:
          'This form was not sent from a current sign-in page of this browser (or cookies are blocked); sign in again.',
      });
      return;
    }
    const outcome = await signIn(clientAddressKey(req), formValue(req.body, 'email'), formValue(req.body, 'password'));
    if (!outcome.ok) {
      res.set(outcome.headers);
      showSignIn(req, res, outcome.status, { email: outcome.email, error: outcome.error });
      return;
    }
    await startUserSession(deps, req, outcome.user);
    res.set('Cache-Control', 'no-store').redirect(303, '/');
  });
  // A reload of the address bar after a refused sign-in lands here: send it to the form.
  router.get('/dashboard/sign-in', (_req, res) => {
    res.redirect(303, '/');
  });
  allowOnly(router, '/dashboard/sign-in', ['GET', 'POST']);

  router.post('/dashboard/sign-out', session, async (req, res) => {
    if (!csrf.valid(req, PAGE_FORMS, formValue(req.body, 'csrf_token'))) {
      showError(
        res,
        403,
        'Sign-out refused',
        'This sign-out was not sent from a current dashboard page of this browser; open the dashboard and use its Sign out button.',
      );
      return;
    }
    const user = await signedInUser(deps.store, req.session);
    const grantId = req.session.dashboardGrantId;
    if (user && grantId !== undefined) {
      // On the process clock, as the page's tokens are (tokenNowMs).
      await deps.store.accounts.update(user.accountId, (d) => revokeGrant(d, grantId, deps.clock.now().toISOString()));
    }
    // The login session is shared with the authorization host, so this signs the browser out there too.
    await endSession(deps, req, res);
    res.set('Cache-Control', 'no-store').redirect(303, '/');
  });
  allowOnly(router, '/dashboard/sign-out', ['POST']);

  /** The signed-in user of a request that must come from the page: its session, and its CSRF token in a header. */
  const pageCaller = async (req: Request): Promise<{ accountId: string; userId: string }> => {
    const user = await signedInUser(deps.store, req.session);
    if (!user)
      throw new AppError(
        401,
        'signed_out',
        'This browser is not signed in to the dashboard (any more); open / and sign in',
      );
    return user;
  };

  // The page renews its token here before it expires (its lifetime is real time, not the account
  // clock's), and when the API refuses it (tokens were expired or revoked), so a demo never stops for
  // a sign-in. The login session, a day on the process clock, is what keeps the presenter signed in.
  router.post(DASHBOARD_PATHS.token, session, async (req, res) => {
    // Signed out first (401, which the page takes as the end of its session), then a request that is not the page's (403).
    const caller = await pageCaller(req);
    if (!csrf.valid(req, PAGE_FORMS, req.get('x-csrf-token'))) {
      throw new AppError(
        403,
        'csrf_refused',
        'A page token is issued only to the dashboard page of this browser session (X-CSRF-Token missing or wrong); reload the page',
      );
    }
    const token = await pageToken(req, caller);
    res.set('Cache-Control', 'no-store').json({
      accessToken: token.accessToken,
      expiresAt: token.expiresAt,
      expiresIn: token.expiresIn,
    } satisfies TokenAnswer);
  });
  allowOnly(router, DASHBOARD_PATHS.token, ['POST']);

  // The account's events for the signed-in page, as server-sent events. A GET with the session
  // cookie (EventSource sends no other credentials); it ends when the session does.
  router.get(DASHBOARD_PATHS.events, session, async (req, res) => {
    const { accountId } = await pageCaller(req);
    const sessionId = req.sessionID;
    // Stored sessions include ones without a sign-in (no userId), whatever SessionData says.
    const stillAllowed = (): Promise<boolean> =>
      new Promise((resolve) =>
        deps.store.sessions.get(sessionId, (error, data: Partial<SessionData> | null | undefined) =>
          resolve(!error && data?.accountId === accountId && data.userId !== undefined),
        ),
      );
    // A 409 naming MAX_OPEN_STREAMS (or MAX_OPEN_STREAMS_TOTAL) when there are as many as allowed.
    await deps.liveStreams.open(accountId, res, { stillAllowed });
  });
  allowOnly(router, DASHBOARD_PATHS.events, ['GET']);

  router.get(`${DASHBOARD_PATHS.assets}:file`, (req, res) => {
    const file = 'missing' in assets ? undefined : assets.files.get(req.params.file);
    if (!file)
      throw new AppError(
        404,
        'not_found',
        `No dashboard asset ${JSON.stringify(req.params.file)}; the page names the current ones`,
      );
    res.set({ 'Content-Type': file.contentType, 'Cache-Control': ASSET_CACHING }).send(file.body);
  });
  allowOnly(router, `${DASHBOARD_PATHS.assets}:file`, ['GET']);

  // SANDBOX: a webhook receiver for demos without one of their own: it answers GET and POST with
  // JSON, 200 or the status asked for, so a presenter can show a delivery succeed or fail and retry.
  const demoReceiver = (req: Request, res: Response): void => {
    const statusText = queryString(req.query, 'status') ?? '200';
    if (!/^[2-5]\d\d$/.test(statusText))
      throw invalidParameter(
        'status',
        `status must be an HTTP status from 200 to 599; got ${JSON.stringify(statusText)}`,
      );
    const status = Number(statusText);
    res.status(status).json(
      status < 300
        ? { received: true }
        : {
            error: 'demo_failure',
            message: `The demo receiver answers ${status} because its URL asks it to (?status=${status})`,
          },
    );
  };
  router.get(DASHBOARD_PATHS.demoReceiver, demoReceiver);
  router.post(DASHBOARD_PATHS.demoReceiver, demoReceiver);
  allowOnly(router, DASHBOARD_PATHS.demoReceiver, ['GET', 'POST']);

  return router;
}
