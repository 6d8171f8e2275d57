import request from 'supertest';

import type { TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
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
