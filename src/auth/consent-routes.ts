import { AppError, LimitError } from '../core/errors.js';
import type { OperationRouter } from '../http/operation.js';
import type { AuthorizationHost } from './authorization-host.js';
import { redirectBack } from './authorization-request.js';
import { foreignApp, rememberApp } from './connected-apps.js';
import { readConsentToken, spendConsentPage } from './consent-token.js';
import { ConsentForm, consentOp } from './operations.js';
import { signedInUser } from './users.js';

/** POST /login/consent: the signed-in user's answer to a client another account registered. */
export function consentRoutes(api: OperationRouter, host: AuthorizationHost): void {
  const { deps, session, csrf, sendError, readRequest, redirectWithCode } = host;

  api.handle(
    consentOp,
    async (_input, req, res) => {
      const read = await readRequest(res, ConsentForm, req.body ?? {}, 'body', 'Invalid consent');
      if (!read) return;
      const { input: body } = read;
      const { client, request } = read.parsed;
      const now = deps.clock.now();
      const token = readConsentToken(csrf, req, request, body.csrf_token, now.getTime());
      if (!token.ok) {
        sendError(
          res,
          403,
          'Consent form expired',
          token.reason === 'expired'
            ? 'This consent page is too old to be answered; open the sign-in page again.'
            : 'This answer was not sent from a current consent page of this browser for this very request (the application, its redirect URI, state and every other parameter); open the sign-in page again.',
          request,
        );
        return;
      }
      const user = await signedInUser(deps.store, req.session);
      if (!user) {
        sendError(res, 403, 'Signed out', 'This browser is no longer signed in; open the sign-in page again.', request);
        return;
      }
      if (body.decision !== 'allow' && body.decision !== 'deny') {
        sendError(
          res,
          400,
          'Invalid consent',
          `decision must be "allow" or "deny"; ${body.decision === undefined ? 'it is missing' : `got ${JSON.stringify(body.decision)}`}`,
          request,
        );
        return;
      }
      const app = foreignApp(client, user.accountId);
      try {
        if (body.decision === 'deny') {
          await deps.store.accounts.update(user.accountId, (d) => spendConsentPage(d, token.page, now.getTime()));
          // RFC 6749 section 4.1.2.1: the refusal goes to the client, with its state.
          res.set('Cache-Control', 'no-store').redirect(302, redirectBack(request, { error: 'access_denied' }));
          return;
        }
        // The page showed the owner account's name; the connected app keeps what the user allowed.
        const ownerAccountName = app && (await deps.store.accounts.get(app.ownerAccountId))?.account.name;
        await redirectWithCode(req, res, request, user, {
          consented: app !== null,
          alongside: (d) => {
            spendConsentPage(d, token.page, now.getTime());
            // No app: the client became the user's own (or the fixtures') since the page was shown.
            if (!app) return;
            const connected = {
              ...app,
              userId: user.userId,
              applicationName: client.applicationName,
              applicationWebsite: client.registration?.applicationWebsite ?? null,
              ownerAccountName: ownerAccountName ?? app.ownerAccountId,
              allowedAt: now.toISOString(),
              lastUsedAt: null,
            };
            rememberApp(d, connected, deps.config.limits.connectedApps);
          },
        });
      } catch (error) {
        // A page spent already, or MAX_CONNECTED_APPS reached: a page that says so, and nothing issued.
        if (!(error instanceof AppError) || !error.expose) throw error;
        // Told as the error handler tells a refusal it shapes itself: /metrics and a warn line.
        if (error instanceof LimitError) {
          deps.metrics.countLimited(error.limit);
          deps.logger.warn('request refused by a limit', { limit: error.limit, accountId: user.accountId });
        }
        sendError(res, error.status, 'Not allowed', error.message, request);
      }
    },
    session,
  );
}
