import { capReached } from '../core/errors.js';
import type { AccountDoc, ConnectedAppRecord, DeepReadonly } from '../store/data.js';
import type { Client } from './clients.js';

/**
 * The applications of other accounts that an account's users allowed on the consent page, as
 * operations over the account's document. Nothing here knows HTTP.
 *
 * A consent-kind grant (its code and tokens marked `consented` when issued) lives only while its
 * connected app is kept: revoking the app revokes its tokens at once, and a token request of the
 * grant without its app is refused, so nothing it holds outlives the account's say.
 */

/** A registered client as a connected app knows it: its id, the account that registered it, and when. */
export interface AppIdentity {
  clientId: string;
  ownerAccountId: string;
  clientCreatedAt: string;
}

/** The identity of a client registered by another account than `accountId`; null for one of its own or of the fixtures. */
export function foreignApp(client: Client, accountId: string): AppIdentity | null {
  const owner = client.registration?.accountId;
  if (owner === undefined || owner === accountId) return null;
  return { clientId: client.clientId, ownerAccountId: owner, clientCreatedAt: client.createdAt };
}

const sameApp = (app: DeepReadonly<ConnectedAppRecord>, identity: AppIdentity): boolean =>
  app.clientId === identity.clientId &&
  app.ownerAccountId === identity.ownerAccountId &&
  app.clientCreatedAt === identity.clientCreatedAt;

/** The connected app `userId` allowed for this very client (the same registration), if the account keeps it. */
export function connectedApp(
  doc: DeepReadonly<AccountDoc>,
  identity: AppIdentity,
  userId: string,
): DeepReadonly<ConnectedAppRecord> | undefined {
  return doc.connectedApps?.find((app) => app.userId === userId && sameApp(app, identity));
}

/**
 * Keeps the app `userId` just allowed: the record of that client and user is replaced (a new
 * registration of the client replaces the old one's). Past MAX_CONNECTED_APPS a new one is a
 * 409 naming the setting, and the change (with the code it would have issued) is not stored.
 */
export function rememberApp(doc: AccountDoc, app: ConnectedAppRecord, maxApps: number): void {
  const others = (doc.connectedApps ?? []).filter((a) => !(a.clientId === app.clientId && a.userId === app.userId));
  if (maxApps !== 0 && others.length >= maxApps) {
    throw capReached(
      'MAX_CONNECTED_APPS',
      `This account has ${others.length} applications of other accounts connected, the most this sandbox allows (MAX_CONNECTED_APPS=${maxApps}); revoke one (the dashboard's Connected apps, or DELETE /sandbox/connected-apps/{clientId}) before allowing another`,
    );
  }
  doc.connectedApps = [...others, app];
}

/** Notes that the tokens of the app `userId` allowed for `clientId` were used at `atIso` (when the account still keeps it). */
export function noteAppUse(doc: AccountDoc, clientId: string, userId: string, atIso: string): void {
  const app = doc.connectedApps?.find((a) => a.clientId === clientId && a.userId === userId);
  if (app) app.lastUsedAt = atIso;
}

/**
 * Revokes the apps that `which` picks: forgets them (so their users are asked again) and revokes
 * at `atIso` (the account clock) the consent-kind tokens and codes their clients hold in this
 * account. Returns how many apps and tokens ended.
 */
export function revokeApps(
  doc: AccountDoc,
  which: (clientId: string) => boolean,
  atIso: string,
): { apps: number; revokedTokens: number } {
  const kept = (doc.connectedApps ?? []).filter((app) => !which(app.clientId));
  const apps = (doc.connectedApps ?? []).length - kept.length;
  if (doc.connectedApps !== undefined) doc.connectedApps = kept;
  const ofApps = (grant: { clientId: string; consented?: true }): boolean =>
    grant.consented === true && which(grant.clientId);
  let revokedTokens = 0;
  for (const token of [...doc.accessTokens, ...doc.refreshTokens]) {
    if (token.revokedAt === null && ofApps(token)) {
      token.revokedAt = atIso;
      token.revokedBy = 'account';
      revokedTokens++;
    }
  }
  // Its codes are forgotten: one not yet exchanged would start a grant after the revocation.
  doc.authorizationCodes = doc.authorizationCodes.filter((code) => !ofApps(code));
  return { apps, revokedTokens };
}

/** GET /sandbox/connected-apps: what the account sees of one app. */
export interface ConnectedAppView {
  clientId: string;
  applicationName: string;
  applicationWebsite: string | null;
  ownerAccountName: string;
  allowedBy: string;
  allowedAt: string;
  lastUsedAt: string | null;
}

/** The account's connected apps, most recently allowed first, each with the e-mail of the user who allowed it. */
export function presentConnectedApps(doc: DeepReadonly<AccountDoc>): ConnectedAppView[] {
  const emails = new Map(doc.users.map((u) => [u.userId, u.email]));
  return [...(doc.connectedApps ?? [])].reverse().map((app) => ({
    clientId: app.clientId,
    applicationName: app.applicationName,
    applicationWebsite: app.applicationWebsite,
    ownerAccountName: app.ownerAccountName,
    allowedBy: emails.get(app.userId) ?? app.userId,
    allowedAt: app.allowedAt,
    lastUsedAt: app.lastUsedAt,
  }));
}
