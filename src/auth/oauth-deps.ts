import type { Clock } from '../core/clock.js';
import type { Ids } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import type { ClientsDeps } from './clients.js';
import type { GrantsDeps } from './grants.js';
import type { SessionDeps } from './session.js';
import type { TokenDeliveryDeps } from './token-delivery.js';

/** What the authorization host and the client registration need. */
export interface OAuthDeps extends ClientsDeps, SessionDeps, TokenDeliveryDeps, GrantsDeps {
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** Counts a refusal by a limit in /metrics, for the pages that answer it themselves (the consent page). */
  metrics: { readonly countLimited: (rule: string) => void };
  config: SessionDeps['config'] &
    TokenDeliveryDeps['config'] &
    GrantsDeps['config'] & { readonly limits: { readonly oauthClients: number; readonly connectedApps: number } };
}
