import type { AccountDoc } from '../store/data.js';

/**
 * Puts one account back to its initial state: its locations as they were made, and no
 * subscriptions, alerts, clock offset, faults or scenario runs (the caller clears its
 * deliveries and journal). Credentials (API keys, users, OAuth clients and tokens) stay, so
 * the caller is still signed in.
 */
export function resetAccountDoc(doc: AccountDoc): void {
  doc.locations = structuredClone(doc.account.initialLocations);
  doc.subscriptions = [];
  doc.confirmationTokens = [];
  doc.alerts = [];
  doc.clock = { offsetMs: 0, frozenAtMs: null };
  doc.faults = [];
  doc.rateLimit = null;
  doc.runs = [];
}
