import request from 'supertest';

import type { TestApp } from './build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID } from './demo.js';
import type { WebhookReceiver } from './webhook-receiver.js';

/** The keys of an alert notification, sorted: production's alert, its location and the subscription it went to. */
export const ALERT_PAYLOAD_KEYS = [
  'active',
  'detectedTime',
  'deviceId',
  'locationId',
  'peakStatus',
  'peakValue',
  'startTime',
  'stopTime',
  'subscriptionId',
  'type',
];

/** Subscribes the receiver to the location (the confirmation POST goes out) without confirming. */
export async function givenPendingSubscription(
  t: TestApp,
  receiver: WebhookReceiver,
  locationId = DEMO_LOCATION_ID,
  apiKey = DEMO_API_KEY,
): Promise<{ subscriptionId: string; confirmationUrl: string; confirmationToken: string }> {
  const before = receiver.received.length;
  const res = await request(t.app)
    .post(`/v1/locations/${locationId}/subscriptions`)
    .set(bearer(apiKey))
    .send({ endpoint: receiver.url() });
  if (res.status !== 200) throw new Error(`subscribing answered ${res.status}: ${res.text}`);
  const subscriptionId = (res.body as { subscriptionId: string }).subscriptionId;
  await t.deps.dispatcher.drain();
  const message = receiver.received
    .slice(before)
    // What the receiver got, which need not be a JSON object.
    .map((r) => r.body as { confirmationUrl?: string; confirmationToken?: string } | null)
    .find((b) => b?.confirmationUrl?.includes(subscriptionId));
  if (!message?.confirmationUrl || !message.confirmationToken)
    throw new Error('the receiver got no confirmation message');
  return { subscriptionId, confirmationUrl: message.confirmationUrl, confirmationToken: message.confirmationToken };
}

/** The real flow, as a partner runs it: subscribes the receiver, then calls the confirmationUrl it was sent. */
export async function givenConfirmedSubscription(
  t: TestApp,
  receiver: WebhookReceiver,
  locationId = DEMO_LOCATION_ID,
  apiKey = DEMO_API_KEY,
): Promise<string> {
  const { subscriptionId, confirmationUrl } = await givenPendingSubscription(t, receiver, locationId, apiKey);
  const url = new URL(confirmationUrl);
  const res = await request(t.app).get(`${url.pathname}${url.search}`).set(bearer(apiKey));
  if (res.status !== 200) throw new Error(`confirming answered ${res.status}: ${res.text}`);
  return subscriptionId;
}
