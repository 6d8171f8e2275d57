import {
  ACCOUNT_SCHEMA_VERSION,
  type AccessTokenRecord,
  type AccountDoc,
  type AccountRecord,
  type AlertRecord,
  type ApiKeyRecord,
  type AuthorizationCodeRecord,
  type ConfirmationTokenRecord,
  type DeliveryRecord,
  type FaultRecord,
  type JournalEntry,
  type LocationRecord,
  type OAuthClientRecord,
  type RefreshTokenRecord,
  type ScenarioRunRecord,
  type SubscriptionRecord,
  type UserRecord,
} from './data.js';

/**
 * Version 0.1 kept everything in one file (DATA_FILE, schemaVersion 1): one array per kind of
 * record, every record carrying its accountId. This splits it into one bundle per account.
 */
export interface StateV01 {
  schemaVersion: 1;
  accounts: AccountRecord[];
  users: UserRecord[];
  apiKeys: ApiKeyRecord[];
  oauthClients: OAuthClientRecord[];
  locations: LocationRecord[];
  subscriptions: SubscriptionRecord[];
  confirmationTokens: ConfirmationTokenRecord[];
  authorizationCodes: AuthorizationCodeRecord[];
  accessTokens: AccessTokenRecord[];
  refreshTokens: RefreshTokenRecord[];
  sessions: { sid: string; session: Record<string, unknown>; expiresAt: string }[];
  alerts: AlertRecord[];
  /** nextAttemptAt is derived from dueAtMs now (see storedDelivery). */
  deliveries: (DeliveryRecord & { afterDeliveryId?: string; nextAttemptAt?: string | null })[];
  clocks: { accountId: string; offsetMs: number; frozenAtMs: number | null }[];
  faults: FaultRecord[];
  rateLimits: { accountId: string; requests: number; perSeconds: number; windowStartMs: number }[];
  journal: JournalEntry[];
  runs: Omit<ScenarioRunRecord, 'dueAtMs'>[];
  sessionSecret: string | null;
}

/** A 0.1 file as read: it may lack any kind it had no record of; only the version and the accounts are sure. */
export type StoredStateV01 = Pick<StateV01, 'schemaVersion' | 'accounts'> &
  Partial<Omit<StateV01, 'schemaVersion' | 'accounts'>>;

export interface MigratedAccount {
  doc: AccountDoc;
  deliveries: DeliveryRecord[];
  /** Oldest first. */
  journal: JournalEntry[];
}

export interface MigratedState {
  accounts: MigratedAccount[];
  sessions: { sid: string; session: Record<string, unknown>; expiresAtMs: number }[];
  sessionSecret: string | null;
}

export function isStateV01(value: unknown): value is StoredStateV01 {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { schemaVersion?: unknown }).schemaVersion === 1 &&
    Array.isArray((value as { accounts?: unknown }).accounts)
  );
}

/** Nothing is dropped: every record of an account lands in that account's bundle. */
export function migrateV01(state: StoredStateV01): MigratedState {
  const of = <T extends { accountId: string }>(records: readonly T[] | undefined, accountId: string): T[] =>
    (records ?? []).filter((r) => r.accountId === accountId);
  const accounts = state.accounts.map((account): MigratedAccount => {
    const { accountId } = account;
    const clock = state.clocks?.find((c) => c.accountId === accountId);
    const rateLimit = state.rateLimits?.find((r) => r.accountId === accountId);
    const doc: AccountDoc = {
      schemaVersion: ACCOUNT_SCHEMA_VERSION,
      account,
      users: of(state.users, accountId),
      apiKeys: of(state.apiKeys, accountId),
      // Fixture clients had no registration; they come from the fixtures again.
      oauthClients: (state.oauthClients ?? []).filter((c) => c.registration?.accountId === accountId),
      locations: of(state.locations, accountId),
      subscriptions: of(state.subscriptions, accountId),
      confirmationTokens: of(state.confirmationTokens, accountId),
      authorizationCodes: of(state.authorizationCodes, accountId),
      accessTokens: of(state.accessTokens, accountId),
      refreshTokens: of(state.refreshTokens, accountId),
      alerts: of(state.alerts, accountId),
      clock: { offsetMs: clock?.offsetMs ?? 0, frozenAtMs: clock?.frozenAtMs ?? null },
      faults: of(state.faults, accountId),
      rateLimit: rateLimit
        ? { requests: rateLimit.requests, perSeconds: rateLimit.perSeconds, anchorMs: rateLimit.windowStartMs }
        : null,
      // A running run is due at once: the runner then finds its next step's real time from the scenario.
      runs: of(state.runs, accountId).map((run) => ({
        ...run,
        dueAtMs: run.state === 'running' ? run.startedAtMs : null,
      })),
    };
    const deliveries = of(state.deliveries, accountId).map(
      ({ afterDeliveryId: _waitedFor, nextAttemptAt: _derivedNow, ...delivery }) => delivery,
    );
    return { doc, deliveries, journal: of(state.journal, accountId) };
  });
  return {
    accounts,
    sessions: (state.sessions ?? []).map((s) => ({
      sid: s.sid,
      session: s.session,
      expiresAtMs: Date.parse(s.expiresAt),
    })),
    sessionSecret: state.sessionSecret ?? null,
  };
}
