import request from 'supertest';

import type { SubscriptionRecord } from '../../src/store/data.js';
import type { DeliveryStore, Store } from '../../src/store/store.js';
import { changeDoc, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';

/** A subscription stored directly, already confirmed, so a test about alerts sends no confirmation. */
export async function givenSubscription(
  t: TestApp,
  endpoint: string,
  options: { locationId?: string; accountId?: string; status?: SubscriptionRecord['status'] } = {},
): Promise<string> {
  const subscriptionId = t.deps.ids.uuid();
  const accountId = options.accountId ?? DEMO_ACCOUNT_ID;
  await changeDoc(
    t,
    (d) => {
      d.subscriptions.push({
        subscriptionId,
        accountId,
        locationId: options.locationId ?? DEMO_LOCATION_ID,
        endpoint,
        status: options.status ?? 'confirmed',
        createdAt: t.clock.now().toISOString(),
      });
    },
    accountId,
  );
  return subscriptionId;
}

export function startAlert(
  t: TestApp,
  body: Record<string, unknown>,
  locationId = DEMO_LOCATION_ID,
  key = DEMO_API_KEY,
): request.Test {
  return request(t.app).post(`/sandbox/locations/${locationId}/alerts`).set(bearer(key)).send(body);
}

export function endAlert(t: TestApp, alertId: string, locationId = DEMO_LOCATION_ID, key = DEMO_API_KEY): request.Test {
  return request(t.app).post(`/sandbox/locations/${locationId}/alerts/${alertId}/end`).set(bearer(key));
}

export { deliveriesIn } from '../helpers/build-test-app.js';

/** POST bodies the receiver got (receiver checks arrive as GETs and are left out). */
export function postedBodies<T = Record<string, unknown>>(receiver: WebhookReceiver): T[] {
  return receiver.received.filter((r) => r.method === 'POST').map((r) => r.body as T);
}

/** `target` with some of its members replaced, its other methods still called on it (stores are classes with private fields). */
function replacing<T extends object>(target: T, replaced: Partial<Record<keyof T, unknown>>): T {
  return new Proxy(target, {
    get: (object, key) => {
      if (key in replaced) return replaced[key as keyof T];
      const value: unknown = Reflect.get(object, key, object);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
  });
}

/** The store with some calls of its delivery queue replaced: a dispatcher built on it can be acted on at a given moment of a round. */
export function storeWithDeliveries(store: Store, replaced: Partial<DeliveryStore>): Store {
  return replacing(store, { deliveries: replacing(store.deliveries, replaced) });
}
