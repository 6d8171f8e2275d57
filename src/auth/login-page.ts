import { html, htmlDocument, type SafeHtml } from '../http/html.js';

/** The authorization request a login form carries through its hidden fields. */
export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  state: string | null;
}

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  * { box-sizing: border-box; }
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem; background: #eef4f8; color: #1d2b36; }
  main { width: 100%; max-width: 24rem; min-width: 0; background: #fff; border-radius: 12px; padding: clamp(1.25rem, 5vw, 2rem); box-shadow: 0 8px 30px rgba(20, 60, 90, .12); overflow-wrap: break-word; }
  h1 { font-size: 1.35rem; margin: 0 0 .25rem; }
  p.lead { margin: 0 0 1.5rem; color: #4a5b68; }
  label { display: block; font-weight: 600; margin: 1rem 0 .35rem; }
  input[type=email], input[type=password] { box-sizing: border-box; width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid #71859a; border-radius: 6px; }
  :focus-visible { outline: 3px solid #0b3d91; outline-offset: 2px; }
  input:focus-visible { outline-offset: 0; }
  button { margin-top: 1.5rem; width: 100%; padding: .7rem; font: inherit; font-weight: 600; color: #fff; background: #17659a; border: 0; border-radius: 6px; cursor: pointer; }
  button:hover { background: #0f4f7a; }
  .error { background: #fdecea; color: #8a1c12; border: 1px solid #f3b8b0; border-radius: 6px; padding: .6rem .8rem; margin-bottom: 1rem; }
  .note { margin-top: 1.5rem; font-size: .85rem; color: #51616d; }
  code { overflow-wrap: anywhere; }
`;

function page(title: string, body: SafeHtml): string {
  return htmlDocument({ title, style: STYLE, body: html`<main>
${body}
</main>` });
}

/** The sign-in form of the authorization host. Every value is escaped by `html`. */
export function renderLoginPage(input: {
  applicationName: string;
  request: AuthorizationRequest;
  csrfToken: string;
  email?: string;
  error?: string;
}): string {
  const { applicationName, request, csrfToken } = input;
  return page(
    `Sign in - ${applicationName}`,
    html`<h1>Sign in</h1>
<p class="lead">to continue to <strong id="application-name">${applicationName}</strong></p>
${input.error ? html`<div class="error" role="alert" id="login-error">${input.error}</div>` : ''}
<form method="post" action="/login" autocomplete="on">
  <input type="hidden" name="response_type" value="code">
  <input type="hidden" name="client_id" value="${request.clientId}">
  <input type="hidden" name="redirect_uri" value="${request.redirectUri}">
  ${request.state === null ? '' : html`<input type="hidden" name="state" value="${request.state}">`}
  <input type="hidden" name="csrf_token" value="${csrfToken}">
  <label for="email">E-mail</label>
  <input type="email" id="email" name="email" autocomplete="username" required autofocus value="${input.email ?? ''}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p class="note">Water-monitoring sandbox: sign in with a sandbox user (see the README); nothing here reaches production.</p>`,
  );
}

/** An error page of the authorization host: shown instead of redirecting when the request cannot be trusted. */
export function renderErrorPage(title: string, message: string, retryUrl?: string): string {
  return page(
    title,
    html`<h1>${title}</h1>
<div class="error" role="alert" id="error-message">${message}</div>
${retryUrl ? html`<p><a href="${retryUrl}">Open the sign-in page again</a></p>` : ''}
<p class="note">Water-monitoring sandbox authorization host.</p>`,
  );
}
