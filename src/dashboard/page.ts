import { html, htmlDocument, trusted, type SafeHtml } from '../http/html.js';
import type { DashboardAssets } from './assets.js';
import { DASHBOARD_PATHS, type PageConfig } from './page-config.js';

export interface DashboardView {
  csrfToken: string;
  accountName: string;
  user: { name: string; email: string };
  config: PageConfig;
  assets: Pick<DashboardAssets, 'script' | 'style'>;
}

const asset = (name: string): string => `${DASHBOARD_PATHS.assets}${name}`;

function clockBar(): SafeHtml {
  return html`<section class="card clock" id="clock" aria-labelledby="clock-title">
    <h2 id="clock-title" class="visually-hidden">Virtual clock</h2>
    <div class="clock-read">
      <div class="clock-now" id="clock-now" aria-live="off">&hellip;</div>
      <div class="clock-meta" id="clock-meta">the account's virtual clock</div>
    </div>
    <div class="clock-buttons" role="group" aria-label="Clock and account controls">
      <button type="button" data-advance="3600">+1 h</button>
      <button type="button" data-advance="86400">+1 day</button>
      <button type="button" data-advance="604800">+7 days</button>
      <button type="button" class="secondary" id="freeze">Freeze</button>
      <button type="button" class="secondary" id="real-time">Back to real time</button>
      <button type="button" class="danger" id="reset">Reset account</button>
    </div>
  </section>`;
}

function locationSection(view: DashboardView): SafeHtml {
  const { config } = view;
  return html`<section class="card" id="location-panel" role="tabpanel" aria-labelledby="location-name">
        <div class="location-head">
          <h2 id="location-name">${config.locations[0]?.name ?? 'No location'}</h2>
          <span class="tz" id="location-zone">${config.locations[0]?.timeZone ?? ''}</span>
          <span class="detail" id="location-id"></span>
        </div>
        <div class="location-sub">
          <ul class="devices" id="devices" aria-label="Devices"></ul>
          <span class="home-away"><span class="badge" id="home-away">&hellip;</span><button type="button" class="secondary small" id="toggle-home-away" disabled>Set away</button></span>
        </div>
        <h3 id="alerts-title">Alerts in force</h3>
        <ul class="alerts" id="alerts" aria-labelledby="alerts-title"><li class="empty">Loading&hellip;</li></ul>
        <form id="start-alert" class="inline-form">
          <div class="field"><label for="alert-type">Alert type</label>
            <select id="alert-type" name="type" aria-describedby="alert-mode-note">
              ${config.alertTypes.map((t) => html`<option value="${t.type}">${t.type} (${t.meaning})</option>`)}
            </select></div>
          <div class="field"><label for="alert-peak">Peak value (optional)</label>
            <input type="number" id="alert-peak" name="peakValue" step="any" aria-describedby="alert-peak-hint alert-mode-note"></div>
          <button type="submit">Start alert</button>
          <p class="hint" id="alert-peak-hint"></p>
          <p class="hint warn" id="alert-mode-note" aria-live="polite"></p>
        </form>
      </section>`;
}

function usageSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="usage-title">
        <div class="section-head">
          <h2 id="usage-title">Water use</h2>
          <div class="toggle" role="group" aria-label="Chart view">
            <button type="button" data-view="hour" aria-pressed="true">Hours</button><button type="button" data-view="day" aria-pressed="false">Days</button><button type="button" data-view="month" aria-pressed="false">Months</button>
          </div>
        </div>
        <p class="hint" id="chart-caption"></p>
        <div class="chart" id="chart"></div>
        <dl class="summary">
          <div><dt>Today</dt><dd id="today">&ndash;</dd></div>
          <div><dt>This month</dt><dd id="this-month">&ndash;</dd></div>
          <div><dt>This year</dt><dd id="this-year">&ndash;</dd></div>
        </dl>
      </section>`;
}

function scenariosSection(view: DashboardView): SafeHtml {
  const { scenarios } = view.config;
  return html`<section class="card" aria-labelledby="scenarios-title">
        <h2 id="scenarios-title">Scenarios</h2>
        <form id="run-scenario" class="inline-form">
          <div class="field"><label for="scenario">Scenario</label>
            <select id="scenario" name="scenario" aria-describedby="scenario-description"${scenarios.length === 0 ? trusted(' disabled') : ''}>
              ${scenarios.length === 0 ? html`<option value="">no scenarios in SCENARIOS_DIR</option>` : scenarios.map((s) => html`<option value="${s.name}">${s.name}</option>`)}
            </select></div>
          <button type="submit"${scenarios.length === 0 ? trusted(' disabled') : ''}>Run</button>
          <p class="hint" id="scenario-description"></p>
        </form>
        <ul class="runs" id="runs" aria-label="Scenario runs at this location"></ul>
      </section>`;
}

function subscriptionsSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="subscriptions-title">
        <h2 id="subscriptions-title">Subscriptions <span class="count" id="subscriptions-count"></span></h2>
        <ul class="rows" id="subscriptions" aria-labelledby="subscriptions-title"><li class="empty">Loading&hellip;</li></ul>
        <form id="add-subscription" class="inline-form">
          <div class="field wide"><label for="endpoint">Subscribe an endpoint to <span id="subscribe-location"></span></label>
            <input type="url" id="endpoint" name="endpoint" required placeholder="https://your-app.example/webhooks" aria-describedby="endpoint-hint"></div>
          <button type="submit">Subscribe</button>
          <p class="hint" id="endpoint-hint">No receiver of your own? Use the sandbox's <button type="button" class="link" data-demo-receiver="200">demo receiver</button> (answers 200) or its <button type="button" class="link" data-demo-receiver="500">failing one</button> (answers 500, to see retries).</p>
        </form>
      </section>`;
}

function deliveriesSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Deliveries <span class="count" id="deliveries-count"></span></h2>
        <form class="filters" id="delivery-filters" aria-label="Filter deliveries">
          <label class="visually-hidden" for="filter-subscription">Subscription</label>
          <select id="filter-subscription"><option value="">All subscriptions</option></select>
          <label class="visually-hidden" for="filter-kind">Kind</label>
          <select id="filter-kind">
            <option value="">All kinds</option><option value="alert">Alerts</option><option value="confirmation">Confirmations</option><option value="receiver_check">Receiver checks</option><option value="token">Token deliveries</option>
          </select>
          <label class="visually-hidden" for="filter-state">State</label>
          <select id="filter-state">
            <option value="">All states</option><option value="pending">Pending</option><option value="delivered">Delivered</option><option value="failed">Failed</option>
          </select>
        </form>
        <ul class="rows scrolling" id="deliveries" aria-labelledby="deliveries-title" tabindex="0"><li class="empty">Loading&hellip;</li></ul>
      </section>`;
}

/** The drills' buttons: what each provokes, in the words of the check it feeds. */
const DRILL_BUTTONS: readonly { drill: string; label: string }[] = [
  { drill: 'expire-tokens', label: 'Expire tokens' },
  { drill: 'rate-limit', label: 'Rate limit (429)' },
  { drill: 'server-errors', label: 'Server errors (503)' },
  { drill: 'duplicate-delivery', label: 'Duplicate alert' },
  { drill: 'out-of-order', label: 'Alert end out of order' },
];

function readinessSection(): SafeHtml {
  return html`<section class="card" id="readiness-panel" aria-labelledby="readiness-title">
        <div class="section-head">
          <h2 id="readiness-title">Readiness <span class="count" id="readiness-summary"></span></h2>
          <button type="button" class="secondary small" id="readiness-reset">Start a new window</button>
        </div>
        <p class="hint" id="readiness-since">Whether the integration is ready for production, graded from the requests and webhook answers the sandbox saw.</p>
        <ul class="rows checklist" id="readiness-checks" aria-labelledby="readiness-title"><li class="empty">Loading&hellip;</li></ul>
        <h3 id="drills-title">Drills</h3>
        <div class="drills" role="group" aria-labelledby="drills-title" aria-describedby="drills-hint">
          <p class="hint" id="drills-hint">Provoke a rare case, then let the integration meet it: the check it feeds shows the outcome.</p>
          ${DRILL_BUTTONS.map((d) => html`<button type="button" class="secondary small" data-drill="${d.drill}">${d.label}</button>`)}
        </div>
      </section>`;
}

function journalSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="journal-title">
        <h2 id="journal-title">Request journal <span class="count" id="journal-count"></span></h2>
        <p class="hint">What apps sent with this account's API keys and tokens, newest first (this page's own calls are not recorded).
          <label class="check"><input type="checkbox" id="journal-errors-only"> Errors only</label></p>
        <ul class="rows scrolling" id="journal" aria-labelledby="journal-title" tabindex="0"><li class="empty">Loading&hellip;</li></ul>
      </section>`;
}

function connectedAppsSection(): SafeHtml {
  return html`<section class="card" aria-labelledby="connected-apps-title">
        <h2 id="connected-apps-title">Connected apps <span class="count" id="connected-apps-count"></span></h2>
        <p class="hint">Applications of other accounts that a user of this account allowed. Their tokens reach the <code>/v1</code> API only, never these controls; revoking one ends them at once.</p>
        <ul class="rows" id="connected-apps" aria-labelledby="connected-apps-title"><li class="empty">Loading&hellip;</li></ul>
      </section>`;
}

/**
 * The signed-in dashboard: the server renders the structure and every name (escaped); the
 * bundled script (src/dashboard/client) fills in live data through the API. No inline script
 * or style: the configuration travels in the escaped `data-config` attribute.
 */
export function renderDashboardPage(view: DashboardView): string {
  const { config } = view;
  return htmlDocument({
    title: `${view.accountName} - Water sandbox dashboard`,
    head: html`<link rel="stylesheet" href="${asset(view.assets.style)}">
<script src="${asset(view.assets.script)}" defer></script>`,
    body: html`<a class="skip" href="#dashboard">Skip to the dashboard</a>
<header class="top">
  <h1>Water sandbox</h1>
  <span class="account" id="account-name">${view.accountName}</span>
  <span class="live" id="live" role="status" data-state="connecting">connecting&hellip;</span>
  <a class="docs" href="/docs">API docs</a>
  <span class="who">Signed in as <strong>${view.user.name}</strong> (${view.user.email})</span>
  <form method="post" action="/dashboard/sign-out">
    <input type="hidden" name="csrf_token" value="${view.csrfToken}">
    <button type="submit" id="sign-out">Sign out</button>
  </form>
</header>
<main class="wrap" id="dashboard" tabindex="-1" data-config="${JSON.stringify(config)}">
  <div class="toast" id="toast">
    <div id="flash" role="status" aria-live="polite"></div>
    <button type="button" class="secondary small" id="flash-dismiss">Dismiss</button>
  </div>
  <noscript><p class="message bad">The dashboard needs JavaScript to load its data.</p></noscript>
  ${clockBar()}
  <div class="location-tabs" role="tablist" aria-label="Locations">
    ${config.locations.map(
      (l, i) =>
        html`<button type="button" role="tab" id="tab-${l.locationId}" data-location-id="${l.locationId}" aria-controls="location-panel" aria-selected="${i === 0 ? 'true' : 'false'}"${i === 0 ? '' : trusted(' tabindex="-1"')}>${l.name}</button>`,
    )}
  </div>
  <div class="grid">
    <div class="col" id="left-column">
      ${locationSection(view)}
      ${usageSection()}
      ${scenariosSection(view)}
      ${readinessSection()}
    </div>
    <div class="col" id="right-column">
      ${subscriptionsSection()}
      ${deliveriesSection()}
      ${journalSection()}
      ${connectedAppsSection()}
    </div>
  </div>
</main>
<dialog id="inspector" aria-labelledby="inspector-title"></dialog>
<dialog id="confirm-dialog" aria-labelledby="confirm-title"></dialog>`,
  });
}
