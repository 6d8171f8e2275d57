import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ManualClock } from '../../src/core/clock.js';
import type { AccountDoc } from '../../src/store/data.js';
import type { StateV01 } from '../../src/store/migrate-v01.js';
import { openStore, StoreFileError, type StoreOptions } from '../../src/store/open-store.js';
import type { IndexKind, Store } from '../../src/store/store.js';
import { sessionApi } from './contract/sessions.js';

const FIXTURE = new URL('./fixtures/state-v0.1.json', import.meta.url);
/** After the 0.1 file was written, before its login session ends (2026-11-24T09:46:12Z). */
const MIGRATED_AT = Date.parse('2026-11-23T12:00:00Z');

const DEMO = '4a2f2cc5-2fd9-48f2-99bb-222913290605';
const OTHER = '1f37fa8b-8954-4557-969a-0247ea701d1a';
const GENERATED = '8710299e-4212-4ef7-a4ca-b1617cbd3399';

describe('opening a fresh DATA_DIR with a version 0.1 DATA_FILE', () => {
  let work: string;
  let legacyFile: string;
  let v01: StateV01;
  let clock: ManualClock;
  const opened: Store[] = [];

  const options = (): StoreOptions => ({
    dataDir: join(work, 'data'),
    legacyDataFile: legacyFile,
    redisUrl: null,
    deliveryLogLimit: 1000,
    sessionTtlMs: 86_400_000,
    cacheSize: 2,
  });
  const open = async (overrides: Partial<StoreOptions> = {}): Promise<Awaited<ReturnType<typeof openStore>>> => {
    const result = await openStore({ ...options(), ...overrides }, clock);
    opened.push(result.store);
    return result;
  };
  const docOf = async (store: Store, accountId: string): Promise<AccountDoc> => {
    const doc = await store.accounts.get(accountId);
    if (!doc) throw new Error(`account ${accountId} was not migrated`);
    return doc as AccountDoc;
  };
  const of = <T extends { accountId: string }>(records: T[], accountId: string): T[] =>
    records.filter((r) => r.accountId === accountId);

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'water-migration-'));
    legacyFile = join(work, 'state.json');
    await copyFile(FIXTURE, legacyFile);
    v01 = JSON.parse(await readFile(legacyFile, 'utf8')) as StateV01;
    clock = new ManualClock(MIGRATED_AT);
  });

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await rm(work, { recursive: true, force: true });
  });

  it('the fixture is the 0.1 file the migration is about', () => {
    expect(v01.schemaVersion).toBe(1);
    expect(v01.accounts.map((a) => [a.accountId, a.origin])).toEqual([
      [DEMO, 'fixture'],
      [OTHER, 'fixture'],
      [GENERATED, 'generated'],
    ]);
    expect([v01.subscriptions.length, v01.deliveries.length, v01.journal.length, v01.sessions.length]).toEqual([
      2, 7, 16, 1,
    ]);
  });

  it('reports the migration and stores all three accounts', async () => {
    const { store, origin } = await open();
    expect(origin).toEqual({ migratedFrom: legacyFile, accounts: 3 });
    expect(await store.accounts.count()).toBe(3);
    expect(new Set((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId))).toEqual(
      new Set([DEMO, OTHER, GENERATED]),
    );
    for (const account of v01.accounts) expect((await docOf(store, account.accountId)).account).toEqual(account);
  });

  it('keeps every record of every account, unchanged', async () => {
    const { store } = await open();
    for (const { accountId } of v01.accounts) {
      const doc = await docOf(store, accountId);
      expect(doc.users).toEqual(of(v01.users, accountId));
      expect(doc.apiKeys).toEqual(of(v01.apiKeys, accountId));
      expect(doc.locations).toEqual(of(v01.locations, accountId));
      expect(doc.subscriptions).toEqual(of(v01.subscriptions, accountId));
      expect(doc.confirmationTokens).toEqual(of(v01.confirmationTokens, accountId));
      expect(doc.authorizationCodes).toEqual(of(v01.authorizationCodes, accountId));
      expect(doc.accessTokens).toEqual(of(v01.accessTokens, accountId));
      expect(doc.refreshTokens).toEqual(of(v01.refreshTokens, accountId));
      expect(doc.alerts).toEqual(of(v01.alerts, accountId));
      expect(doc.faults).toEqual(of(v01.faults, accountId));
      expect(doc.runs.map(({ dueAtMs: _due, ...run }) => run)).toEqual(of(v01.runs, accountId));
      expect(doc.rateLimit).toBeNull(); // the 0.1 file has no rate limit
    }
  });

  it('keeps the counts and ids the 0.1 file has', async () => {
    const { store } = await open();
    const demo = await docOf(store, DEMO);
    expect(demo.users.map((u) => u.email)).toEqual(['demo@example.com']);
    expect(demo.locations).toHaveLength(2);
    expect(demo.subscriptions.map((s) => s.status).sort()).toEqual(['confirmed', 'pending']);
    expect(demo.confirmationTokens).toHaveLength(2);
    expect(demo.authorizationCodes).toHaveLength(1);
    expect(demo.accessTokens).toHaveLength(2);
    expect(demo.refreshTokens).toHaveLength(2);
    expect(demo.alerts.map((a) => [a.type, a.active])).toEqual([['lowLeak', false]]);
    expect(demo.faults.map((f) => [f.status, f.path, f.remaining])).toEqual([[503, '/v1/subscriptions', 2]]);
    expect(demo.runs.map((r) => [r.scenario, r.state, r.nextStep])).toEqual([['away-leak', 'running', 1]]);
    expect(demo.clock).toEqual({ offsetMs: 7_200_000, frozenAtMs: null });
    expect((await docOf(store, OTHER)).clock).toEqual({ offsetMs: 0, frozenAtMs: null });
    expect((await docOf(store, GENERATED)).locations).toHaveLength(1);
  });

  it("puts the registered OAuth client in its owner's document, and leaves fixture clients to the fixtures", async () => {
    const { store } = await open();
    const partner = v01.oauthClients.find((c) => c.clientId === 'partner-client')!;
    expect((await docOf(store, DEMO)).oauthClients).toEqual([partner]);
    expect((await docOf(store, OTHER)).oauthClients).toEqual([]);
    expect(await store.accounts.lookup('oauthClient', 'partner-client')).toBe(DEMO);
    expect(await store.accounts.lookup('oauthClient', 'demo-client')).toBeNull();
  });

  it('keeps the deliveries with their states and attempts, newest first', async () => {
    const { store } = await open();
    const { total, items } = await store.deliveries.list(DEMO, { offset: 0, limit: 100 });
    expect(total).toBe(7);
    const expected = of(v01.deliveries, DEMO)
      .map(({ afterDeliveryId: _after, nextAttemptAt: _derivedNow, ...d }) => d)
      .reverse();
    expect(items).toEqual(expected);
    expect(items.every((d) => d.attempts.length === 1)).toBe(true);
    for (const d of expected) expect(await store.deliveries.get(DEMO, d.deliveryId)).toEqual(d);
    expect((await store.deliveries.list(OTHER, { offset: 0, limit: 100 })).total).toBe(0);
  });

  it('keeps the journal, newest first', async () => {
    const { store } = await open();
    // Each entry gets its seq as it is appended, oldest first.
    const withSeqs = (entries: readonly object[]): object[] =>
      entries.map((entry, i) => ({ ...entry, seq: i + 1 })).reverse();
    expect(await store.journal.list(DEMO, 100)).toEqual(withSeqs(of(v01.journal, DEMO)));
    expect(await store.journal.list(GENERATED, 100)).toEqual(withSeqs(of(v01.journal, GENERATED)));
  });

  it('keeps the login session (readable by its sid) and the session secret', async () => {
    const { store } = await open();
    const [session] = v01.sessions;
    expect(await sessionApi(store).get(session!.sid)).toEqual(session!.session);
    expect(await store.settings.get('sessionSecret')).toBe(v01.sessionSecret);
  });

  it('resolves API keys, access and refresh tokens, e-mails, locations, subscriptions and codes to their accounts', async () => {
    const { store } = await open();
    const expectOwner = async (kind: IndexKind, key: string, accountId: string): Promise<void> => {
      expect([kind, key, await store.accounts.lookup(kind, key)]).toEqual([kind, key, accountId]);
    };
    for (const k of v01.apiKeys) await expectOwner('apiKey', k.apiKey, k.accountId);
    for (const t of v01.accessTokens) await expectOwner('accessToken', t.accessToken, t.accountId);
    for (const t of v01.refreshTokens) await expectOwner('refreshToken', t.refreshToken, t.accountId);
    for (const u of v01.users) await expectOwner('email', u.email, u.accountId);
    for (const l of v01.locations) await expectOwner('location', l.locationId, l.accountId);
    for (const s of v01.subscriptions) await expectOwner('subscription', s.subscriptionId, s.accountId);
    for (const c of v01.authorizationCodes) await expectOwner('authorizationCode', c.code, c.accountId);
  });

  it('makes the running scenario run due, through the moved account clock, and the generated account subject to idle expiry', async () => {
    const { store } = await open();
    const run = v01.runs[0]!;
    expect(await store.accounts.due(run.startedAtMs - 7_200_000 - 1, 10)).toEqual([]);
    expect(await store.accounts.due(run.startedAtMs - 7_200_000, 10)).toEqual([DEMO]);
    expect(await store.accounts.idleSince(MIGRATED_AT, 10)).toEqual([GENERATED]);
  });

  it('leaves the 0.1 file as it was', async () => {
    const before = await readFile(legacyFile);
    await open();
    expect((await readFile(legacyFile)).equals(before)).toBe(true);
  });

  it('does not migrate again on the next open of the same DATA_DIR', async () => {
    const first = await open();
    await first.store.accounts.update(GENERATED, (doc) => void (doc.account.name = 'changed after the migration'));
    await first.store.close();

    const second = await open();
    expect(second.origin).toBe('existing');
    expect(await second.store.accounts.count()).toBe(3);
    expect((await docOf(second.store, GENERATED)).account.name).toBe('changed after the migration');
    expect(await second.store.journal.list(DEMO, 100)).toHaveLength(16);
    expect((await second.store.deliveries.list(DEMO, { offset: 0, limit: 100 })).total).toBe(7);
    expect(await second.store.accounts.lookup('apiKey', 'demo_api_key_for_the_water_monitoring_sandbox')).toBe(DEMO);
  });

  it('without a DATA_FILE, a fresh DATA_DIR opens fresh and empty', async () => {
    const { store, origin } = await open({ legacyDataFile: null });
    expect(origin).toBe('fresh');
    expect(await store.accounts.count()).toBe(0);
  });

  it('a DATA_FILE that does not exist leaves the store fresh', async () => {
    const { store, origin } = await open({ legacyDataFile: join(work, 'missing.json') });
    expect(origin).toBe('fresh');
    expect(await store.accounts.count()).toBe(0);
  });

  it('a migration that failed is made again on the next open, not taken for existing state', async () => {
    const text = await readFile(legacyFile, 'utf8');
    await writeFile(legacyFile, text.slice(0, text.length / 2));
    await expect(open()).rejects.toBeInstanceOf(StoreFileError);

    await writeFile(legacyFile, text);
    const { store, origin } = await open();
    expect(origin).toEqual({ migratedFrom: legacyFile, accounts: 3 });
    expect(await store.accounts.count()).toBe(3);
    expect(await store.journal.list(DEMO, 100)).toHaveLength(16);
  });

  it('a migration that stopped half-way is made again from the start, with no duplicate', async () => {
    // The second account claims the first one's API key: the migration stores the first account, then fails.
    const clashing = structuredClone(v01);
    clashing.apiKeys.find((k) => k.accountId === OTHER)!.apiKey = 'demo_api_key_for_the_water_monitoring_sandbox';
    await writeFile(legacyFile, JSON.stringify(clashing));
    await expect(open()).rejects.toMatchObject({ name: 'IndexConflictError' });

    await writeFile(legacyFile, JSON.stringify(v01));
    const again = await open();
    expect(again.origin).toEqual({ migratedFrom: legacyFile, accounts: 3 });
    expect(await again.store.accounts.count()).toBe(3);
    expect(await again.store.journal.list(DEMO, 100)).toHaveLength(16);
    expect((await again.store.deliveries.list(DEMO, { offset: 0, limit: 100 })).total).toBe(7);
    expect(await again.store.accounts.lookup('apiKey', 'other_api_key_for_the_water_monitoring_sandbox')).toBe(OTHER);
  });

  it('after a failed migration, an open without DATA_FILE starts fresh instead of keeping half a migration', async () => {
    const clashing = structuredClone(v01);
    clashing.apiKeys.find((k) => k.accountId === OTHER)!.apiKey = 'demo_api_key_for_the_water_monitoring_sandbox';
    await writeFile(legacyFile, JSON.stringify(clashing));
    await expect(open()).rejects.toMatchObject({ name: 'IndexConflictError' });

    const { store, origin } = await open({ legacyDataFile: null });
    expect(origin).toBe('fresh');
    expect(await store.accounts.count()).toBe(0);
  });
});
