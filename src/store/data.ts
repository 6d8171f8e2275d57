/**
 * What the sandbox keeps about one account, as one document (AccountDoc), plus two per-account
 * collections that grow with use and are stored apart: the delivery log and the request
 * journal. Records are internal shapes: the public shapes of /v1 are built from them by each
 * feature's presenter, so stored fields never leak into responses.
 */

export type HomeAway = 'home' | 'away';

export interface AccountRecord {
  accountId: string;
  name: string;
  /** Where the account came from: the fixtures, or POST /sandbox/accounts. */
  origin: 'fixture' | 'generated';
  /** The locations as they were when the account was made; POST /sandbox/reset restores them. */
  initialLocations: LocationRecord[];
  createdAt: string;
}

export interface UserRecord {
  userId: string;
  accountId: string;
  email: string;
  name: string;
  /** `sha256$<salt>$<hash>` (or `scrypt$...` from version 0.1), both base64url; see core/passwords.ts. */
  passwordHash: string;
}

export interface ApiKeyRecord {
  apiKey: string;
  accountId: string;
}

export interface OAuthClientRecord {
  clientId: string;
  clientSecret: string;
  applicationName: string;
  redirectUris: string[];
  signOutUris: string[];
  /** Registration details as production's form asks for them; absent for fixture clients. */
  registration?: {
    name: string;
    companyName: string;
    email: string;
    phone: string;
    applicationWebsite: string;
    description: string;
    /** The account whose credentials registered the client (POST /sandbox/oauth-clients). */
    accountId: string;
  };
  /** Whether the token response is also POSTed to the redirect URI (production's documented behaviour). */
  postTokenToRedirectUri: boolean;
  createdAt: string;
}

export interface DeviceRecord {
  deviceId: string;
  type: 'monitor';
  connected: boolean;
  calibrated: boolean;
}

/** What drives a location's synthetic water use (see src/readings). */
export interface UsageProfile {
  /** People living in the home; scales indoor use. */
  householdSize: number;
  /** Optional lawn watering: months (1-12) it runs, local start hour, and gallons per watering day. */
  irrigation?: { months: number[]; startHour: number; gallonsPerDay: number; weekdays: number[] };
  /** Multiplier for all use, for "heavy" or "light" homes and for scenario steps. */
  scale?: number;
}

export interface LocationRecord {
  locationId: string;
  accountId: string;
  name: string;
  homeAway: HomeAway;
  /** IANA time zone name; defines the local calendar of readings and the summary. */
  timeZone: string;
  /** Local date (YYYY-MM-DD) the monitor was installed; no readings exist before its local midnight. */
  installDate: string;
  profile: UsageProfile;
  devices: DeviceRecord[];
  /** Time-bounded changes of use (scenario steps): hours in [fromMs, toMs) are scaled by `scale`. */
  usageOverrides?: UsageOverride[];
}

export interface UsageOverride {
  fromMs: number;
  /** null: still in force. */
  toMs: number | null;
  scale: number;
}

export type SubscriptionStatus = 'pending' | 'confirmed';

export interface SubscriptionRecord {
  subscriptionId: string;
  accountId: string;
  locationId: string;
  endpoint: string;
  status: SubscriptionStatus;
  createdAt: string;
}

export interface ConfirmationTokenRecord {
  token: string;
  subscriptionId: string;
  accountId: string;
  expiresAt: string;
  usedAt: string | null;
}

export interface AuthorizationCodeRecord {
  code: string;
  clientId: string;
  redirectUri: string;
  userId: string;
  accountId: string;
  expiresAt: string;
  usedAt: string | null;
  /**
   * Set when it was issued to a client of another account, after a user of this account allowed
   * that client on the consent page (recorded at issue, never inferred from a client id): such a
   * grant reaches /v1 only, the /sandbox controls being the account owner's, and lives only while
   * the account keeps the app connected (AccountDoc.connectedApps).
   */
  consented?: true;
}

export interface AccessTokenRecord {
  accessToken: string;
  clientId: string;
  userId: string;
  accountId: string;
  expiresAt: string;
  revokedAt: string | null;
  /** The code or refresh token it came from, so a replayed code can revoke what it issued. */
  grantId: string;
  /**
   * Set on a token the sandbox issued to itself (the dashboard page's), when it issued it: such
   * a token's requests stay out of the journal and readiness, and meet no faults. Never inferred
   * from the client id, which a partner may choose; a token without it (older data) is a partner's.
   */
  internal?: true;
  /**
   * Set when it was issued to a client of another account, after a user of this account allowed
   * that client on the consent page (recorded at issue, never inferred from a client id): such a
   * grant reaches /v1 only, the /sandbox controls being the account owner's, and lives only while
   * the account keeps the app connected (AccountDoc.connectedApps).
   */
  consented?: true;
  /** Who revoked it, when it was not the sandbox's own rules (rotation, a replayed code): its account (connected apps, a reset) or its client (POST /oauth2/revoke). */
  revokedBy?: 'account' | 'client';
}

export interface RefreshTokenRecord {
  refreshToken: string;
  clientId: string;
  userId: string;
  accountId: string;
  grantId: string;
  /** The redirect URI of the grant; refreshed token responses are delivered there too. */
  redirectUri: string;
  createdAt: string;
  revokedAt: string | null;
  /**
   * Set when it was issued to a client of another account, after a user of this account allowed
   * that client on the consent page (recorded at issue, never inferred from a client id): such a
   * grant reaches /v1 only, the /sandbox controls being the account owner's, and lives only while
   * the account keeps the app connected (AccountDoc.connectedApps).
   */
  consented?: true;
  /** Who revoked it, when it was not the sandbox's own rules (rotation, a replayed code): its account (connected apps, a reset) or its client (POST /oauth2/revoke). */
  revokedBy?: 'account' | 'client';
}

/**
 * A client of another account that a user of this account allowed on the consent page: listed
 * by GET /sandbox/connected-apps, revoked by DELETE /sandbox/connected-apps/{clientId}. While it is
 * kept, that user is not asked again for that client.
 */
export interface ConnectedAppRecord {
  clientId: string;
  userId: string;
  /**
   * The account that registered the client, and when: a client deleted and registered again (by
   * anyone) is another application, which is asked about again and cannot use this one's grants.
   */
  ownerAccountId: string;
  clientCreatedAt: string;
  /** What the consent page showed when the user allowed it. */
  applicationName: string;
  applicationWebsite: string | null;
  ownerAccountName: string;
  /** When the user allowed it, and when its tokens were last used (process clock; last use to the minute). */
  allowedAt: string;
  lastUsedAt: string | null;
}

export interface SessionRecord {
  sid: string;
  /** express-session's serialisable session object. */
  session: Record<string, unknown>;
  expiresAt: string;
}

export type AlertType = 'lowLeak' | 'highLeak' | 'awayLeak' | 'ambientTemp' | 'waterTemp' | 'humidity';

export interface AlertRecord {
  alertId: string;
  accountId: string;
  locationId: string;
  deviceId: string;
  type: AlertType;
  active: boolean;
  startTime: number;
  detectedTime: number;
  stopTime: number;
  peakValue: number;
  peakStatus: 'too_high' | 'too_low' | null;
  /** For leaks: the flow added to the readings while the alert is active, in gallons per minute. */
  flowGpm: number;
  /** Set when a leak alert is replaced by escalation, so it stays out of `alerts` without an end notification. */
  supersededBy?: string;
  /** Set on a superseded low leak when the high leak ended and the low one resumed as this new alert. */
  continuedBy?: string;
}

export type DeliveryKind = 'confirmation' | 'alert' | 'token' | 'receiver_check';
export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface DeliveryAttempt {
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The first characters of the answer's body. */
  responseExcerpt: string | null;
  /** Warnings about an answer that counted as success, e.g. a 2xx body that is not JSON. */
  warnings: string[];
}

/** The readiness drills that send deliveries of their own (see src/readiness). */
export type DeliveryDrill = 'duplicate-delivery' | 'out-of-order';

export interface DeliveryRecord {
  deliveryId: string;
  accountId: string;
  kind: DeliveryKind;
  subscriptionId: string | null;
  locationId: string | null;
  method: 'POST' | 'GET';
  target: string;
  payload: unknown;
  state: DeliveryState;
  attempts: DeliveryAttempt[];
  createdAt: string;
  /** Virtual time (account clock) at which the next attempt falls due, in ms since epoch (shown as nextAttemptAt). */
  dueAtMs: number | null;
  /** The delivery this one sends again (POST /sandbox/deliveries/{id}/redeliver). */
  redeliveryOf?: string;
  /** A confirmation whose first attempt is followed by a GET check of the endpoint (production requires it to answer GET too). */
  checkReceiverAfter?: boolean;
  /** Why the delivery ended without its attempts deciding it, e.g. its subscription was deleted. */
  note?: string;
  /** The X-Sandbox-Delivery-Id it is sent with when that is not its own: a duplicate sends the id of the delivery it repeats. */
  sentAsId?: string;
  /** The readiness drill that made it. */
  drill?: DeliveryDrill;
  /** When it was made on the process clock (ms): readiness windows count deliveries from it (absent in older records). */
  createdAtMs?: number;
}

/** An account's virtual clock: the process clock plus an offset, or frozen at an instant. */
export interface ClockSetting {
  /** Added to the process clock when not frozen. */
  offsetMs: number;
  /** When set, the account's now is this instant (ms since epoch) until unfrozen. */
  frozenAtMs: number | null;
}

export interface FaultRecord {
  faultId: string;
  accountId: string;
  method: string | null;
  path: string | null;
  /** null: a latency-only fault, the request then proceeds normally. */
  status: number | null;
  body: unknown;
  delayMs: number;
  /** Seconds sent as Retry-After with the answer (absent in older records: none). */
  retryAfter?: number | null;
  remaining: number | null;
  createdAt: string;
}

/** A per-account fixed-window rate limit on /v1, set through /sandbox/faults; windows start at `anchorMs` on the account clock. */
export interface RateLimitSetting {
  requests: number;
  perSeconds: number;
  anchorMs: number;
}

export interface JournalEntry {
  accountId: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  status: number;
  /** When the answer was sent, on the account clock. */
  time: string;
  /** When the request arrived and when the answer was sent, on the process clock (ms). */
  startedAtMs?: number;
  atMs?: number;
  durationMs: number;
  /** How the call identified itself: the account's API key, an access token, or an OAuth client (the token endpoint). */
  auth: 'api_key' | 'access_token' | 'client';
  /** For an answer of status 400 or more: the start of its body (JOURNAL_ERROR_BODY_LIMIT characters), so a partner sees why it failed. */
  errorBody?: string;
  /** Its place in the account's journal, counting up from 1 for the account's whole life; set by the store. */
  seq?: number;
  /** What the route knew about the request and its answer, for the readiness report (src/readiness). */
  facts?: RequestFacts;
}

/** What a route notes about a request for the readiness checks; every field is optional. */
export interface RequestFacts {
  /** The last characters of the access token the request carried, to tell a client's tokens apart without keeping them. */
  token?: string;
  /** Why authentication refused the access token. */
  refusal?: 'token_expired' | 'token_revoked';
  /** The answer's Retry-After, in seconds. */
  retryAfter?: number;
  /** A token request: its grant_type, the last characters of the access token it issued, or the RFC 6749 error it got. */
  grantType?: string;
  issuedToken?: string;
  oauthError?: string;
  /** A readings answer: which location and call, and for water usage its range, grouping and page. */
  readings?: ReadingsFacts;
  /** The subscription the request created or confirmed. */
  subscriptionId?: string;
}

export interface ReadingsFacts {
  locationId: string;
  call: 'usage' | 'summary';
  groupBy?: 'hour' | 'day' | 'month' | 'year';
  /** The range asked for, ms since epoch; without toMs, up to the request's now. */
  fromMs?: number;
  toMs?: number;
  page?: number;
  pageCount?: number;
}

export interface ScenarioRunRecord {
  runId: string;
  accountId: string;
  scenario: string;
  locationId: string;
  startedAtMs: number;
  /** Index of the next step to apply. */
  nextStep: number;
  totalSteps: number;
  /** When the next step falls due on the account clock; null once the run has ended. */
  dueAtMs: number | null;
  state: 'running' | 'completed' | 'failed' | 'cancelled';
  /** When it was cancelled (account clock), for a cancelled run. */
  cancelledAtMs?: number;
  /** Applied steps: `atMs` is the virtual time it ran, `dueAtMs` when it was due; a failed step has `ok: false`. */
  log: { step: number; atMs: number; dueAtMs: number; action: string; ok: boolean; result: string }[];
  /** Alerts started by this run, by the step's `alert` label. */
  alertIds: Record<string, string>;
}

export const ACCOUNT_SCHEMA_VERSION = 2;

/** One account and everything it owns, except its delivery log and request journal. */
export interface AccountDoc {
  schemaVersion: typeof ACCOUNT_SCHEMA_VERSION;
  account: AccountRecord;
  users: UserRecord[];
  apiKeys: ApiKeyRecord[];
  /** OAuth clients registered by this account through POST /sandbox/oauth-clients. */
  oauthClients: OAuthClientRecord[];
  locations: LocationRecord[];
  subscriptions: SubscriptionRecord[];
  confirmationTokens: ConfirmationTokenRecord[];
  authorizationCodes: AuthorizationCodeRecord[];
  accessTokens: AccessTokenRecord[];
  refreshTokens: RefreshTokenRecord[];
  alerts: AlertRecord[];
  clock: ClockSetting;
  faults: FaultRecord[];
  rateLimit: RateLimitSetting | null;
  runs: ScenarioRunRecord[];
  /** The open readiness window and what has been concluded in it (src/readiness); absent: the window opened with the account. */
  readiness?: ReadinessDigest;
  /** The applications of other accounts that its users allowed (absent: none, or older data). */
  connectedApps?: ConnectedAppRecord[];
  /**
   * The consent pages its users answered that could still be answered (auth/consent-token.ts):
   * each page answers once. Bounded by MAX_ANSWERED_CONSENT_PAGES; pages shown until
   * `consentPagesForgottenUntilMs` (process clock) count as answered once forgotten.
   */
  answeredConsentPages?: { page: string; shownAtMs: number }[];
  consentPagesForgottenUntilMs?: number;
}

/**
 * The readiness window of an account: when it opened, how far the request journal has been
 * read into it (`cursor`, a journal seq), and the state the checks have folded from it, so
 * evidence that has left the bounded journal or delivery log still counts.
 */
export interface ReadinessDigest {
  /** When the window opened, on the account clock (ISO) and on the process clock (ms). */
  since: string;
  sinceMs: number;
  /** Journal entries up to this seq have been folded into `state`. */
  cursor: number;
  /** The checks' folded state (src/readiness); opaque to the store. */
  state: unknown;
}

export function emptyAccountDoc(account: AccountRecord): AccountDoc {
  return {
    schemaVersion: ACCOUNT_SCHEMA_VERSION,
    account,
    users: [],
    apiKeys: [],
    oauthClients: [],
    locations: [],
    subscriptions: [],
    confirmationTokens: [],
    authorizationCodes: [],
    accessTokens: [],
    refreshTokens: [],
    alerts: [],
    clock: { offsetMs: 0, frozenAtMs: null },
    faults: [],
    rateLimit: null,
    runs: [],
  };
}

export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;
