import { Router } from 'express';

import type { Deps } from '../deps.js';

/** /sandbox/locations/{id}/alerts and /sandbox/deliveries (built by the alerts issue). */
export function alertsSandboxRouter(_deps: Deps): Router {
  return Router({ strict: true });
}
