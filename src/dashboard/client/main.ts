// First: it makes the browser's locale usable before uPlot (imported by usage-panel.ts) reads it.
import './locale.js';
import './style.css';

import type { LiveMessage, PageConfig } from '../page-config.js';
import { Api } from './api.js';
import { ClockPanel } from './clock-panel.js';
import { ConnectedAppsPanel } from './connected-apps-panel.js';
import { Context, type PanelName } from './context.js';
import { DeliveriesPanel } from './deliveries-panel.js';
import { byId, el } from './dom.js';
import { Inspector } from './inspector.js';
import { JournalPanel } from './journal-panel.js';
import { LiveConnection, type LiveState } from './live.js';
import { PAGE_LOCALE } from './locale.js';
import { LocationPanel } from './location-panel.js';
import { ReadinessPanel } from './readiness-panel.js';
import { Refresher } from './refresher.js';
import { ScenariosPanel } from './scenarios-panel.js';
import { SubscriptionsPanel } from './subscriptions-panel.js';
import { UsagePanel } from './usage-panel.js';

/** While the event stream is down, the page polls this often instead. */
const FALLBACK_POLL_MS = 5000;
const EVERYTHING: PanelName[] = [
  'clock',
  'locations',
  'alerts',
  'usage',
  'runs',
  'subscriptions',
  'deliveries',
  'journal',
  'inspector',
  'readiness',
  'connectedApps',
];

/** The panels an event of the account makes stale, for the events that only do that. */
const STALE_AFTER: Record<Exclude<LiveMessage['type'], 'hello' | 'signed-out' | 'clock' | 'alert'>, PanelName[]> = {
  delivery: ['deliveries', 'inspector', 'readiness'],
  run: ['runs'],
  subscription: ['subscriptions', 'locations', 'readiness'],
  location: ['locations'],
  // An application's call (a code exchange, a /v1 call) changes its last use.
  request: ['journal', 'readiness', 'connectedApps'],
  readiness: ['readiness'],
  reset: EVERYTHING,
};

function start(): void {
  const root = byId('dashboard');
  const config = JSON.parse(root.dataset['config'] ?? '{}') as PageConfig;
  let live: LiveConnection | null = null;
  let ended = false;

  const signedOut = (): void => {
    if (ended) return;
    ended = true;
    live?.stop();
    setLive('offline', 'signed out');
    // Hidden rather than removed: the panels' timers keep finding their elements.
    for (const child of root.children) if (child instanceof HTMLElement) child.hidden = true;
    root.prepend(
      el('section', { className: 'card signed-out', role: 'alert' }, [
        el('h2', { text: 'You are signed out' }),
        el('p', {
          text: 'This browser\u2019s session ended (signed out in another tab, or it expired). Nothing else changed in the sandbox.',
        }),
        el('a', { href: '/', className: 'button', text: 'Sign in again' }),
      ]),
    );
  };

  const api = new Api(config, signedOut);
  const refresher = new Refresher(
    (panel) => run(panel),
    (error) => ctx.fail(error),
  );
  const ctx = new Context(api, config, (...panels) => refresher.request(...panels));
  const clock = new ClockPanel(ctx);
  const location = new LocationPanel(ctx);
  const usage = new UsagePanel(ctx);
  const scenarios = new ScenariosPanel(ctx);
  const inspector = new Inspector(ctx);
  const deliveries = new DeliveriesPanel(ctx, inspector);
  const subscriptions = new SubscriptionsPanel(ctx);
  const journal = new JournalPanel(ctx);
  const readiness = new ReadinessPanel(ctx);
  const connectedApps = new ConnectedAppsPanel(ctx);
  subscriptions.onChange((list) => deliveries.showSubscriptions(list));
  ctx.onSelect(() => {
    clock.render();
    // Times everywhere are in the selected location's zone: the panels that show times redraw.
    ctx.refresh('readiness', 'journal', 'deliveries', 'inspector', 'connectedApps');
  });

  const refreshOf: Record<PanelName, () => Promise<void>> = {
    clock: () => clock.refresh(),
    locations: () => location.refreshLocations(),
    alerts: () => location.refreshAlerts(),
    usage: () => usage.refresh(),
    runs: () => scenarios.refresh(),
    subscriptions: () => subscriptions.refresh(),
    deliveries: () => deliveries.refresh(),
    journal: () => journal.refresh(),
    inspector: () => inspector.refresh(),
    readiness: () => readiness.refresh(),
    connectedApps: () => connectedApps.refresh(),
  };
  const run = (panel: PanelName): Promise<void> => refreshOf[panel]();

  let pollTimer: ReturnType<typeof setInterval> | null = null;
  function setLive(state: LiveState, detail?: string): void {
    const indicator = byId('live');
    indicator.dataset['state'] = state;
    indicator.textContent =
      state === 'live'
        ? 'live'
        : state === 'connecting'
          ? 'connecting…'
          : `offline${detail ? `: ${detail}` : ': checking every 5 s'}`;
    if (state === 'live' && pollTimer !== null) {
      clearInterval(pollTimer);
      pollTimer = null;
    } else if (state === 'offline' && pollTimer === null && detail === undefined) {
      pollTimer = setInterval(() => ctx.refresh(...EVERYTHING), FALLBACK_POLL_MS);
    }
  }

  let greeted = false;
  function onMessage(message: LiveMessage): void {
    switch (message.type) {
      case 'hello':
        // A reconnection may have missed events: reload what the page shows.
        if (greeted) ctx.refresh(...EVERYTHING);
        greeted = true;
        return;
      case 'signed-out':
        signedOut();
        return;
      case 'clock':
        clock.show(message);
        // Time passing decides some checks (a walk through pages left unfinished).
        ctx.refresh('readiness');
        return;
      case 'alert':
        ctx.refresh('alerts', 'locations', ...(message.locationId === ctx.selected ? (['usage'] as const) : []));
        return;
      default:
        ctx.refresh(...STALE_AFTER[message.type]);
    }
  }

  live = new LiveConnection({ message: onMessage, state: (state) => setLive(state), beforeRetry: () => api.renew() });
  root.dataset['locale'] = PAGE_LOCALE;
  root.dataset['ready'] = 'true';
  ctx.refresh(...EVERYTHING);
  live.start();
}

start();
