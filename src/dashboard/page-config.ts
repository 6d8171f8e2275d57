/**
 * What the server and the page's browser code share: the page's configuration (in the
 * `data-config` attribute of #dashboard), the dashboard's own routes, and the live messages.
 * This module imports nothing, so the browser bundle can use it without pulling in server code.
 */

export interface AlertTypeOption {
  type: string;
  meaning: string;
  unit: string;
  leak: boolean;
  defaultPeakValue: number;
  min: number;
  max: number;
  minExclusive: boolean;
}

export interface PageConfig {
  accessToken: string;
  /** On the sandbox's process clock (real time), not the account's. */
  tokenExpiresAt: string;
  /** Seconds of real time the token has left: the page renews it before then. */
  tokenExpiresIn: number;
  /** Sent back in the X-CSRF-Token header when the page renews its token. */
  csrfToken: string;
  locations: { locationId: string; name: string; timeZone: string }[];
  alertTypes: AlertTypeOption[];
  scenarios: { name: string; description: string; steps: number; durationSeconds: number }[];
}

/** The dashboard's routes besides the public API. */
export const DASHBOARD_PATHS = {
  /** POST, with the session cookie and X-CSRF-Token: a fresh access token for the page. */
  token: '/dashboard/token',
  /** GET: the account's events as server-sent events, for the signed-in session. */
  events: '/dashboard/events',
  /** GET or POST: a webhook receiver for demos that answers 200 JSON, or `?status=` (200-599). */
  demoReceiver: '/dashboard/demo-receiver',
  assets: '/dashboard/assets/',
} as const;

/** The answer of POST /dashboard/token. */
export interface TokenAnswer {
  accessToken: string;
  expiresAt: string;
  /** Seconds of real time the token has left. */
  expiresIn: number;
}

/** A message of the event stream: the account's events (src/live/events.ts), plus the stream's own. */
export type LiveMessage =
  | { type: 'hello' }
  | { type: 'signed-out' }
  | { type: 'delivery'; deliveryId: string; kind: string; state: string; attempt: string | null }
  | { type: 'alert'; alertId: string; locationId: string; active: boolean }
  | { type: 'run'; runId: string; state: string; nextStep: number }
  | { type: 'clock'; now: string; offsetSeconds: number; frozen: boolean }
  | { type: 'subscription'; subscriptionId: string; locationId: string; status: string }
  | { type: 'location'; locationId: string; homeAway: string }
  | { type: 'request'; method: string; path: string; status: number }
  | { type: 'readiness' }
  | { type: 'reset' };
