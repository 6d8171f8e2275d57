import { revokeApps } from '../auth/index.js';
import { openedWindow } from '../readiness/index.js';
import { copyOf } from '../store/change-draft.js';
import type { AccountDoc } from '../store/data.js';

/**
 * Puts one account back to its initial state: its locations as they were made, and no
 * subscriptions, alerts, clock offset, faults or scenario runs, and a new readiness window
 * opening at `nowMs` on the process clock (the caller clears its deliveries and journal).
 * The account's own credentials (API keys, users, OAuth clients and their access and refresh
 * tokens) stay, so the caller and its CI are still signed in. The applications of other accounts
 * that its users allowed are revoked, their tokens with them: they are not the account's
 * configuration but a stranger's grant, and a reset is the owner's way back to a known state.
 * Returns how many such applications were revoked.
 */
export function resetAccountDoc(doc: AccountDoc, nowMs: number): number {
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
  // The clock is back to real time: nowMs is the account's now as well.
  return revokeApps(doc, () => true, new Date(nowMs).toISOString()).apps;
}
