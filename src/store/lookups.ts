import { notFound } from '../core/errors.js';
import type { AccountDoc, DeepReadonly, LocationRecord, ScenarioRunRecord, SubscriptionRecord } from './data.js';

/**
 * Finding a record of the caller's own account. A 404 says nothing about other accounts:
 * an id that belongs to another account is answered exactly like an unknown one.
 */

export function findLocation(doc: DeepReadonly<AccountDoc>, locationId: string): DeepReadonly<LocationRecord> {
  const location = doc.locations.find((l) => l.locationId === locationId);
  if (!location) throw notFound(`No location ${JSON.stringify(locationId)} in this account`);
  return location;
}

export function findSubscription(
  doc: DeepReadonly<AccountDoc>,
  subscriptionId: string,
): DeepReadonly<SubscriptionRecord> {
  const subscription = doc.subscriptions.find((s) => s.subscriptionId === subscriptionId);
  if (!subscription) throw notFound(`No subscription ${JSON.stringify(subscriptionId)} in this account`);
  return subscription;
}

export function findRun(doc: DeepReadonly<AccountDoc>, runId: string): DeepReadonly<ScenarioRunRecord> {
  const run = doc.runs.find((r) => r.runId === runId);
  if (!run) throw notFound(`No scenario run ${JSON.stringify(runId)} in this account`);
  return run;
}

/** The same, for a document being changed inside a store update. */
export function findLocationToChange(doc: AccountDoc, locationId: string): LocationRecord {
  return findLocation(doc, locationId) as LocationRecord;
}
