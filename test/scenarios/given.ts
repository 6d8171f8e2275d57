import request from 'supertest';

import type { TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';

export const ALERT_PAYLOAD_KEYS = ['active', 'detectedTime', 'deviceId', 'locationId', 'peakStatus', 'peakValue', 'startTime', 'stopTime', 'subscriptionId', 'type'];

/** Subscribes the receiver to the location (the confirmation POST goes out) without confirming. */
export async function givenPendingSubscription(
  t: TestApp,
  receiver: WebhookReceiver,
  locationId: string,
  apiKey = DEMO_API_KEY,
): Promise<{ subscriptionId: string; confirmationUrl: string; confirmationToken: string }> {
  const before = receiver.received.length;
  const res = await request(t.app).post(`/v1/locations/${locationId}/subscriptions`).set(bearer(apiKey)).send({ endpoint: receiver.url() });
  if (res.status !== 200) throw new Error(`subscribing answered ${res.status}: ${res.text}`);
  const subscriptionId = (res.body as { subscriptionId: string }).subscriptionId;
  await t.deps.dispatcher.drain();
  const message = receiver.received
    .slice(before)
    .map((r) => r.body as { confirmationUrl?: string; confirmationToken?: string })
    .find((b) => b?.confirmationUrl?.includes(subscriptionId));
  if (!message?.confirmationUrl || !message.confirmationToken) throw new Error('the receiver got no confirmation message');
  return { subscriptionId, confirmationUrl: message.confirmationUrl, confirmationToken: message.confirmationToken };
}

/** Subscribes the receiver and confirms through the confirmationUrl it was sent, as a partner does. */
export async function givenConfirmedSubscription(t: TestApp, receiver: WebhookReceiver, locationId: string, apiKey = DEMO_API_KEY): Promise<string> {
  const { subscriptionId, confirmationUrl } = await givenPendingSubscription(t, receiver, locationId, apiKey);
  const url = new URL(confirmationUrl);
  const res = await request(t.app).get(`${url.pathname}${url.search}`).set(bearer(apiKey));
  if (res.status !== 200) throw new Error(`confirming answered ${res.status}: ${res.text}`);
  return subscriptionId;
}

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
    .filter((r) => r.method === 'POST' && typeof r.body === 'object' && r.body !== null && 'type' in r.body && 'active' in r.body)
    .map((r) => r.body as Notification);
}

export const advance = (t: TestApp, seconds: number, apiKey = DEMO_API_KEY): request.Test =>
  request(t.app).post('/sandbox/clock').set(bearer(apiKey)).send({ advanceSeconds: seconds });
