import { fixtureClientsOf } from './accounts/index.js';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { cryptoIds, type Ids } from './core/ids.js';
import { createLogger, type Logger } from './core/logger.js';
import { buildScene, DemoStreams } from './demo/index.js';
import { StreamSlots } from './http/event-stream.js';
import { createMetrics, type Metrics } from './http/metrics.js';
import { DEFAULT_LIVE_LIMITS, LiveStreams } from './live/index.js';
import { McpWaits } from './mcp/index.js';
import { foldInterval, Readiness } from './readiness/index.js';
import { ReadingsService } from './readings/index.js';
import { RelayHub, relayAwareSender } from './relay/index.js';
import type { ScenarioCatalog } from './scenarios/index.js';
import type { OAuthClientRecord } from './store/data.js';
import type { FixtureSet } from './store/fixtures.js';
import { instrumentStore } from './store/instrumented.js';
import type { Store } from './store/store.js';
import { confirmationTokenShown } from './subscriptions/index.js';
import {
  AddressGuard,
  createWebhookSender,
  Dispatcher,
  type RecordedAttempt,
  type Resolve,
  type WebhookSender,
} from './webhooks/index.js';

/**
 * Everything the features need from outside themselves, built once by server.ts (or by tests
 * with overrides). Each feature declares the narrow part it uses; this object satisfies them all.
 */
export interface Deps {
  config: Config;
  /** The process clock; accounts' virtual clocks are built on it. */
  clock: Clock;
  ids: Ids;
  store: Store;
  logger: Logger;
  fixtures: FixtureSet;
  fixtureClients: ReadonlyMap<string, OAuthClientRecord>;
  /** The scenario files of SCENARIOS_DIR, loaded and validated at start-up. */
  scenarios: ScenarioCatalog;
  /** Sends webhooks: relay endpoints through `listen` connections, the rest over HTTP. */
  sender: WebhookSender;
  /** Judges the addresses endpoints resolve to (BLOCK_PRIVATE_ENDPOINTS), with the resolver the sender uses. */
  addressGuard: AddressGuard;
  dispatcher: Dispatcher;
  /** `water-sandbox listen` connections and their endpoints. */
  relays: RelayHub;
  readings: ReadingsService;
  /** Integration readiness: folds each account's journal and delivery log into its report. */
  readiness: Readiness;
  /** The dashboard's server-sent event streams, closed at shutdown. */
  liveStreams: LiveStreams;
  /** MAX_OPEN_STREAMS_TOTAL: the event streams (dashboards and listen) this process holds open. */
  streamSlots: StreamSlots;
  /** The presenter view's streams (its presenter and audience), closed at shutdown. */
  demoStreams: DemoStreams;
  /** GET /metrics: requests, webhooks, the due queue, accounts and store latency. */
  metrics: Metrics;
  /** The MCP server's wait_for_delivery calls waiting, ended at shutdown. */
  mcpWaits: McpWaits;
  sessionSecret: string;
  /** Base URL for confirmation URLs and redirects; server.ts fills it in once the port is known. */
  urls: { publicUrl: string };
}

export interface DepsOverrides {
  clock?: Clock;
  ids?: Ids;
  logger?: Logger;
  sender?: WebhookSender;
  /** Name resolution for webhooks and endpoint checks (tests make names resolve to anything); the system's by default. */
  resolve?: Resolve;
  scenarios?: ScenarioCatalog;
}

export async function buildDeps(
  config: Config,
  openedStore: Store,
  fixtures: FixtureSet,
  overrides: DepsOverrides = {},
): Promise<Deps> {
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? cryptoIds;
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics({ store: openedStore, clock });
  // Every feature uses the store through this timed view of it, so its latency is measured for every backend.
  const store = instrumentStore(openedStore, metrics.observeStore);
  const scheme = config.tls.mode === 'off' ? 'http' : 'https';
  const urls = { publicUrl: config.publicUrl ?? `${scheme}://localhost:${config.port}` };
  // Kept in the store like the session secret, so every replica recognises the same relay ids, across restarts.
  const relays = new RelayHub(
    { store, ids, logger, urls },
    await store.settings.setIfAbsent('relaySecret', ids.secret(32)),
  );
  const streamSlots = new StreamSlots(config.limits.openStreamsTotal, (from, to) =>
    logger.warn("event stream ended: its slot went to an account holding fewer of this replica's streams", {
      accountId: from,
      forAccountId: to,
      limit: 'MAX_OPEN_STREAMS_TOTAL',
    }),
  );
  const addressGuard = new AddressGuard(overrides.resolve === undefined ? {} : { resolve: overrides.resolve });
  const httpSender = createWebhookSender({
    guard: config.blockPrivateEndpoints ? addressGuard : null,
    ...(overrides.resolve === undefined ? {} : { resolve: overrides.resolve }),
  });
  const sender = relayAwareSender(relays, overrides.sender ?? httpSender);
  const readiness = new Readiness({
    store,
    clock,
    logger,
    relays,
    foldEvery: foldInterval({ sharedStore: store.backend === 'redis', deliveryLogLimit: config.webhook.logLimit }),
  });
  const onAttempt = (attempt: RecordedAttempt): void => {
    metrics.observeAttempt(attempt);
    readiness.noteActivity(attempt.accountId);
  };
  const dispatcher = new Dispatcher(
    {
      store,
      clock,
      ids,
      logger,
      sender,
      onAttempt,
      onShareWait: metrics.countShareWait,
      tokenHidden: (accountId, target) => !confirmationTokenShown({ config, relays }, accountId, target),
    },
    config.webhook,
  );
  const readings = new ReadingsService({ clock, config });
  const scenarios = overrides.scenarios ?? new Map();
  const demoStreams = new DemoStreams(
    {
      store,
      slots: streamSlots,
      logger,
      render: (accountId) => buildScene({ store, clock, readings, scenarios }, accountId),
    },
    {
      perAccount: config.limits.demoViewers,
      maxBufferedBytes: config.limits.streamBufferBytes,
      heartbeatMs: DEFAULT_LIVE_LIMITS.heartbeatMs,
    },
  );
  return {
    config,
    clock,
    ids,
    store,
    logger,
    fixtures,
    fixtureClients: fixtureClientsOf(fixtures, clock.now()),
    scenarios,
    sender,
    addressGuard,
    dispatcher,
    relays,
    readings,
    readiness,
    liveStreams: new LiveStreams(
      { store, slots: streamSlots, logger },
      {
        perAccount: config.limits.openStreams,
        heartbeatMs: DEFAULT_LIVE_LIMITS.heartbeatMs,
        maxBufferedBytes: config.limits.streamBufferBytes,
      },
    ),
    streamSlots,
    demoStreams,
    metrics,
    mcpWaits: new McpWaits(
      { perAccount: config.limits.mcpWaits, maxSeconds: config.limits.mcpWaitSeconds },
      streamSlots,
    ),
    // Kept in the store, so login sessions survive restarts and are valid on every replica.
    sessionSecret: await store.settings.setIfAbsent('sessionSecret', ids.secret(32)),
    urls,
  };
}
