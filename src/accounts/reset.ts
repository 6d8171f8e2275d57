import { openedWindow } from '../readiness/index.js';
import { copyOf } from '../store/change-draft.js';
import type { AccountDoc } from '../store/data.js';

/**
 * Puts one account back to its initial state: its locations as they were made, and no
 * subscriptions, alerts, clock offset, faults or scenario runs, and a new readiness window
 * opening at `nowMs` on the process clock (the caller clears its deliveries and journal).
 * Credentials (API keys, users, OAuth clients and tokens) stay, so the caller is still signed in.
 */
export function resetAccountDoc(doc: AccountDoc, nowMs: number): void {
  doc.locations = copyOf(doc.account.initialLocations);
  doc.subscriptions = [];
  doc.confirmationTokens = [];
  doc.alerts = [];
  doc.clock = { offsetMs: 0, frozenAtMs: null };
  doc.faults = [];
  doc.rateLimit = null;
  doc.runs = [];
  // The journal is cleared with the account: every entry after the reset counts.
  doc.readiness = openedWindow(nowMs, 0);
}
