import { html, htmlDocument, trusted, type SafeHtml } from '../http/html.js';
import { DASHBOARD_SCRIPT } from './client-script.js';
import { DASHBOARD_STYLE, SIGN_IN_STYLE } from './style.js';

/** What the page's script needs, embedded (escaped) in a data attribute. */
export interface DashboardConfig {
  accessToken: string;
  tokenExpiresAt: string;
  locations: { locationId: string; name: string; timeZone: string }[];
  alertTypes: { type: string; meaning: string; unit: string; defaultPeakValue: number; min: number; max: number; minExclusive: boolean }[];
}

export interface DashboardView {
  nonce: string;
  csrfToken: string;
  accountName: string;
  user: { name: string; email: string };
  scenarios: { name: string; description: string }[];
  config: DashboardConfig;
}

/** The sign-in form of GET / (posts to /dashboard/sign-in). Every value is escaped by `html`. */
export function renderSignInPage(input: { nonce: string; csrfToken: string; email?: string; error?: string }): string {
  return htmlDocument({
    title: 'Sign in - Water sandbox dashboard',
    nonce: input.nonce,
    style: SIGN_IN_STYLE,
    body: html`<main>
<h1>Sign in</h1>
<p class="lead">to the water sandbox dashboard</p>
${input.error ? html`<div class="error" role="alert" id="sign-in-error">${input.error}</div>` : ''}
<form method="post" action="/dashboard/sign-in" autocomplete="on">
  <input type="hidden" name="csrf_token" value="${input.csrfToken}">
  <label for="email">E-mail</label>
  <input type="email" id="email" name="email" autocomplete="username" required${input.email ? '' : trusted(' autofocus')} value="${input.email ?? ''}">
  <label for="password">Password</label>
  <input type="password" id="password" name="password" autocomplete="current-password" required${input.email ? trusted(' autofocus') : ''}>
  <button type="submit">Sign in</button>
</form>
<p class="note">Water-monitoring sandbox: sign in with a sandbox user (demo: <code>demo@example.com</code> / <code>demo-password</code>); nothing here reaches production.</p>
</main>`,
  });
}

function locationCard(location: DashboardConfig['locations'][number], index: number, view: DashboardView): SafeHtml {
  const headingId = `location-${index}-name`;
  return html`<section class="card location" data-location-id="${location.locationId}" aria-labelledby="${headingId}">
  <div class="location-head">
    <h2 id="${headingId}">${location.name}</h2>
    <span class="tz">${location.timeZone} · <span data-field="local-time"></span></span>
  </div>
  <div class="location-sub">
    <ul class="devices" data-field="devices"></ul>
    <span class="home-away"><span class="badge" data-field="home-away">…</span><button type="button" class="secondary" data-action="toggle-home-away" disabled>…</button></span>
  </div>
  <h3>Active alerts</h3>
  <ul class="alerts" data-field="alerts"><li class="none">Loading…</li></ul>
  <div class="chart-head">
    <h3>Water use</h3>
    <div class="toggle" role="group" aria-label="Chart range">
      <button type="button" data-chart="hourly" aria-pressed="true">7 days · hourly</button><button type="button" data-chart="daily" aria-pressed="false">30 days · daily</button>
    </div>
  </div>
  <svg class="chart" data-field="chart" viewBox="0 0 720 230" preserveAspectRatio="xMinYMin meet" role="img" aria-label="Water use at ${location.name}"></svg>
  <dl class="summary">
    <div><dt>Today</dt><dd data-field="today">–</dd></div>
    <div><dt>This month</dt><dd data-field="this-month">–</dd></div>
    <div><dt>This year</dt><dd data-field="this-year">–</dd></div>
  </dl>
  <div class="actions">
    <div>
      <h3>Start an alert</h3>
      <form data-action="start-alert">
        <select name="type" aria-label="Alert type">
          ${view.config.alertTypes.map((t) => html`<option value="${t.type}">${t.type} (${t.meaning})</option>`)}
        </select>
        <label class="inline">Peak <input type="number" name="peakValue" step="any" aria-describedby="${headingId}-peak-hint"></label>
        <button type="submit">Start alert</button>
        <span class="hint" id="${headingId}-peak-hint" data-field="peak-hint"></span>
      </form>
      <p class="message" data-field="alert-message" role="status"></p>
    </div>
    <div>
      <h3>Run a scenario</h3>
      <form data-action="run-scenario">
        <select name="scenario" aria-label="Scenario"${view.scenarios.length === 0 ? trusted(' disabled') : ''}>
          ${view.scenarios.length === 0 ? html`<option value="">no scenarios in SCENARIOS_DIR</option>` : view.scenarios.map((s) => html`<option value="${s.name}" title="${s.description}">${s.name}</option>`)}
        </select>
        <button type="submit"${view.scenarios.length === 0 ? trusted(' disabled') : ''}>Run</button>
        <span class="hint" data-field="scenario-description">${view.scenarios[0]?.description ?? ''}</span>
      </form>
      <p class="message" data-field="run-message" role="status"></p>
      <ul class="runs" data-field="runs"></ul>
    </div>
  </div>
</section>`;
}

/** The signed-in dashboard: the server renders names and structure (escaped); the script fills in live data through the API. */
export function renderDashboardPage(view: DashboardView): string {
  return htmlDocument({
    title: `${view.accountName} - Water sandbox dashboard`,
    nonce: view.nonce,
    style: DASHBOARD_STYLE,
    script: DASHBOARD_SCRIPT,
    body: html`<header class="top">
  <h1>Water sandbox</h1>
  <span id="account-name">${view.accountName}</span>
  <span class="live" id="live">connecting…</span>
  <a class="docs" href="/docs">API docs</a>
  <span class="who">Signed in as <strong>${view.user.name}</strong> (${view.user.email})</span>
  <form method="post" action="/dashboard/sign-out">
    <input type="hidden" name="csrf_token" value="${view.csrfToken}">
    <button type="submit" id="sign-out">Sign out</button>
  </form>
</header>
<main class="wrap" id="dashboard" data-config="${JSON.stringify(view.config)}">
  <div id="flash" role="status"></div>
  <noscript><p class="error">The dashboard needs JavaScript to load its data.</p></noscript>
  <section class="card clock" aria-label="Virtual clock">
    <div>
      <div class="clock-now" id="clock-now">…</div>
      <div class="clock-meta" id="clock-meta">the account's virtual clock</div>
    </div>
    <div class="clock-buttons">
      <button type="button" data-advance="3600">+1 h</button>
      <button type="button" data-advance="86400">+1 day</button>
      <button type="button" data-advance="604800">+7 days</button>
      <button type="button" class="secondary" id="freeze">Freeze</button>
    </div>
  </section>
  <div class="locations">
    ${view.config.locations.map((location, i) => locationCard(location, i, view))}
  </div>
  <div class="bottom">
    <section class="card" aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Subscriptions <span class="count" id="subscriptions-count"></span></h2>
      <div class="table-scroll">
        <table>
          <thead><tr><th>Location</th><th>Endpoint</th><th>Status</th><th>Subscription id</th></tr></thead>
          <tbody id="subscriptions-body"><tr><td colspan="4" class="none">Loading…</td></tr></tbody>
        </table>
      </div>
    </section>
    <section class="card" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log <span class="count" id="deliveries-count"></span></h2>
      <div class="table-scroll">
        <table>
          <thead><tr><th>Time</th><th>Kind</th><th>Target</th><th>State</th><th>Attempts</th><th>Last answer</th></tr></thead>
          <tbody id="deliveries-body"><tr><td colspan="6" class="none">Loading…</td></tr></tbody>
        </table>
      </div>
    </section>
  </div>
</main>`,
  });
}

/** A small error page in the dashboard's look (e.g. a sign-out form from another page). */
export function renderDashboardErrorPage(input: { nonce: string; title: string; message: string }): string {
  return htmlDocument({
    title: input.title,
    nonce: input.nonce,
    style: SIGN_IN_STYLE,
    body: html`<main>
<h1>${input.title}</h1>
<div class="error" role="alert" id="error-message">${input.message}</div>
<p><a href="/">Back to the dashboard</a></p>
</main>`,
  });
}
