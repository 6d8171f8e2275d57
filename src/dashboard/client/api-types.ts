/** The public API's answers, as the page reads them (the README and docs/ describe each). */

export interface ClockState {
  now: string;
  offsetSeconds: number;
  frozen: boolean;
}

export interface Device {
  deviceId: string;
  type: string;
  connected: boolean;
  calibrated: boolean;
}

export interface Location {
  locationId: string;
  name: string;
  homeAway: 'home' | 'away';
  devices: Device[];
  subscriptionIds: string[];
}

export interface Paged {
  page: number;
  perPage: number;
  pageCount: number;
  total: number;
}

export interface SandboxAlert {
  alertId: string;
  locationId: string;
  deviceId: string;
  type: string;
  active: boolean;
  /** Epoch seconds; stopTime is 0 while active. */
  startTime: number;
  detectedTime: number;
  stopTime: number;
  peakValue: number;
  shown: boolean;
  supersededBy: string | null;
}

export interface AlertStarted {
  outcome: 'started' | 'escalated' | 'ignored';
  type: string;
  peakValue: number;
  notifications: number;
  note?: string;
}

export interface Reading {
  time: string;
  volume: number;
}

export interface Summary {
  today: number;
  thisMonth: number;
  thisYear: number;
}

export interface Subscription {
  subscriptionId: string;
  locationId: string;
  endpoint: string;
  status: 'pending' | 'confirmed';
}

export interface DeliveryAttempt {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  warnings: string[];
}

export interface Delivery {
  deliveryId: string;
  kind: 'confirmation' | 'alert' | 'token' | 'receiver_check';
  subscriptionId: string | null;
  locationId: string | null;
  method: 'POST' | 'GET';
  target: string;
  requestHeaders: Record<string, string>;
  payload: unknown;
  state: 'pending' | 'delivered' | 'failed';
  attempts: DeliveryAttempt[];
  createdAt: string;
  nextAttemptAt: string | null;
  redeliveryOf: string | null;
  note: string | null;
}

export interface Run {
  runId: string;
  scenario: string;
  locationId: string;
  state: 'running' | 'completed' | 'failed';
  startedAt: string;
  steps: number;
  nextStep: number;
  nextStepAt: string | null;
  completedAt: string | null;
  log: { step: number; do: string; at: string; ok: boolean; result: string }[];
}

export interface JournalEntry {
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  time: string;
  durationMs: number;
  auth: 'api_key' | 'access_token';
  errorBody: string | null;
}

/** Error answers: {error, message} on /v1 and /sandbox. */
export interface ErrorAnswer {
  error?: string;
  message?: string;
}
