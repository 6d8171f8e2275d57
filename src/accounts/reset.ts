import type { Data } from '../store/data.js';

/**
 * Puts one account back to its initial state: its locations as they were made, and no
 * subscriptions, alerts, deliveries, journal, clock offset, faults or scenario runs.
 * Credentials (API keys, users, OAuth tokens) stay, so the caller is still signed in.
 */
export function resetAccountState(data: Data, accountId: string): void {
  const account = data.accounts.find((a) => a.accountId === accountId);
  if (!account) return;
  const subscriptionIds = new Set(data.subscriptions.filter((s) => s.accountId === accountId).map((s) => s.subscriptionId));
  const other = <T extends { accountId: string }>(records: T[]): T[] => records.filter((r) => r.accountId !== accountId);
  data.locations = [...other(data.locations), ...structuredClone(account.initialLocations)];
  data.subscriptions = other(data.subscriptions);
  data.confirmationTokens = data.confirmationTokens.filter((t) => !subscriptionIds.has(t.subscriptionId));
  data.alerts = other(data.alerts);
  data.deliveries = other(data.deliveries);
  data.journal = other(data.journal);
  data.clocks = other(data.clocks);
  data.faults = other(data.faults);
  data.rateLimits = other(data.rateLimits);
  data.runs = other(data.runs);
}
