import { Router } from 'express';

import type { Deps } from '../deps.js';

/** /sandbox/clock, /sandbox/scenarios and /sandbox/runs (built by the alerts issue). */
export function scenariosSandboxRouter(_deps: Deps): Router {
  return Router({ strict: true });
}
