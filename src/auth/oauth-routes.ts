import { Router } from 'express';

import type { Deps } from '../deps.js';

/** The authorization host: /login, /oauth2/token, /logout (built by the OAuth issue). */
export function oauthRouter(_deps: Deps): Router {
  return Router({ strict: true });
}

/** /sandbox/oauth-clients (built by the OAuth issue). */
export function oauthSandboxRouter(_deps: Deps): Router {
  return Router({ strict: true });
}
