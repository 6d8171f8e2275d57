import { Router } from 'express';

import type { Deps } from '../deps.js';

/** GET / : the demo dashboard (built by the dashboard work). */
export function dashboardRouter(_deps: Deps): Router {
  return Router({ strict: true });
}
