import { createAccountClocks, type AccountClocks } from './clock/account-clock.js';
import type { Config } from './config.js';
import { systemClock, type Clock } from './core/clock.js';
import { cryptoIds, type Ids } from './core/ids.js';
import { createJsonLogger, type Logger } from './core/logger.js';
import type { ScenarioCatalog } from './scenarios/schema.js';
import type { FixtureSet } from './store/fixtures.js';
import type { Store } from './store/store.js';
import { Dispatcher } from './webhooks/dispatcher.js';
import { fetchSender, type WebhookSender } from './webhooks/sender.js';

/** Everything the features need from outside themselves. Built once by main.ts, or by tests with overrides. */
export interface Deps {
  config: Config;
  /** The process clock; accounts' virtual clocks are built on it. */
  clock: Clock;
  clocks: AccountClocks;
  ids: Ids;
  store: Store;
  logger: Logger;
  fixtures: FixtureSet;
  /** The scenario files of SCENARIOS_DIR, loaded and validated at start-up. */
  scenarios: ScenarioCatalog;
  sender: WebhookSender;
  dispatcher: Dispatcher;
  /** Base URL for confirmation URLs and redirects; main.ts fills it in once the port is known. */
  urls: { publicUrl: string };
}

export interface DepsOverrides {
  clock?: Clock;
  ids?: Ids;
  logger?: Logger;
  sender?: WebhookSender;
  scenarios?: ScenarioCatalog;
}

export function buildDeps(config: Config, store: Store, fixtures: FixtureSet, overrides: DepsOverrides = {}): Deps {
  const clock = overrides.clock ?? systemClock;
  const ids = overrides.ids ?? cryptoIds;
  const logger = overrides.logger ?? createJsonLogger(config.logLevel);
  const sender = overrides.sender ?? fetchSender;
  const clocks = createAccountClocks(clock, store);
  const dispatcher = new Dispatcher({ store, clocks, ids, logger, sender }, config.webhook);
  const scheme = config.tls.mode === 'off' ? 'http' : 'https';
  return {
    config,
    clock,
    clocks,
    ids,
    store,
    logger,
    fixtures,
    scenarios: overrides.scenarios ?? new Map(),
    sender,
    dispatcher,
    urls: { publicUrl: config.publicUrl ?? `${scheme}://localhost:${config.port}` },
  };
}
