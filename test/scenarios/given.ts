import request from 'supertest';

import type { TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';

export interface Notification {
  subscriptionId: string;
  type: string;
  active: boolean;
  startTime: number;
  detectedTime: number;
  stopTime: number;
  peakValue: number;
  peakStatus: string | null;
}

/** The alert notifications the receiver got (not confirmations or receiver checks), in arrival order. */
export function notificationsOf(receiver: WebhookReceiver, from = 0): Notification[] {
  return receiver.received
    .slice(from)
    .filter(
      (r) =>
        r.method === 'POST' && typeof r.body === 'object' && r.body !== null && 'type' in r.body && 'active' in r.body,
    )
    .map((r) => r.body as Notification);
}

export const advance = (t: TestApp, seconds: number, apiKey = DEMO_API_KEY): request.Test =>
  request(t.app).post('/sandbox/clock').set(bearer(apiKey)).send({ advanceSeconds: seconds });

/** Starts the named scenario at a location of the demo account (POST /sandbox/scenarios/{name}/runs answers 201); answers the run's id. */
export async function startScenario(t: TestApp, name: string, locationId = DEMO_LOCATION_ID): Promise<string> {
  const res = await request(t.app)
    .post(`/sandbox/scenarios/${name}/runs`)
    .set(bearer(DEMO_API_KEY))
    .send({ locationId })
    .expect(201);
  return res.body.runId as string;
}

/** What GET /sandbox/runs/{runId} answers (the fields tests read). */
export interface Run {
  runId: string;
  state: string;
  nextStep: number;
  nextStepAt: string | null;
  log: Record<string, unknown>[];
}

/** A run of the demo account, as GET /sandbox/runs/{runId} answers it. */
export async function runOf(t: TestApp, runId: string): Promise<Run> {
  const res = await request(t.app).get(`/sandbox/runs/${runId}`).set(bearer(DEMO_API_KEY)).expect(200);
  return res.body as Run;
}
