import {
  emptyAccountDoc,
  type AccountDoc,
  type DeliveryAttempt,
  type DeliveryRecord,
  type FaultRecord,
  type JournalEntry,
} from '../../src/store/data.js';
import type { IndexKind } from '../../src/store/store.js';

/**
 * Small data builders for the store tests (the contract suite, the embedded-only tests and the
 * crash child). Free of jest, so a plain Node process can import them.
 */

export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0);
export const iso = (ms: number): string => new Date(ms).toISOString();

/** How each kind of index key lives in a document: every IndexKind must be listed (the Record type checks it). */
export const indexedKeys: Record<
  IndexKind,
  { add(doc: AccountDoc, key: string): void; remove(doc: AccountDoc, key: string): void }
> = {
  apiKey: {
    add: (doc, key) => void doc.apiKeys.push({ apiKey: key, accountId: doc.account.accountId }),
    remove: (doc, key) => void (doc.apiKeys = doc.apiKeys.filter((k) => k.apiKey !== key)),
  },
  email: {
    add: (doc, key) =>
      void doc.users.push({
        userId: `user-${key}`,
        accountId: doc.account.accountId,
        email: key,
        name: 'Test User',
        passwordHash: 'scrypt$c2FsdA$aGFzaA',
      }),
    remove: (doc, key) => void (doc.users = doc.users.filter((u) => u.email !== key)),
  },
  accessToken: {
    add: (doc, key) =>
      void doc.accessTokens.push({
        accessToken: key,
        clientId: 'client',
        userId: 'user',
        accountId: doc.account.accountId,
        expiresAt: iso(T0 + 3_600_000),
        revokedAt: null,
        grantId: 'grant',
      }),
    remove: (doc, key) => void (doc.accessTokens = doc.accessTokens.filter((t) => t.accessToken !== key)),
  },
  refreshToken: {
    add: (doc, key) =>
      void doc.refreshTokens.push({
        refreshToken: key,
        clientId: 'client',
        userId: 'user',
        accountId: doc.account.accountId,
        grantId: 'grant',
        redirectUri: 'http://localhost/callback',
        createdAt: iso(T0),
        revokedAt: null,
      }),
    remove: (doc, key) => void (doc.refreshTokens = doc.refreshTokens.filter((t) => t.refreshToken !== key)),
  },
  authorizationCode: {
    add: (doc, key) =>
      void doc.authorizationCodes.push({
        code: key,
        clientId: 'client',
        redirectUri: 'http://localhost/callback',
        userId: 'user',
        accountId: doc.account.accountId,
        expiresAt: iso(T0 + 600_000),
        usedAt: null,
      }),
    remove: (doc, key) => void (doc.authorizationCodes = doc.authorizationCodes.filter((c) => c.code !== key)),
  },
  oauthClient: {
    add: (doc, key) =>
      void doc.oauthClients.push({
        clientId: key,
        clientSecret: `${key}-secret`,
        applicationName: 'Test App',
        redirectUris: ['http://localhost/callback'],
        signOutUris: [],
        postTokenToRedirectUri: false,
        createdAt: iso(T0),
      }),
    remove: (doc, key) => void (doc.oauthClients = doc.oauthClients.filter((c) => c.clientId !== key)),
  },
  location: {
    add: (doc, key) =>
      void doc.locations.push({
        locationId: key,
        accountId: doc.account.accountId,
        name: `Home ${key}`,
        homeAway: 'home',
        timeZone: 'America/Denver',
        installDate: '2024-01-01',
        profile: { householdSize: 2 },
        devices: [{ deviceId: `device-${key}`, type: 'monitor', connected: true, calibrated: true }],
      }),
    remove: (doc, key) => void (doc.locations = doc.locations.filter((l) => l.locationId !== key)),
  },
  subscription: {
    add: (doc, key) =>
      void doc.subscriptions.push({
        subscriptionId: key,
        accountId: doc.account.accountId,
        locationId: 'loc',
        endpoint: 'http://127.0.0.1:9/hooks',
        status: 'confirmed',
        createdAt: iso(T0),
      }),
    remove: (doc, key) => void (doc.subscriptions = doc.subscriptions.filter((s) => s.subscriptionId !== key)),
  },
  demoLink: {
    add: (doc, key) => {
      doc.demo ??= { prospect: '', locationId: null, links: [], story: null };
      doc.demo.links.push({ linkId: `link-${key}`, token: key, createdAtMs: T0, expiresAtMs: T0 + 4 * 3_600_000 });
    },
    remove: (doc, key) => {
      if (doc.demo) doc.demo.links = doc.demo.links.filter((l) => l.token !== key);
    },
  },
};

export const INDEX_KINDS = Object.keys(indexedKeys) as IndexKind[];

/** The key of `kind` that givenAccount puts into the document of `accountId`. */
export const keyOf = (kind: IndexKind, accountId: string): string => `${kind}-of-${accountId}`;

export interface AccountOptions {
  origin?: 'fixture' | 'generated';
  createdAtMs?: number;
  name?: string;
  /** Give the document one key of every IndexKind (keyOf); default true. */
  withKeys?: boolean;
}

/** A document with one key of every kind, so each index can be checked on it. */
export function givenAccount(accountId: string, options: AccountOptions = {}): AccountDoc {
  const doc = emptyAccountDoc({
    accountId,
    name: options.name ?? `Account ${accountId}`,
    origin: options.origin ?? 'fixture',
    initialLocations: [],
    createdAt: iso(options.createdAtMs ?? T0),
  });
  if (options.withKeys ?? true) for (const kind of INDEX_KINDS) indexedKeys[kind].add(doc, keyOf(kind, accountId));
  return doc;
}

export interface DeliveryOptions {
  state?: DeliveryRecord['state'];
  kind?: DeliveryRecord['kind'];
  subscriptionId?: string | null;
  locationId?: string | null;
  /** Virtual time of the next attempt; only meaningful for pending deliveries. */
  dueAtMs?: number | null;
  createdAtMs?: number;
}

export function givenDelivery(accountId: string, deliveryId: string, options: DeliveryOptions = {}): DeliveryRecord {
  const state = options.state ?? 'pending';
  const dueAtMs = options.dueAtMs !== undefined ? options.dueAtMs : state === 'pending' ? T0 : null;
  return {
    deliveryId,
    accountId,
    kind: options.kind ?? 'alert',
    subscriptionId: options.subscriptionId !== undefined ? options.subscriptionId : 'sub-1',
    locationId: options.locationId !== undefined ? options.locationId : 'loc-1',
    method: 'POST',
    target: 'http://127.0.0.1:9/hooks',
    payload: { deliveryId, nested: { values: [1, 2, 3] } },
    state,
    attempts:
      state === 'pending'
        ? []
        : [{ at: iso(T0), statusCode: 200, latencyMs: 5, error: null, responseExcerpt: '{"ok":true}', warnings: [] }],
    createdAt: iso(options.createdAtMs ?? T0),
    dueAtMs,
  };
}

/** An attempt of a delivery, by default a 500 answered at T0, to push onto its attempts. */
export function givenAttempt(fields: Partial<DeliveryAttempt> = {}): DeliveryAttempt {
  return { at: iso(T0), statusCode: 500, latencyMs: 1, error: null, responseExcerpt: null, warnings: [], ...fields };
}

export function givenJournalEntry(accountId: string, n: number): JournalEntry {
  return {
    accountId,
    method: 'GET',
    path: `/v1/locations/${n}`,
    query: { n: String(n) },
    status: 200,
    time: iso(T0 + n),
    durationMs: n % 7,
    auth: 'api_key',
  };
}

export function givenFault(accountId: string, faultId: string): FaultRecord {
  return {
    faultId,
    accountId,
    method: null,
    path: null,
    status: 503,
    body: null,
    delayMs: 0,
    remaining: 1,
    createdAt: iso(T0),
  };
}
