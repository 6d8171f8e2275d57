import { capReached, notFound } from '../core/errors.js';
import type { AccountDoc, DeepReadonly, DemoLinkRecord, DemoRecord } from '../store/data.js';

/**
 * The audience links of the presenter view: each a token that shows the account's view, read
 * only, to whoever holds it, until it expires or the presenter revokes it. Their lifetime runs on
 * the process clock (real time), not the account clock: a story moves the account clock by hours
 * a second, and an audience's afternoon must not end in the first minute of the demo.
 */

/** How long a link lives: the length of a long meeting, and the rehearsal before it. */
export const LINK_LIFETIME_MS = 4 * 60 * 60 * 1000;

const NO_DEMO: DeepReadonly<DemoRecord> = { prospect: '', locationId: null, links: [], story: null };

/** The account's presenter view as stored, or as it is before first use. */
export const demoOf = (doc: DeepReadonly<AccountDoc>): DeepReadonly<DemoRecord> => doc.demo ?? NO_DEMO;

/** The view's record in a change, made on first use. */
export function ensureDemo(doc: AccountDoc): DemoRecord {
  doc.demo ??= { prospect: '', locationId: null, links: [], story: null };
  return doc.demo;
}

const isLive = (link: DeepReadonly<DemoLinkRecord>, nowMs: number): boolean => link.expiresAtMs > nowMs;

/** The links still live at `nowMs` (process clock), oldest first. */
export const liveLinks = (doc: DeepReadonly<AccountDoc>, nowMs: number): readonly DeepReadonly<DemoLinkRecord>[] =>
  demoOf(doc).links.filter((l) => isLive(l, nowMs));

/** The live link of this token in the account, or null (expired, revoked or unknown: all the same to its holder). */
export function linkOfToken(
  doc: DeepReadonly<AccountDoc>,
  token: string,
  nowMs: number,
): DeepReadonly<DemoLinkRecord> | null {
  return demoOf(doc).links.find((l) => l.token === token && isLive(l, nowMs)) ?? null;
}

/**
 * Adds a link, dropping the expired ones first (an expired link is gone for good: its token
 * stops resolving with them). A 409 naming MAX_DEMO_LINKS when that many are live.
 */
export function createLink(
  doc: AccountDoc,
  link: { linkId: string; token: string; nowMs: number },
  maxLinks: number,
): DemoLinkRecord {
  const demo = ensureDemo(doc);
  demo.links = demo.links.filter((l) => isLive(l, link.nowMs));
  if (demo.links.length >= maxLinks) {
    throw capReached(
      'MAX_DEMO_LINKS',
      `This account has ${demo.links.length} live audience links, the most this sandbox allows (MAX_DEMO_LINKS=${maxLinks}); revoke one (DELETE /demo/links/{linkId}) or let it expire first`,
    );
  }
  const record: DemoLinkRecord = {
    linkId: link.linkId,
    token: link.token,
    createdAtMs: link.nowMs,
    expiresAtMs: link.nowMs + LINK_LIFETIME_MS,
  };
  demo.links.push(record);
  return { ...record };
}

/** Removes a link (its token then resolves to nothing, on every replica); a 404 when the account has no such live link. */
export function revokeLink(doc: AccountDoc, linkId: string, nowMs: number): DemoLinkRecord {
  const demo = ensureDemo(doc);
  const link = demo.links.find((l) => l.linkId === linkId && isLive(l, nowMs));
  demo.links = demo.links.filter((l) => l.linkId !== linkId && isLive(l, nowMs));
  if (!link)
    throw notFound(`No live audience link ${JSON.stringify(linkId)} in this account; GET /demo/links lists them`);
  return { ...link };
}
