import { Router } from 'express';

import type { Deps } from '../deps.js';

/** GET /v1/locations/{id}/readings/water-usage and .../summary (built by the readings issue). */
export function readingsRouter(_deps: Deps): Router {
  const router = Router({ strict: true });
  return router;
}
