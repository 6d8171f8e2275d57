import type { Request, Response } from 'express';

import type { Ids } from '../core/ids.js';
import { html, htmlDocument, type SafeHtml } from '../http/html.js';
import type { Csrf } from './csrf.js';

/**
 * The sandbox's form pages: the two sign-in forms (the authorization host's /login and the
 * dashboard's), the consent page, and their error pages. One renderer, one style sheet and one
 * Content-Security-Policy for all of them.
 */

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 16px;
    --ink: #1d2b36; --muted: #51616d; --bg: #eef4f8; --card: #fff; --brand: #17659a; --brand-dark: #0f4f7a; --bad: #8a1c12; --bad-bg: #fdecea; }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; background: var(--bg); color: var(--ink); line-height: 1.4; }
  main { width: 100%; max-width: 24rem; min-width: 0; background: var(--card); border-radius: 12px; padding: clamp(1.25rem, 5vw, 2rem); box-shadow: 0 8px 30px rgba(20, 60, 90, .12); overflow-wrap: break-word; }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  p.lead { margin: 0 0 1.5rem; color: var(--muted); }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input { width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid #71859a; border-radius: 6px; background: #fff; color: var(--ink); }
  :focus-visible { outline: 3px solid #0b3d91; outline-offset: 2px; }
  input:focus-visible { outline-offset: 0; }
  button { margin-top: 1.5rem; width: 100%; padding: .7rem; font: inherit; font-weight: 600; color: #fff; background: var(--brand); border: 0; border-radius: 6px; cursor: pointer; }
  button:hover { background: var(--brand-dark); }
  button.secondary { color: var(--brand-dark); background: #fff; border: 1px solid var(--brand); }
  button.secondary:hover { background: var(--bg); }
  .actions { display: flex; gap: .75rem; }
  a { color: var(--brand); }
  code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; overflow-wrap: anywhere; }
  .error { background: var(--bad-bg); color: var(--bad); border: 1px solid #f3b8b0; border-radius: 6px; padding: .6rem .8rem; margin-bottom: 1rem; }
  .info { background: var(--bg); border: 1px solid #b8cfe0; border-radius: 6px; padding: .6rem .8rem; margin-bottom: 1rem; }
  dl { margin: 0 0 1rem; }
  dt { font-weight: 600; margin-top: .6rem; }
  dd { margin: .1rem 0 0; overflow-wrap: anywhere; }
  .note { margin-top: 1.5rem; font-size: .85rem; color: var(--muted); }
`;

/**
 * The policy of every form page: only this response's nonce may style it, nothing may run, it
 * loads nothing, it is never framed. No form-action: the sign-in and consent forms end in a
 * redirect to the partner's site, and Chrome applies form-action to that redirect too.
 */
const contentSecurityPolicy = (nonce: string): string =>
  `default-src 'none'; style-src 'nonce-${nonce}'; img-src data:; frame-ancestors 'none'; base-uri 'none'`;

/** A page made for one response, with that response's nonce. */
export type FormPage = (nonce: string) => string;

/** Sends a form page with its headers: never cached (a page may carry a token), never framed, no Referer to the partner. */
export function sendFormPage(deps: { ids: Ids }, res: Response, status: number, page: FormPage): void {
  const nonce = deps.ids.secret(18);
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': contentSecurityPolicy(nonce),
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
    .send(page(nonce));
}

/** Sends a sign-in form (the authorization host's or the dashboard's) with this browser's CSRF token of its `purpose`. */
export function sendSignInPage(
  deps: { ids: Ids },
  csrf: Csrf,
  req: Request,
  res: Response,
  status: number,
  purpose: string,
  form: Omit<SignInForm, 'csrfToken'>,
): void {
  sendFormPage(deps, res, status, signInPage({ ...form, csrfToken: csrf.token(req, res, purpose) }));
}

/** Sends an error page (the authorization host's or the dashboard's). */
export function sendMessagePage(deps: { ids: Ids }, res: Response, status: number, message: PageMessage): void {
  sendFormPage(deps, res, status, messagePage(message));
}

const document =
  (title: string, body: SafeHtml): FormPage =>
  (nonce) =>
    htmlDocument({
      title,
      nonce,
      style: STYLE,
      body: html`<main>
${body}
</main>`,
    });

const hiddenFields = (fields: Readonly<Record<string, string | null>>): SafeHtml[] =>
  Object.entries(fields).flatMap(([name, value]) =>
    value === null
      ? []
      : [
          html`<input type="hidden" name="${name}" value="${value}">
  `,
        ],
  );

/** Where a form posts, the fields it carries hidden, and its CSRF token. */
interface PostedForm {
  action: string;
  hidden: Readonly<Record<string, string | null>>;
  csrfToken: string;
}

/** What a sign-in form shows and where it posts. */
export interface SignInForm extends PostedForm {
  title: string;
  /** What the sign-in is for, under the heading. */
  lead: SafeHtml;
  email?: string;
  error?: string;
  note: SafeHtml;
}

/** A sign-in form: e-mail and password, posted to `action` with the hidden fields and the CSRF token. Every value is escaped by `html`. */
export function signInPage(input: SignInForm): FormPage {
  const typed = input.email !== undefined && input.email !== '';
  return document(
    input.title,
    html`<h1>Sign in</h1>
<p class="lead">${input.lead}</p>
${input.error ? html`<div class="error" role="alert" id="login-error">${input.error}</div>` : ''}
<form method="post" action="${input.action}" autocomplete="on">
  ${hiddenFields({ ...input.hidden, csrf_token: input.csrfToken })}<label for="email">E-mail</label>
  <input type="email" id="email" name="email" autocomplete="username" required${typed ? '' : html` autofocus`} value="${input.email ?? ''}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required${typed ? html` autofocus` : ''}>
  <button type="submit">Sign in</button>
</form>
<p class="note">${input.note}</p>`,
  );
}

/**
 * The consent page: an application registered by another account asks for a code for the
 * signed-in user's account. Allow and Deny post the same form with its CSRF token.
 */
export function consentPage(
  input: PostedForm & {
    applicationName: string;
    clientId: string;
    applicationWebsite: string | null;
    accountName: string;
    userEmail: string;
  },
): FormPage {
  return document(
    `Allow ${input.applicationName}?`,
    html`<h1>Allow access?</h1>
<p class="lead"><strong id="application-name">${input.applicationName}</strong> asks for access to your sandbox account.</p>
<dl>
  <dt>Application</dt><dd>${input.applicationName}</dd>
  <dt>Its website</dt><dd id="application-website">${input.applicationWebsite === null ? 'none given' : html`<a href="${input.applicationWebsite}" rel="noopener noreferrer">${input.applicationWebsite}</a>`}</dd>
  <dt>The account it would reach</dt><dd><span id="account-name">${input.accountName}</span>, signed in as <span id="user-email">${input.userEmail}</span></dd>
</dl>
<p>If you allow it, it can read and change this account's locations and subscriptions through the API (<code>/v1</code>), until the account revokes it: under <strong>Connected apps</strong> on the sandbox's <a href="/">dashboard</a>, or with <code>DELETE /sandbox/connected-apps/${input.clientId}</code>. It cannot use the sandbox's controls (reset, clock, faults, clients). You are not asked again for it until then.</p>
<form method="post" action="${input.action}">
  ${hiddenFields({ ...input.hidden, csrf_token: input.csrfToken })}<div class="actions">
    <button type="submit" name="decision" value="allow" id="allow">Allow</button>
    <button type="submit" name="decision" value="deny" id="deny" class="secondary">Deny</button>
  </div>
</form>
<p class="note">Another sandbox account registered this application. Allow it only if you started this sign-in yourself and trust the site it came from.</p>`,
  );
}

/**
 * The sign-out confirmation page: /logout was opened for a client this browser did not sign in
 * through, or one of another account, so nothing ends until the user says so (a POST with the
 * page's CSRF token).
 */
export function signOutPage(input: PostedForm & { applicationName: string; userEmail: string }): FormPage {
  return document(
    'Sign out of the sandbox?',
    html`<h1>Sign out of the sandbox?</h1>
<p class="lead"><strong id="application-name">${input.applicationName}</strong> asks to sign this browser out of the water sandbox.</p>
<p>You are signed in as <span id="user-email">${input.userEmail}</span>. Signing out ends this browser's session here (the dashboard and the sign-in of every application); tokens already issued stay valid until they expire.</p>
<form method="post" action="${input.action}">
  ${hiddenFields({ ...input.hidden, csrf_token: input.csrfToken })}<button type="submit" id="sign-out">Sign out</button>
</form>
<p class="note">If you did not ask to sign out, close this page: nothing has changed.</p>`,
  );
}

/** What an error or information page says: its title and message, where to go next, and whose page it is. */
export interface PageMessage {
  title: string;
  message: string;
  /** An error (the default), or an outcome to take note of. */
  tone?: 'error' | 'info';
  link?: { href: string; text: string };
  note: string;
}

/** An error page (shown instead of a redirect when a request cannot be trusted, or instead of a form that cannot be honoured), or an information page. */
export function messagePage(input: PageMessage): FormPage {
  return document(
    input.title,
    html`<h1>${input.title}</h1>
${input.tone === 'info' ? html`<div class="info" role="status" id="page-message">${input.message}</div>` : html`<div class="error" role="alert" id="error-message">${input.message}</div>`}
${input.link ? html`<p><a href="${input.link.href}">${input.link.text}</a></p>` : ''}
<p class="note">${input.note}</p>`,
  );
}
