import type { SessionData } from 'express-session';

import { ManualClock } from '../../src/core/clock.js';
import type { AccountDoc, DeliveryRecord } from '../../src/store/data.js';
import { lifetimeCutoffMs } from '../../src/store/derived.js';
import { AccountStorageError, NO_ACCOUNT_LIMITS, PendingDeliveriesError, type AccountLimits } from '../../src/store/limits.js';
import { AccountMissingError, IndexConflictError, JOURNAL_LIMIT, LAST_REQUEST_RESOLUTION_MS, type IndexKind, type Store } from '../../src/store/store.js';
import { givenAccount, givenDelivery, givenFault, givenJournalEntry, INDEX_KINDS, indexedKeys, iso, keyOf, T0 } from './builders.js';

/** Claims what `due` offers, one delivery at a time, as the dispatcher does; returns what `owner` got. */
async function claimDue(store: Store, accountId: string, nowMs: number, owner: string, leaseMs: number, limit: number): Promise<DeliveryRecord[]> {
  const claimed: DeliveryRecord[] = [];
  for (const candidate of await store.deliveries.due(accountId, nowMs, limit)) {
    if (await store.deliveries.claim(accountId, candidate.deliveryId, owner, leaseMs)) claimed.push(candidate);
  }
  return claimed;
}

/**
 * The behaviour every Store backend must have, as one suite. A backend plugs in with
 *
 *   describeStoreContract('the redis store', (clock, options) => openRedisForTest(clock, options), { expiresOn: 'realTime', persistent: true });
 *
 * `open` is called for each test with a fresh ManualClock (at T0) and must return an empty
 * store (a fresh folder, a fresh key prefix…); a few tests open a second one with other options
 * (deliveryLogLimit, sessionTtlMs) next to the first. `reopen`, for persistent backends, closes
 * the store and opens the same state again; `close` releases whatever store is current.
 *
 * Time: the store is given the clock as its process clock. Counters and sessions of the
 * embedded store expire on that clock; a networked store may expire them in real time (Redis
 * PX/EX), so those tests either advance the clock or wait (polling, with a deadline) for a short
 * real TTL, as `expiresOn` says. Delivery claims (`leaseMs`) and lock lifetimes are real time in
 * every backend.
 *
 * Replicas: `peer`, for a backend that several replicas share, opens another store on the same
 * state, as a second replica would; the lock tests play one holder on each. A backend without
 * replicas has no peer, and its one store plays both.
 */

export interface StoreContractOptions {
  deliveryLogLimit: number;
  sessionTtlMs: number;
  /** ACCOUNT_TTL in ms; 0 (the default): generated accounts live for ever. */
  accountLifetimeMs: number;
  /** How long a withLock lock lives without renewal, where a backend's holders can die apart from it (Redis). */
  lockTtlMs: number;
  /** ACCOUNT_STORAGE_LIMIT and MAX_PENDING_DELIVERIES (0: none). */
  limits: AccountLimits;
}

export interface StoreUnderTest {
  store: Store;
  /** Persistent backends: closes the store and opens the same state again. */
  reopen?: () => Promise<Store>;
  /** Backends with replicas: another store on the same state (closed with this one). */
  peer?: () => Promise<Store>;
  /** Closes the current store (and removes what the test made, e.g. a temp folder). */
  close(): Promise<void>;
}

export type OpenStoreForContract = (clock: ManualClock, options: StoreContractOptions) => Promise<StoreUnderTest>;

export interface StoreContractCapabilities {
  /** What counters and sessions expire on: the injected clock, or real time. */
  expiresOn: 'clock' | 'realTime';
  /** Whether the backend keeps state across `reopen` (the restart tests run only then). */
  persistent: boolean;
}

export const DEFAULT_CONTRACT_OPTIONS: StoreContractOptions = { deliveryLogLimit: 1000, sessionTtlMs: 3_600_000, accountLifetimeMs: 0, lockTtlMs: 30_000, limits: NO_ACCOUNT_LIMITS };

/** Finished deliveries a backend may keep beyond `deliveryLogLimit` before it trims (see DeliveryStore.update). */
export const logSlack = (limit: number): number => Math.max(1, Math.ceil(limit * 0.1));

const FAR = Number.MAX_SAFE_INTEGER;

/** What assigning to, or adding to, a frozen object throws. */
const FROZEN = /read[ -]only|not extensible/;

export function describeStoreContract(name: string, open: OpenStoreForContract, capabilities: StoreContractCapabilities): void {
  const onClockIt = capabilities.expiresOn === 'clock' ? it : it.skip;
  /** A TTL that expires quickly in the backend's time: advanced on the clock, or waited for. */
  const shortTtlMs = capabilities.expiresOn === 'clock' ? 60_000 : 300;

  describe(`${name}: the Store contract`, () => {
    let clock: ManualClock;
    let current: StoreUnderTest[] = [];
    let store: Store;

    const openStore = async (options: Partial<StoreContractOptions> = {}): Promise<StoreUnderTest> => {
      const opened = await open(clock, { ...DEFAULT_CONTRACT_OPTIONS, ...options });
      current.push(opened);
      return opened;
    };

    beforeEach(async () => {
      clock = new ManualClock(T0);
      store = (await openStore()).store;
    });

    afterEach(async () => {
      const closing = current;
      current = [];
      for (const opened of closing) await opened.close();
    });

    const create = async (s: Store, doc: AccountDoc, deliveries?: DeliveryRecord[]): Promise<AccountDoc> => {
      expect(await s.accounts.create(doc, deliveries)).toBe(true);
      return doc;
    };
    const docOf = async (s: Store, accountId: string): Promise<AccountDoc> => {
      const doc = await s.accounts.get(accountId);
      if (doc === null) throw new Error(`account ${accountId} is missing`);
      return structuredClone(doc) as AccountDoc;
    };

    // ---- per-account isolation -----------------------------------------------------------

    describe('per-account isolation', () => {
      it("when two accounts are changed, each document holds only its own changes", async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        await store.accounts.update('a', (doc) => void doc.faults.push(givenFault('a', 'fault-a')));
        await store.accounts.update('b', (doc) => void (doc.account.name = 'Bee'));

        const a = await docOf(store, 'a');
        const b = await docOf(store, 'b');
        expect(a.account).toMatchObject({ accountId: 'a', name: 'Account a' });
        expect(a.faults.map((f) => f.faultId)).toEqual(['fault-a']);
        expect(b.account).toMatchObject({ accountId: 'b', name: 'Bee' });
        expect(b.faults).toEqual([]);
      });

      it('every key resolves to the account owning it, never to another one', async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        for (const kind of INDEX_KINDS) {
          expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
          expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
        }
      });

      it("a key of one kind does not resolve under another kind", async () => {
        const doc = givenAccount('a', { withKeys: false });
        indexedKeys.apiKey.add(doc, 'shared-text');
        await create(store, doc);
        expect(await store.accounts.lookup('apiKey', 'shared-text')).toBe('a');
        for (const kind of INDEX_KINDS.filter((k) => k !== 'apiKey')) expect(await store.accounts.lookup(kind, 'shared-text')).toBeNull();
      });

      it("deliveries and journals of two accounts never mix", async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        await store.deliveries.add('a', [givenDelivery('a', 'd-a')]);
        await store.deliveries.add('b', [givenDelivery('b', 'd-b')]);
        await store.journal.append('a', givenJournalEntry('a', 1));
        await store.journal.append('b', givenJournalEntry('b', 2));

        expect((await store.deliveries.list('a', { offset: 0, limit: 10 })).items.map((d) => d.deliveryId)).toEqual(['d-a']);
        expect((await store.deliveries.list('b', { offset: 0, limit: 10 })).items.map((d) => d.deliveryId)).toEqual(['d-b']);
        expect(await store.deliveries.get('b', 'd-a')).toBeNull();
        expect(await store.deliveries.get('a', 'd-b')).toBeNull();
        expect(await store.deliveries.update('b', 'd-a', (d) => (d.state = 'failed'))).toBeNull();
        expect((await store.deliveries.get('a', 'd-a'))?.state).toBe('pending');
        expect((await store.journal.list('a', 10)).map((e) => e.accountId)).toEqual(['a']);
        expect((await store.journal.list('b', 10)).map((e) => e.accountId)).toEqual(['b']);
      });
    });

    // ---- indexes ---------------------------------------------------------------------------

    describe.each(INDEX_KINDS)('the %s index', (kind: IndexKind) => {
      it('resolves a key of a created account', async () => {
        await create(store, givenAccount('a'));
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
        expect(await store.accounts.lookup(kind, 'no-such-key')).toBeNull();
      });

      it('findByKey answers the owner with its document as it is now, and null once the key is gone', async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        expect(await store.accounts.findByKey(kind, keyOf(kind, 'a'))).toEqual({ accountId: 'a', doc: await docOf(store, 'a') });
        expect(await store.accounts.findByKey(kind, 'no-such-key')).toBeNull();

        await store.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
        expect((await store.accounts.findByKey(kind, keyOf(kind, 'a')))?.doc.account.name).toBe('renamed');
        await store.accounts.update('a', (doc) => indexedKeys[kind].remove(doc, keyOf(kind, 'a')));
        expect(await store.accounts.findByKey(kind, keyOf(kind, 'a'))).toBeNull();
        await store.accounts.delete('b');
        expect(await store.accounts.findByKey(kind, keyOf(kind, 'b'))).toBeNull();
      });

      it('resolves a key added by an update, and the keys from before still resolve', async () => {
        await create(store, givenAccount('a'));
        await store.accounts.update('a', (doc) => indexedKeys[kind].add(doc, 'added-later'));
        expect(await store.accounts.lookup(kind, 'added-later')).toBe('a');
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
      });

      it('stops resolving a key once an update removes it from the document', async () => {
        await create(store, givenAccount('a'));
        await store.accounts.update('a', (doc) => indexedKeys[kind].remove(doc, keyOf(kind, 'a')));
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();
      });

      it('stops resolving the keys of a deleted account, and they can be used again', async () => {
        await create(store, givenAccount('a'));
        expect(await store.accounts.delete('a')).toBe(true);
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();

        const reuse = givenAccount('c', { withKeys: false });
        indexedKeys[kind].add(reuse, keyOf(kind, 'a'));
        await create(store, reuse);
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('c');
      });

      it("an update taking another account's key throws IndexConflictError and stores nothing", async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        const before = await docOf(store, 'b');

        const taking = store.accounts.update('b', (doc, tx) => {
          indexedKeys[kind].add(doc, 'fresh-key');
          indexedKeys[kind].add(doc, keyOf(kind, 'a'));
          doc.account.name = 'should not be stored';
          tx.addDeliveries([givenDelivery('b', 'not-stored')]);
        });
        await expect(taking).rejects.toBeInstanceOf(IndexConflictError);
        await expect(taking).rejects.toMatchObject({ kind, key: keyOf(kind, 'a') });

        expect(await docOf(store, 'b')).toEqual(before);
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
        expect(await store.accounts.lookup(kind, 'fresh-key')).toBeNull();
        expect(await store.deliveries.get('b', 'not-stored')).toBeNull();
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
      });

      it("a create taking another account's key throws IndexConflictError and stores nothing", async () => {
        await create(store, givenAccount('a'));
        const clashing = givenAccount('b');
        indexedKeys[kind].add(clashing, keyOf(kind, 'a'));

        await expect(store.accounts.create(clashing, [givenDelivery('b', 'not-stored')])).rejects.toMatchObject({ name: 'IndexConflictError', kind, key: keyOf(kind, 'a') });

        expect(await store.accounts.get('b')).toBeNull();
        expect(await store.accounts.count()).toBe(1);
        expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['a']);
        expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
        for (const k of INDEX_KINDS) expect(await store.accounts.lookup(k, keyOf(k, 'b'))).toBeNull();
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
        // Nothing was left behind: the same account without the clash can be created.
        await create(store, givenAccount('b'));
        expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
      });
    });

    // ---- update semantics ------------------------------------------------------------------

    describe('accounts.update', () => {
      it("returns the change's result and stores what it did", async () => {
        await create(store, givenAccount('a'));
        const result = await store.accounts.update('a', (doc) => {
          doc.clock.offsetMs = 5000;
          return { faults: doc.faults.length };
        });
        expect(result).toEqual({ faults: 0 });
        expect((await docOf(store, 'a')).clock.offsetMs).toBe(5000);
      });

      it('gives the change a copy: changing it after the update resolved throws and stores nothing (the stored document is frozen, not copied again)', async () => {
        await create(store, givenAccount('a'));
        let seen: AccountDoc | undefined;
        await store.accounts.update('a', (doc) => {
          doc.account.name = 'changed';
          seen = doc;
        });
        // (TypeErrors, of the realm the document was copied in: matched by their message.)
        expect(() => (seen!.account.name = 'changed afterwards')).toThrow(FROZEN);
        expect(() => seen!.faults.push(givenFault('a', 'late'))).toThrow(FROZEN);
        expect(() => indexedKeys.apiKey.add(seen!, 'late-key')).toThrow(FROZEN);

        const stored = await docOf(store, 'a');
        expect(stored.account.name).toBe('changed');
        expect(stored.faults).toEqual([]);
        expect(await store.accounts.lookup('apiKey', 'late-key')).toBeNull();
      });

      it('when the change throws, rejects with its error and stores nothing, not even its deliveries or keys', async () => {
        await create(store, givenAccount('a'));
        const before = await docOf(store, 'a');
        const failure = new Error('the change failed');

        await expect(
          store.accounts.update('a', (doc, tx) => {
            doc.account.name = 'half-done';
            indexedKeys.accessToken.add(doc, 'half-done-token');
            tx.addDeliveries([givenDelivery('a', 'half-done-delivery')]);
            throw failure;
          }),
        ).rejects.toBe(failure);

        expect(await docOf(store, 'a')).toEqual(before);
        expect(await store.accounts.lookup('accessToken', 'half-done-token')).toBeNull();
        expect(await store.deliveries.get('a', 'half-done-delivery')).toBeNull();
        expect((await store.deliveries.list('a', { offset: 0, limit: 10 })).total).toBe(0);
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
      });

      it('hands out frozen documents: a reader cannot change what is stored', async () => {
        await create(store, givenAccount('a'));
        await store.accounts.update('a', (doc) => void doc.faults.push(givenFault('a', 'f1')));
        const read = (await store.accounts.get('a'))!;
        expect(Object.isFrozen(read)).toBe(true);
        expect(Object.isFrozen(read.faults[0])).toBe(true);
        expect(() => ((read.account as { name: string }).name = 'x')).toThrow(FROZEN);
        expect((await docOf(store, 'a')).account.name).toBe('Account a');
      });

      it('throws AccountMissingError for an account that never existed or was deleted', async () => {
        await expect(store.accounts.update('nobody', () => 1)).rejects.toBeInstanceOf(AccountMissingError);
        await create(store, givenAccount('a'));
        await store.accounts.delete('a');
        await expect(store.accounts.update('a', () => 1)).rejects.toMatchObject({ name: 'AccountMissingError', accountId: 'a' });
      });

      it('stores deliveries added through tx.addDeliveries together with the change, as copies', async () => {
        await create(store, givenAccount('a'));
        const d1 = givenDelivery('a', 'd1', { subscriptionId: 'sub-new' });
        await store.accounts.update('a', (doc, tx) => {
          indexedKeys.subscription.add(doc, 'sub-new');
          tx.addDeliveries([d1, givenDelivery('a', 'd2', { subscriptionId: 'sub-new', kind: 'confirmation' })]);
        });
        d1.state = 'failed'; // the caller's record is its own
        expect(await store.accounts.lookup('subscription', 'sub-new')).toBe('a');
        expect(await store.deliveries.get('a', 'd1')).toEqual(givenDelivery('a', 'd1', { subscriptionId: 'sub-new' }));
        const listed = await store.deliveries.list('a', { subscriptionId: 'sub-new', offset: 0, limit: 10 });
        expect(listed.total).toBe(2);
        expect(listed.items.map((d) => d.deliveryId)).toEqual(['d2', 'd1']);
        expect(await store.accounts.due(T0, 10)).toEqual(['a']);
      });

      it('create stores the deliveries given with the account', async () => {
        await create(store, givenAccount('a'), [givenDelivery('a', 'd1', { state: 'delivered' }), givenDelivery('a', 'd2')]);
        expect((await store.deliveries.list('a', { offset: 0, limit: 10 })).items.map((d) => [d.deliveryId, d.state])).toEqual([
          ['d2', 'pending'],
          ['d1', 'delivered'],
        ]);
        expect(await store.deliveries.nextDueMs('a')).toBe(T0);
      });

      it('create returns false for an existing account id and leaves that account as it was', async () => {
        await create(store, givenAccount('a', { name: 'first' }));
        expect(await store.accounts.create(givenAccount('a', { name: 'second' }))).toBe(false);
        expect((await docOf(store, 'a')).account.name).toBe('first');
        expect(await store.accounts.count()).toBe(1);
      });
    });

    // ---- bounds of an account ------------------------------------------------------------

    describe('limits.accountBytes (ACCOUNT_STORAGE_LIMIT)', () => {
      /** A fault whose body takes about `bytes` bytes. */
      const bulkyFault = (faultId: string, bytes: number) => ({ ...givenFault('a', faultId), body: { text: 'x'.repeat(bytes) } });
      const storedSize = async (s: Store, accountId: string): Promise<number> => Buffer.byteLength(JSON.stringify(await s.accounts.get(accountId)));

      it('refuses a change that would make the document larger than the limit: 409 limit_reached naming the setting and the largest part, nothing stored', async () => {
        const s = (await openStore({ limits: { accountBytes: 20_000, pendingDeliveries: 0 } })).store;
        await create(s, givenAccount('a'));
        for (let i = 0; i < 3; i++) await s.accounts.update('a', (doc) => void doc.faults.push(bulkyFault(`f${i}`, 5000)));
        const before = await docOf(s, 'a');
        const refused = s.accounts.update('a', (doc, tx) => {
          doc.faults.push(bulkyFault('f3', 5000));
          indexedKeys.accessToken.add(doc, 'over-token');
          tx.addDeliveries([givenDelivery('a', 'over-delivery')]);
          return 'changed';
        });
        await expect(refused).rejects.toBeInstanceOf(AccountStorageError);
        await expect(refused).rejects.toMatchObject({
          status: 409,
          code: 'limit_reached',
          limit: 'ACCOUNT_STORAGE_LIMIT',
          message: expect.stringMatching(/^This change would make the account's stored data [\d,]+ bytes, more than the 20,000 this sandbox keeps per account \(ACCOUNT_STORAGE_LIMIT=20000\); nothing was changed\. Its largest parts: faults [\d,]+ bytes \(DELETE \/sandbox\/faults\)/),
        });
        expect(await docOf(s, 'a')).toEqual(before);
        expect(await s.accounts.lookup('accessToken', 'over-token')).toBeNull();
        expect(await s.deliveries.get('a', 'over-delivery')).toBeNull();
        expect(await storedSize(s, 'a')).toBeLessThanOrEqual(20_000);
      });

      it('counts the stored bytes of the JSON (UTF-8): a change under the limit passes, one byte more does not', async () => {
        const s = (await openStore({ limits: { accountBytes: 10_000, pendingDeliveries: 0 } })).store;
        await create(s, givenAccount('a'));
        const room = 10_000 - (await storedSize(s, 'a'));
        // The name grows the document by its own length; "é" takes two bytes.
        await s.accounts.update('a', (doc) => void (doc.account.name += 'é'.repeat(Math.floor(room / 2))));
        expect(await storedSize(s, 'a')).toBeLessThanOrEqual(10_000);
        expect(10_000 - (await storedSize(s, 'a'))).toBeLessThan(2);
        await expect(s.accounts.update('a', (doc) => void (doc.account.name += 'éé'))).rejects.toBeInstanceOf(AccountStorageError);
      });

      it('a document already over the limit (a lower limit after a restart, fixtures) takes every change that does not grow it', async () => {
        const s = (await openStore({ limits: { accountBytes: 5000, pendingDeliveries: 0 } })).store;
        const doc = givenAccount('a');
        for (let i = 0; i < 3; i++) doc.faults.push(bulkyFault(`f${i}`, 3000));
        await create(s, doc);
        await s.accounts.update('a', (d) => void d.faults.pop());
        await s.accounts.update('a', (d) => void (d.clock.offsetMs = 5));
        await expect(s.accounts.update('a', (d) => void d.faults.push(bulkyFault('f9', 10)))).rejects.toBeInstanceOf(AccountStorageError);
        await s.accounts.update('a', (d) => void (d.faults = []));
        await s.accounts.update('a', (d) => void d.faults.push(bulkyFault('f9', 10)));
        expect((await docOf(s, 'a')).faults.map((f) => f.faultId)).toEqual(['f9']);
      });

      it('without a limit (0) any size is stored', async () => {
        await create(store, givenAccount('a'));
        await store.accounts.update('a', (doc) => void doc.faults.push(bulkyFault('f0', 200_000)));
        expect(await storedSize(store, 'a')).toBeGreaterThan(200_000);
      });
    });

    describe('limits.pendingDeliveries (MAX_PENDING_DELIVERIES)', () => {
      it('refuses deliveries beyond the limit, through a change or add: 409 limit_reached, nothing stored; a delivery that finishes makes room', async () => {
        const s = (await openStore({ limits: { accountBytes: 0, pendingDeliveries: 3 } })).store;
        await create(s, givenAccount('a'), [givenDelivery('a', 'd0'), givenDelivery('a', 'done', { state: 'delivered' })]);
        await s.deliveries.add('a', [givenDelivery('a', 'd1')]);
        await s.accounts.update('a', (_doc, tx) => tx.addDeliveries([givenDelivery('a', 'd2')]));
        const refused = s.accounts.update('a', (doc, tx) => {
          doc.account.name = 'with a delivery too many';
          tx.addDeliveries([givenDelivery('a', 'd3')]);
        });
        await expect(refused).rejects.toBeInstanceOf(PendingDeliveriesError);
        await expect(refused).rejects.toMatchObject({ status: 409, code: 'limit_reached', limit: 'MAX_PENDING_DELIVERIES', message: expect.stringContaining('This account has 3 webhook deliveries waiting to be sent, and this sandbox keeps at most 3 (MAX_PENDING_DELIVERIES=3); nothing was changed') });
        await expect(s.deliveries.add('a', [givenDelivery('a', 'd3')])).rejects.toBeInstanceOf(PendingDeliveriesError);
        expect((await docOf(s, 'a')).account.name).toBe('Account a');
        expect(await s.deliveries.get('a', 'd3')).toBeNull();
        // A change that adds no delivery is not held up by them.
        await s.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
        await s.deliveries.update('a', 'd0', (record) => void Object.assign(record, { state: 'delivered', dueAtMs: null, nextAttemptAt: null }));
        await s.deliveries.add('a', [givenDelivery('a', 'd3')]);
        expect((await s.deliveries.list('a', { state: 'pending', offset: 0, limit: 10 })).total).toBe(3);
      });
    });

    // ---- concurrency -----------------------------------------------------------------------

    describe('concurrent read-modify-writes', () => {
      it('200 concurrent updates of one account each land, applied one at a time', async () => {
        await create(store, givenAccount('a'));
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            store.accounts.update('a', (doc) => {
              doc.faults.push(givenFault('a', `f${i}`));
              doc.rateLimit = { requests: (doc.rateLimit?.requests ?? 0) + 1, perSeconds: 60, anchorMs: T0 };
              return doc.faults.length;
            }),
          ),
        );
        const doc = await docOf(store, 'a');
        expect(doc.rateLimit?.requests).toBe(200);
        expect(new Set(doc.faults.map((f) => f.faultId))).toEqual(new Set(Array.from({ length: 200 }, (_, i) => `f${i}`)));
        // Each change saw every change before it: the results are 1..200, each once.
        expect([...results].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      });

      it('concurrent updates of two accounts both land', async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        await Promise.all(
          Array.from({ length: 200 }, (_, i) => {
            const id = i % 2 === 0 ? 'a' : 'b';
            return store.accounts.update(id, (doc) => void doc.faults.push(givenFault(id, `f${i}`)));
          }),
        );
        expect((await docOf(store, 'a')).faults).toHaveLength(100);
        expect((await docOf(store, 'b')).faults).toHaveLength(100);
      });

      it('concurrent updates adding deliveries and keys all land', async () => {
        await create(store, givenAccount('a'));
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.accounts.update('a', (doc, tx) => {
              indexedKeys.accessToken.add(doc, `token-${i}`);
              tx.addDeliveries([givenDelivery('a', `d${i}`)]);
            }),
          ),
        );
        expect((await store.deliveries.list('a', { offset: 0, limit: 100 })).total).toBe(50);
        for (let i = 0; i < 50; i++) expect(await store.accounts.lookup('accessToken', `token-${i}`)).toBe('a');
      });

      it('concurrent updates of one delivery each land', async () => {
        await create(store, givenAccount('a'), [givenDelivery('a', 'd')]);
        await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            store.deliveries.update('a', 'd', (d) => void d.attempts.push({ at: iso(T0 + i), statusCode: 500, latencyMs: i, error: null, responseExcerpt: null, warnings: [] })),
          ),
        );
        expect((await store.deliveries.get('a', 'd'))?.attempts.map((x) => x.latencyMs).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
      });
    });

    // ---- deliveries ------------------------------------------------------------------------

    describe('deliveries', () => {
      beforeEach(async () => {
        await create(store, givenAccount('a'));
      });

      it('get returns an added delivery as it was added, and null for an unknown id or account', async () => {
        const record = givenDelivery('a', 'd1', { kind: 'confirmation', subscriptionId: 's9', locationId: 'l9' });
        await store.deliveries.add('a', [record]);
        expect(await store.deliveries.get('a', 'd1')).toEqual(record);
        expect(await store.deliveries.get('a', 'nope')).toBeNull();
        expect(await store.deliveries.get('nobody', 'd1')).toBeNull();
      });

      it('list is newest first, filters by subscription, location, state and kind, pages by offset and limit, and counts every match', async () => {
        await store.deliveries.add('a', [
          givenDelivery('a', 'd1', { subscriptionId: 's1', locationId: 'l1', state: 'delivered', kind: 'confirmation' }),
          givenDelivery('a', 'd2', { subscriptionId: 's1', locationId: 'l1', state: 'failed', kind: 'alert' }),
          givenDelivery('a', 'd3', { subscriptionId: 's2', locationId: 'l2', state: 'pending', kind: 'alert' }),
        ]);
        await store.deliveries.add('a', [
          givenDelivery('a', 'd4', { subscriptionId: 's1', locationId: 'l2', state: 'delivered', kind: 'alert' }),
          givenDelivery('a', 'd5', { subscriptionId: null, locationId: null, state: 'delivered', kind: 'token' }),
        ]);
        const ids = async (query: Partial<Parameters<Store['deliveries']['list']>[1]>): Promise<[number, string[]]> => {
          const { total, items } = await store.deliveries.list('a', { offset: 0, limit: 100, ...query });
          return [total, items.map((d) => d.deliveryId)];
        };
        expect(await ids({})).toEqual([5, ['d5', 'd4', 'd3', 'd2', 'd1']]);
        expect(await ids({ subscriptionId: 's1' })).toEqual([3, ['d4', 'd2', 'd1']]);
        expect(await ids({ locationId: 'l2' })).toEqual([2, ['d4', 'd3']]);
        expect(await ids({ state: 'delivered' })).toEqual([3, ['d5', 'd4', 'd1']]);
        expect(await ids({ kind: 'alert' })).toEqual([3, ['d4', 'd3', 'd2']]);
        expect(await ids({ subscriptionId: 's1', kind: 'alert', state: 'delivered' })).toEqual([1, ['d4']]);
        expect(await ids({ offset: 1, limit: 2 })).toEqual([5, ['d4', 'd3']]);
        expect(await ids({ kind: 'alert', offset: 2, limit: 5 })).toEqual([3, ['d2']]);
        expect(await ids({ offset: 10, limit: 5 })).toEqual([5, []]);
        expect(await ids({ subscriptionId: 'none' })).toEqual([0, []]);
      });

      it('list of an account without deliveries, or of no account, is empty', async () => {
        expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
        expect(await store.deliveries.list('nobody', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
      });

      it("update gives the change a copy, stores what it did and returns its result; null when the delivery is unknown", async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1')]);
        let seen: DeliveryRecord | undefined;
        const result = await store.deliveries.update('a', 'd1', (d) => {
          d.state = 'delivered';
          d.dueAtMs = null;
          seen = d;
          return 'done';
        });
        expect(result).toBe('done');
        seen!.state = 'failed';
        expect((await store.deliveries.get('a', 'd1'))?.state).toBe('delivered');
        expect(await store.deliveries.update('a', 'nope', () => 'x')).toBeNull();
        expect(await store.deliveries.update('nobody', 'd1', () => 'x')).toBeNull();
      });

      it('update whose change throws rejects and stores nothing', async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1')]);
        await expect(
          store.deliveries.update('a', 'd1', (d) => {
            d.state = 'failed';
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        expect(await store.deliveries.get('a', 'd1')).toEqual(givenDelivery('a', 'd1'));
      });

      it('claimDue takes only pending deliveries due at the given virtual now, oldest due first, up to the limit', async () => {
        await store.deliveries.add('a', [
          givenDelivery('a', 'late', { dueAtMs: T0 + 3000 }),
          givenDelivery('a', 'second', { dueAtMs: T0 + 1000 }),
          givenDelivery('a', 'first', { dueAtMs: T0 + 500 }),
          givenDelivery('a', 'exactly-now', { dueAtMs: T0 + 2000 }),
          { ...givenDelivery('a', 'finished', { state: 'failed' }), dueAtMs: T0 },
          givenDelivery('a', 'unscheduled', { dueAtMs: null }),
        ]);
        expect((await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 2)).map((d) => d.deliveryId)).toEqual(['first', 'second']);
        expect((await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 10)).map((d) => d.deliveryId)).toEqual(['exactly-now']);
        expect(await claimDue(store, 'a', T0 + 2000, 'one', 60_000, 10)).toEqual([]);
        expect(await claimDue(store, 'nobody', T0 + 2000, 'one', 60_000, 10)).toEqual([]);
      });

      it('a claimed delivery is not claimed by another owner until it is updated', async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
        const claimed = await claimDue(store, 'a', T0, 'replica-1', 60_000, 10);
        expect(claimed).toEqual([givenDelivery('a', 'd1', { dueAtMs: T0 })]);
        expect(await claimDue(store, 'a', T0 + 10_000, 'replica-2', 60_000, 10)).toEqual([]);

        // The attempt failed and is retried later: the update ends the claim.
        await store.deliveries.update('a', 'd1', (d) => {
          d.attempts.push({ at: iso(T0), statusCode: 503, latencyMs: 3, error: null, responseExcerpt: null, warnings: [] });
          d.dueAtMs = T0 + 5000;
        });
        expect(await claimDue(store, 'a', T0 + 4999, 'replica-2', 60_000, 10)).toEqual([]);
        expect((await claimDue(store, 'a', T0 + 5000, 'replica-2', 60_000, 10)).map((d) => [d.deliveryId, d.attempts.length])).toEqual([['d1', 1]]);
      });

      it("due leaves out the deliveries to the origins it is told to skip, so a full origin's backlog never hides another's", async () => {
        const to = (target: string, id: string, dueAtMs: number): DeliveryRecord => ({ ...givenDelivery('a', id, { dueAtMs }), target });
        await store.deliveries.add('a', [
          to('https://slow.example/hooks/1', 'slow-1', T0),
          to('https://slow.example:443/hooks/2', 'slow-2', T0 + 1),
          to('http://slow.example/hooks/3', 'other-scheme', T0 + 2),
          to('https://healthy.example/hooks', 'healthy', T0 + 3),
        ]);
        const ids = async (skip?: string[]): Promise<string[]> => (await store.deliveries.due('a', T0 + 10, 2, skip)).map((d) => d.deliveryId);
        expect(await ids()).toEqual(['slow-1', 'slow-2']);
        expect(await ids([])).toEqual(['slow-1', 'slow-2']);
        expect(await ids(['https://slow.example'])).toEqual(['other-scheme', 'healthy']);
        expect(await ids(['https://slow.example', 'http://slow.example'])).toEqual(['healthy']);
        // Its origin is the record's as stored, also after an update.
        await store.deliveries.update('a', 'healthy', (d) => void d.attempts.push({ at: iso(T0), statusCode: 500, latencyMs: 1, error: 'HTTP 500', responseExcerpt: null, warnings: [] }));
        expect(await ids(['https://slow.example', 'http://slow.example'])).toEqual(['healthy']);
        expect(await ids(['https://healthy.example', 'https://slow.example', 'http://slow.example'])).toEqual([]);
      });

      it('a claim is exclusive, even for its own owner, and release hands it back without an attempt', async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
        expect(await store.deliveries.claim('a', 'd1', 'replica-1', 60_000)).toBe(true);
        expect(await store.deliveries.claim('a', 'd1', 'replica-1', 60_000)).toBe(false);
        expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(false);
        expect(await store.deliveries.due('a', T0, 10)).toEqual([]);
        await store.deliveries.release('a', 'd1', 'replica-2');
        expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(false);
        await store.deliveries.release('a', 'd1', 'replica-1');
        expect((await store.deliveries.due('a', T0, 10)).map((d) => d.deliveryId)).toEqual(['d1']);
        expect(await store.deliveries.claim('a', 'd1', 'replica-2', 60_000)).toBe(true);
        expect(await store.deliveries.claim('a', 'unknown', 'replica-2', 60_000)).toBe(false);
      });

      it('a claim with dueByMs takes only a delivery due by then on the account clock (a candidate rescheduled meanwhile is left)', async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 }), givenDelivery('a', 'unscheduled', { dueAtMs: null })]);
        expect(await store.deliveries.claim('a', 'd1', 'one', 60_000, T0 + 999)).toBe(false);
        expect(await store.deliveries.claim('a', 'unscheduled', 'one', 60_000, FAR)).toBe(false);
        expect(await store.deliveries.claim('a', 'd1', 'one', 60_000, T0 + 1000)).toBe(true);
      });

      it('queue counts the deliveries due now over the accounts with work due, and when the longest-waiting account fell due', async () => {
        expect(await store.deliveries.queue(T0)).toEqual({ dueDeliveries: 0, dueAccounts: 0, oldestDueMs: null });
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 - 5000 }), givenDelivery('a', 'd2', { dueAtMs: T0 }), givenDelivery('a', 'later', { dueAtMs: T0 + 60_000 })]);
        const shifted = givenAccount('b');
        shifted.clock.offsetMs = 3_600_000;
        await create(store, shifted, [givenDelivery('b', 'd1', { dueAtMs: T0 + 3_600_000 - 1000 })]);
        const frozen = givenAccount('c');
        frozen.clock = { offsetMs: 0, frozenAtMs: T0 + 10 };
        await create(store, frozen, [givenDelivery('c', 'd1', { dueAtMs: T0 + 10 })]);
        // Claimed deliveries still wait in the queue until they are recorded.
        expect(await store.deliveries.claim('a', 'd2', 'x', 60_000)).toBe(true);
        expect(await store.deliveries.queue(T0)).toEqual({ dueDeliveries: 4, dueAccounts: 3, oldestDueMs: T0 - 5000 });
        expect(await store.deliveries.queue(T0 - 5001)).toEqual({ dueDeliveries: 1, dueAccounts: 1, oldestDueMs: null });
      });

      it('a claim whose lease ended (the claimer died) is handed on to another owner', async () => {
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 })]);
        expect(await claimDue(store, 'a', T0, 'dies', 50, 10)).toHaveLength(1);
        const handedOn = await eventually(async () => {
          const claimed = await claimDue(store, 'a', T0, 'survivor', 60_000, 10);
          return claimed.length > 0 ? claimed : null;
        });
        expect(handedOn.map((d) => d.deliveryId)).toEqual(['d1']);
      });

      it("nextDueMs is the earliest pending delivery's due time on the account clock, or null", async () => {
        expect(await store.deliveries.nextDueMs('a')).toBeNull();
        await store.deliveries.add('a', [
          givenDelivery('a', 'd1', { dueAtMs: T0 + 900 }),
          givenDelivery('a', 'd2', { dueAtMs: T0 + 300 }),
          { ...givenDelivery('a', 'd3', { state: 'delivered' }), dueAtMs: T0 },
        ]);
        expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 300);
        await store.deliveries.update('a', 'd2', (d) => void Object.assign(d, { state: 'delivered', dueAtMs: null }));
        expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 900);
        await store.deliveries.update('a', 'd1', (d) => void Object.assign(d, { state: 'failed', dueAtMs: null }));
        expect(await store.deliveries.nextDueMs('a')).toBeNull();
        expect(await store.deliveries.nextDueMs('nobody')).toBeNull();
      });

      it("cancelPending fails the subscription's pending deliveries with the note and leaves the rest", async () => {
        await store.deliveries.add('a', [
          givenDelivery('a', 'p1', { subscriptionId: 's1', dueAtMs: T0 }),
          givenDelivery('a', 'p2', { subscriptionId: 's1', dueAtMs: T0 + 10 }),
          givenDelivery('a', 'done', { subscriptionId: 's1', state: 'delivered' }),
          givenDelivery('a', 'other', { subscriptionId: 's2', dueAtMs: T0 + 20 }),
        ]);
        expect(await store.deliveries.cancelPending('a', 's1', 'subscription deleted')).toBe(2);

        for (const id of ['p1', 'p2']) expect(await store.deliveries.get('a', id)).toMatchObject({ state: 'failed', note: 'subscription deleted', dueAtMs: null });
        expect(await store.deliveries.get('a', 'done')).toEqual(givenDelivery('a', 'done', { subscriptionId: 's1', state: 'delivered' }));
        expect((await store.deliveries.get('a', 'other'))?.state).toBe('pending');
        expect(await store.deliveries.nextDueMs('a')).toBe(T0 + 20);
        expect((await claimDue(store, 'a', FAR, 'x', 60_000, 10)).map((d) => d.deliveryId)).toEqual(['other']);
        expect(await store.deliveries.cancelPending('a', 's1', 'again')).toBe(0);
      });

      it("clear forgets the account's whole log and its due work, and no other account's", async () => {
        await create(store, givenAccount('b'), [givenDelivery('b', 'b1')]);
        await store.deliveries.add('a', [givenDelivery('a', 'd1'), givenDelivery('a', 'd2', { state: 'delivered' })]);
        await store.deliveries.clear('a');
        expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
        expect(await store.deliveries.get('a', 'd1')).toBeNull();
        expect(await store.deliveries.nextDueMs('a')).toBeNull();
        expect(await store.accounts.due(FAR, 10)).toEqual(['b']);
        expect((await store.deliveries.list('b', { offset: 0, limit: 10 })).total).toBe(1);
      });

      it('keeps the newest deliveryLogLimit finished deliveries (plus the slack), trims the oldest, and keeps every pending one', async () => {
        const limit = 10;
        const s = (await openStore({ deliveryLogLimit: limit })).store;
        // Pending deliveries older than everything else: they must survive every trim.
        await create(s, givenAccount('a'), Array.from({ length: 5 }, (_, i) => givenDelivery('a', `waiting-${i}`, { dueAtMs: T0 + 1e9 })));
        const finishedIds: string[] = [];
        for (let i = 0; i < 40; i++) {
          const id = `d${String(i).padStart(2, '0')}`;
          await s.deliveries.add('a', [givenDelivery('a', id)]);
          await s.deliveries.update('a', id, (d) => void Object.assign(d, { state: i % 3 === 0 ? 'failed' : 'delivered', dueAtMs: null }));
          finishedIds.push(id);
          const { total } = await s.deliveries.list('a', { state: 'delivered', offset: 0, limit: 100 });
          const { total: failed } = await s.deliveries.list('a', { state: 'failed', offset: 0, limit: 100 });
          expect(total + failed).toBeLessThanOrEqual(limit + logSlack(limit));
        }
        const { items } = await s.deliveries.list('a', { offset: 0, limit: 100 });
        const kept = items.filter((d) => d.state !== 'pending').map((d) => d.deliveryId);
        expect(kept.length).toBeGreaterThanOrEqual(limit);
        expect(kept.length).toBeLessThanOrEqual(limit + logSlack(limit));
        // The newest ones, newest first: trimming went oldest first.
        expect(kept).toEqual(finishedIds.slice(-kept.length).reverse());
        expect(items.filter((d) => d.state === 'pending').map((d) => d.deliveryId)).toEqual(['waiting-4', 'waiting-3', 'waiting-2', 'waiting-1', 'waiting-0']);
        expect(await s.deliveries.get('a', 'd00')).toBeNull();
        expect(await s.deliveries.get('a', 'waiting-0')).not.toBeNull();
      });
    });

    // ---- due hints -------------------------------------------------------------------------

    describe('accounts.due', () => {
      it('lists an account with a pending delivery from the instant it is due, not before', async () => {
        await create(store, givenAccount('a'), [givenDelivery('a', 'd1', { dueAtMs: T0 + 1000 })]);
        expect(await store.accounts.due(T0 + 999, 10)).toEqual([]);
        expect(await store.accounts.due(T0 + 1000, 10)).toEqual(['a']);
      });

      it('shifts the process-clock due time by the account clock offset, also when the offset changes later', async () => {
        await create(store, givenAccount('a'));
        await store.deliveries.add('a', [givenDelivery('a', 'd1', { dueAtMs: T0 + 7_200_000 + 1000 })]);
        expect(await store.accounts.due(T0 + 1000, 10)).toEqual([]);
        await store.accounts.update('a', (doc) => void (doc.clock.offsetMs = 7_200_000));
        expect(await store.accounts.due(T0 + 999, 10)).toEqual([]);
        expect(await store.accounts.due(T0 + 1000, 10)).toEqual(['a']);
      });

      it('a frozen clock already at the due time makes the work due at once', async () => {
        const doc = givenAccount('a');
        doc.clock = { offsetMs: 0, frozenAtMs: T0 + 86_400_000 };
        await create(store, doc, [givenDelivery('a', 'd1', { dueAtMs: T0 + 86_400_000 })]);
        expect(await store.accounts.due(T0, 10)).toEqual(['a']);
      });

      it('a frozen clock short of the due time never makes it due, until the clock is moved', async () => {
        const doc = givenAccount('a');
        doc.clock = { offsetMs: 0, frozenAtMs: T0 };
        await create(store, doc, [givenDelivery('a', 'd1', { dueAtMs: T0 + 5000 })]);
        expect(await store.accounts.due(FAR, 10)).toEqual([]);

        await store.accounts.update('a', (d) => void (d.clock.frozenAtMs = T0 + 5000));
        expect(await store.accounts.due(T0, 10)).toEqual(['a']);

        await store.accounts.update('a', (d) => void (d.clock = { offsetMs: -10_000, frozenAtMs: null }));
        expect(await store.accounts.due(T0 + 14_999, 10)).toEqual([]);
        expect(await store.accounts.due(T0 + 15_000, 10)).toEqual(['a']);
      });

      it('a running scenario run counts as work due at its step time; an ended run does not', async () => {
        await create(store, givenAccount('a'));
        const run = { runId: 'r1', accountId: 'a', scenario: 'leak', locationId: 'loc', startedAtMs: T0, nextStep: 0, totalSteps: 2, dueAtMs: T0 + 2000, state: 'running' as const, log: [], alertIds: {} };
        await store.accounts.update('a', (doc) => void doc.runs.push(run));
        expect(await store.accounts.due(T0 + 1999, 10)).toEqual([]);
        expect(await store.accounts.due(T0 + 2000, 10)).toEqual(['a']);
        await store.accounts.update('a', (doc) => void (doc.runs[0]!.state = 'completed'));
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
      });

      it('accounts without work are not listed, and one stops being listed when its last pending delivery ends', async () => {
        await create(store, givenAccount('idle'));
        await create(store, givenAccount('busy'), [givenDelivery('busy', 'd1', { dueAtMs: T0 }), givenDelivery('busy', 'done', { state: 'delivered' })]);
        expect(await store.accounts.due(FAR, 10)).toEqual(['busy']);
        await store.deliveries.update('busy', 'd1', (d) => void Object.assign(d, { state: 'delivered', dueAtMs: null }));
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
      });

      it('cancelPending and delete take an account off the list', async () => {
        await create(store, givenAccount('a'), [givenDelivery('a', 'd1', { subscriptionId: 's1', dueAtMs: T0 })]);
        await create(store, givenAccount('b'), [givenDelivery('b', 'd1', { dueAtMs: T0 })]);
        await store.deliveries.cancelPending('a', 's1', 'gone');
        expect(await store.accounts.due(FAR, 10)).toEqual(['b']);
        await store.accounts.delete('b');
        expect(await store.accounts.due(FAR, 10)).toEqual([]);
      });

      it('returns at most `limit` accounts', async () => {
        for (const id of ['a', 'b', 'c']) await create(store, givenAccount(id), [givenDelivery(id, 'd', { dueAtMs: T0 })]);
        const two = await store.accounts.due(T0, 2);
        expect(two).toHaveLength(2);
        expect(new Set([...two, ...(await store.accounts.due(T0, 10))])).toEqual(new Set(['a', 'b', 'c']));
      });
    });

    // ---- lifetimes -------------------------------------------------------------------------

    describe('account lifetimes', () => {
      const HOUR = 3_600_000;

      it('idleSince lists generated accounts with no request since the instant, oldest first, never fixture accounts', async () => {
        await create(store, givenAccount('fixture', { origin: 'fixture', createdAtMs: T0 - 5 * HOUR }));
        await create(store, givenAccount('g1', { origin: 'generated', createdAtMs: T0 - 3 * HOUR }));
        await create(store, givenAccount('g2', { origin: 'generated', createdAtMs: T0 - 2 * HOUR }));
        await create(store, givenAccount('young', { origin: 'generated', createdAtMs: T0 }));
        expect(await store.accounts.idleSince(T0 - HOUR, 10)).toEqual(['g1', 'g2']);

        await store.accounts.touch('g1', T0 - HOUR / 2);
        await store.accounts.touch('fixture', T0 - 10 * HOUR);
        expect(await store.accounts.idleSince(T0 - HOUR, 10)).toEqual(['g2']);
        expect(await store.accounts.idleSince(T0 + 1, 10)).toEqual(['g2', 'g1', 'young']);
        expect(await store.accounts.idleSince(T0 + 1, 2)).toEqual(['g2', 'g1']);
        await expect(store.accounts.touch('nobody', T0)).resolves.toBeUndefined();
      });

      describe('with a lifetime (ACCOUNT_TTL)', () => {
        const LIFETIME_MS = 3000;
        /** The last moment an account last recorded at `lastMs` is still there: its lifetime, and the record's resolution, after. */
        const lastAliveMs = (lastMs: number): number => lastMs + LIFETIME_MS + LAST_REQUEST_RESOLUTION_MS;
        let lived: Store;
        const alive = async (accountId: string): Promise<boolean> => {
          const viaGet = (await lived.accounts.get(accountId)) !== null;
          const viaKey = (await lived.accounts.findByKey('apiKey', keyOf('apiKey', accountId))) !== null;
          expect(viaKey).toBe(viaGet);
          return viaGet;
        };

        beforeEach(async () => {
          lived = (await openStore({ accountLifetimeMs: LIFETIME_MS })).store;
        });

        it('a generated account reads as absent (get, findByKey) once its lifetime has passed since its creation, to the millisecond', async () => {
          await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
          expect(await alive('g')).toBe(true);
          clock.set(new Date(lastAliveMs(T0)));
          expect(await alive('g')).toBe(true);
          clock.advance(1);
          expect(await alive('g')).toBe(false);
          // Only the reads: the index still names it, and the sweep finds it, until it is deleted.
          expect(await lived.accounts.lookup('apiKey', keyOf('apiKey', 'g'))).toBe('g');
          expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual(['g']);
          expect(await lived.accounts.delete('g')).toBe(true);
          expect(await lived.accounts.lookup('apiKey', keyOf('apiKey', 'g'))).toBeNull();
        });

        it('counts from the last recorded request', async () => {
          await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
          await lived.accounts.touch('g', T0 + 2500);
          clock.set(new Date(lastAliveMs(T0 + 2500)));
          expect(await alive('g')).toBe(true);
          expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual([]);
          clock.advance(1);
          expect(await alive('g')).toBe(false);
          expect(await lived.accounts.idleSince(lifetimeCutoffMs(clock.now().getTime(), LIFETIME_MS), 10)).toEqual(['g']);
        });

        it('never ends a fixture account, and a lifetime of 0 ends none', async () => {
          await create(lived, givenAccount('f', { origin: 'fixture', createdAtMs: T0 }));
          await create(store, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
          clock.advance(10 * 365 * 24 * HOUR);
          expect(await alive('f')).toBe(true);
          expect(await store.accounts.get('g')).not.toBeNull();
        });

        it('still applies a write to an account past its lifetime (a request that began within it finishes)', async () => {
          await create(lived, givenAccount('g', { origin: 'generated', createdAtMs: T0 }));
          clock.set(new Date(lastAliveMs(T0) + 1));
          await lived.accounts.update('g', (doc) => {
            doc.account.name = 'renamed late';
          });
          expect(await lived.accounts.get('g')).toBeNull();
          await lived.accounts.touch('g', clock.now().getTime());
          expect((await lived.accounts.get('g'))?.account.name).toBe('renamed late');
        });
      });

      it('touch shows as lastSeenMs in the account list', async () => {
        await create(store, givenAccount('g1', { origin: 'generated' }));
        expect((await store.accounts.list({ limit: 10 })).accounts[0]?.lastSeenMs).toBeNull();
        await store.accounts.touch('g1', T0 + 42);
        expect((await store.accounts.list({ limit: 10 })).accounts[0]?.lastSeenMs).toBe(T0 + 42);
      });

      it('delete removes the document, its deliveries, journal and index entries, and leaves other accounts whole', async () => {
        await create(store, givenAccount('a', { origin: 'generated', createdAtMs: T0 - HOUR }), [givenDelivery('a', 'd1')]);
        await create(store, givenAccount('b'), [givenDelivery('b', 'd1')]);
        await store.journal.append('a', givenJournalEntry('a', 1));
        await store.journal.append('b', givenJournalEntry('b', 1));

        expect(await store.accounts.delete('a')).toBe(true);
        expect(await store.accounts.delete('a')).toBe(false);

        expect(await store.accounts.get('a')).toBeNull();
        expect(await store.deliveries.get('a', 'd1')).toBeNull();
        expect(await store.deliveries.list('a', { offset: 0, limit: 10 })).toEqual({ total: 0, items: [] });
        expect(await store.journal.list('a', 10)).toEqual([]);
        for (const kind of INDEX_KINDS) expect(await store.accounts.lookup(kind, keyOf(kind, 'a'))).toBeNull();
        expect(await store.accounts.count()).toBe(1);
        expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['b']);
        expect(await store.accounts.idleSince(FAR, 10)).toEqual([]);
        expect(await store.accounts.due(FAR, 10)).toEqual(['b']);

        for (const kind of INDEX_KINDS) expect(await store.accounts.lookup(kind, keyOf(kind, 'b'))).toBe('b');
        expect(await store.deliveries.get('b', 'd1')).not.toBeNull();
        expect(await store.journal.list('b', 10)).toHaveLength(1);
      });

      it('a deleted account can be created again, with nothing of its former self', async () => {
        await create(store, givenAccount('a'), [givenDelivery('a', 'old')]);
        await store.journal.append('a', givenJournalEntry('a', 1));
        await store.accounts.delete('a');
        await create(store, givenAccount('a', { withKeys: false, name: 'reborn' }));
        expect((await docOf(store, 'a')).account.name).toBe('reborn');
        expect(await store.deliveries.get('a', 'old')).toBeNull();
        expect(await store.journal.list('a', 10)).toEqual([]);
        expect(await store.accounts.lookup('apiKey', keyOf('apiKey', 'a'))).toBeNull();
      });
    });

    // ---- journal ---------------------------------------------------------------------------

    describe('journal', () => {
      it('lists entries newest first, up to the limit asked, per account', async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        for (let i = 1; i <= 3; i++) await store.journal.append('a', givenJournalEntry('a', i));
        await store.journal.append('b', givenJournalEntry('b', 9));
        expect(await store.journal.list('a', 10)).toEqual([{ ...givenJournalEntry('a', 3), seq: 3 }, { ...givenJournalEntry('a', 2), seq: 2 }, { ...givenJournalEntry('a', 1), seq: 1 }]);
        expect(await store.journal.list('a', 2)).toEqual([{ ...givenJournalEntry('a', 3), seq: 3 }, { ...givenJournalEntry('a', 2), seq: 2 }]);
        expect(await store.journal.list('b', 10)).toEqual([{ ...givenJournalEntry('b', 9), seq: 1 }]);
        expect(await store.journal.list('nobody', 10)).toEqual([]);
      });

      it(`keeps only the newest ${JOURNAL_LIMIT} entries`, async () => {
        await create(store, givenAccount('a'));
        const n = JOURNAL_LIMIT + 60;
        for (let i = 0; i < n; i++) await store.journal.append('a', givenJournalEntry('a', i));
        const listed = await store.journal.list('a', 10_000);
        expect(listed).toHaveLength(JOURNAL_LIMIT);
        expect(listed[0]).toEqual({ ...givenJournalEntry('a', n - 1), seq: n });
        expect(listed.at(-1)).toEqual({ ...givenJournalEntry('a', n - JOURNAL_LIMIT), seq: n - JOURNAL_LIMIT + 1 });
      });

      it('an append with an announcement publishes it once the entry is stored, and not for an account that is gone', async () => {
        await create(store, givenAccount('a'));
        const heard: unknown[] = [];
        await store.events.subscribe('journal-news', (message) => {
          heard.push(message);
        });
        // What the subscriber finds in the journal when the message arrives: the entry is there already.
        const seen: unknown[][] = [];
        await store.events.subscribe('journal-news', () => {
          void store.journal.list('a', 10).then((entries) => seen.push(entries));
        });
        await store.journal.append('nobody', givenJournalEntry('nobody', 1), { channel: 'journal-news', message: { about: 'nobody' } });
        await store.journal.append('a', givenJournalEntry('a', 1), { channel: 'journal-news', message: { about: 'a', n: 1 } });
        await eventually(() => seen.length === 1 || null);
        expect(heard).toEqual([{ about: 'a', n: 1 }]);
        expect(seen).toEqual([[{ ...givenJournalEntry('a', 1), seq: 1 }]]);
        expect(await store.journal.list('nobody', 10)).toEqual([]);
      });

      it("clear empties one account's journal, and appending goes on after it", async () => {
        await create(store, givenAccount('a'));
        await create(store, givenAccount('b'));
        await store.journal.append('a', givenJournalEntry('a', 1));
        await store.journal.append('b', givenJournalEntry('b', 1));
        await store.journal.clear('a');
        expect(await store.journal.list('a', 10)).toEqual([]);
        expect(await store.journal.list('b', 10)).toHaveLength(1);
        await store.journal.append('a', givenJournalEntry('a', 2));
        // Seqs never repeat: a reader that saw seq 1 before the clear knows the new entry is new.
        expect(await store.journal.list('a', 10)).toEqual([{ ...givenJournalEntry('a', 2), seq: 2 }]);
      });

      it('an account made again after a delete starts its seqs afresh', async () => {
        await create(store, givenAccount('a'));
        await store.journal.append('a', givenJournalEntry('a', 1));
        await store.journal.append('a', givenJournalEntry('a', 2));
        await store.accounts.delete('a');
        await create(store, givenAccount('a'));
        await store.journal.append('a', givenJournalEntry('a', 3));
        expect((await store.journal.list('a', 10)).map((e) => e.seq)).toEqual([1]);
      });
    });

    // ---- counters, locks, events, settings ------------------------------------------------

    describe('counters', () => {
      it('count up from one, each key on its own', async () => {
        expect(await store.counters.increment('k1', 60_000)).toBe(1);
        expect(await store.counters.increment('k1', 60_000)).toBe(2);
        expect(await store.counters.increment('k2', 60_000)).toBe(1);
        expect(await store.counters.increment('k1', 60_000)).toBe(3);
      });

      it('concurrent increments each get their own count', async () => {
        const counts = await Promise.all(Array.from({ length: 100 }, () => store.counters.increment('k', 60_000)));
        expect([...counts].sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      });

      it('start again from one once the TTL has passed', async () => {
        expect(await store.counters.increment('k', shortTtlMs)).toBe(1);
        expect(await store.counters.increment('k', shortTtlMs)).toBe(2);
        clock.advance(shortTtlMs);
        // Each poll increments; the first after expiry counts 1 again.
        await eventually(async () => (await store.counters.increment('k', shortTtlMs)) === 1 || null);
        expect(await store.counters.increment('k', shortTtlMs)).toBe(2);
      });

      onClockIt('on the store clock, the window is fixed by the first increment, not renewed by later ones', async () => {
        expect(await store.counters.increment('k', 60_000)).toBe(1);
        clock.advance(59_999);
        expect(await store.counters.increment('k', 60_000)).toBe(2);
        clock.advance(1);
        expect(await store.counters.increment('k', 60_000)).toBe(1);
      });
    });

    describe('locks', () => {
      it('withLock runs one holder at a time and returns what fn returns', async () => {
        let active = 0;
        let most = 0;
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            store.locks.withLock('job', async () => {
              active++;
              most = Math.max(most, active);
              await turns(3);
              active--;
              return i;
            }),
          ),
        );
        expect(most).toBe(1);
        expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
      });

      it('withLock passes on a rejection and frees the lock', async () => {
        await expect(store.locks.withLock('job', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
        await expect(withDeadline(store.locks.withLock('job', () => Promise.resolve('next')))).resolves.toBe('next');
      });

      it('locks of different names do not wait for each other', async () => {
        const gate = deferred<void>();
        const a = store.locks.withLock('a', () => gate.promise);
        await expect(withDeadline(store.locks.withLock('b', () => Promise.resolve('b ran')))).resolves.toBe('b ran');
        gate.resolve();
        await a;
      });

      it('tryLock returns null while the lock is held, and a withLock waits for its release', async () => {
        const release = await store.locks.tryLock('sweep', 60_000);
        expect(release).not.toBeNull();
        expect(await store.locks.tryLock('sweep', 60_000)).toBeNull();
        expect(await store.locks.tryLock('other', 60_000)).not.toBeNull();

        const order: string[] = [];
        const waiting = store.locks.withLock('sweep', () => Promise.resolve(void order.push('withLock ran')));
        await turns(5);
        order.push('released');
        await release!();
        await withDeadline(waiting);
        expect(order).toEqual(['released', 'withLock ran']);
        const again = await store.locks.tryLock('sweep', 60_000);
        expect(again).not.toBeNull();
        await again!();
      });

      // A lock's lifetime, short enough to wait out (locks live in real time in every backend),
      // long enough that a renewal every third of it is never late on a busy machine.
      const LOCK_LIFE_MS = 600;
      /** The store and the one that plays another replica next to it (itself, for a backend without replicas). */
      const twoReplicas = async (options: Partial<StoreContractOptions> = {}): Promise<[Store, Store]> => {
        const opened = await openStore(options);
        return [opened.store, opened.peer ? await opened.peer() : opened.store];
      };
      /** Waits until `holder` has taken `name` through withLock (the other replica cannot take it). */
      const heldBy = (other: Store, name: string): Promise<true> =>
        eventually(async () => {
          const release = await other.locks.tryLock(name, 60_000);
          if (release === null) return true;
          await release();
          return null;
        });

      it('withLock keeps the lock past its lifetime while fn runs (it renews it): the other replica cannot take it meanwhile', async () => {
        const [holder, other] = await twoReplicas({ lockTtlMs: LOCK_LIFE_MS });
        const gate = deferred<void>();
        const holding = holder.locks.withLock('clock', () => gate.promise);
        await heldBy(other, 'clock');
        const since = performance.now();
        // Real time has to pass here: the lifetime is a Redis TTL.
        while (performance.now() - since < 2.5 * LOCK_LIFE_MS) {
          expect(await other.locks.tryLock('clock', 60_000)).toBeNull();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        gate.resolve();
        await holding;
        const after = await other.locks.tryLock('clock', 60_000);
        expect(after).not.toBeNull();
        await after!();
      });

      it('a tryLock holder that never releases (it died) loses the lock after its lifetime, not before', async () => {
        const [dying, other] = await twoReplicas();
        const before = performance.now();
        expect(await dying.locks.tryLock('sweep', LOCK_LIFE_MS)).not.toBeNull();
        expect(await other.locks.tryLock('sweep', 60_000)).toBeNull();
        const release = await eventually(() => other.locks.tryLock('sweep', 60_000), 10_000);
        expect(performance.now() - before).toBeGreaterThanOrEqual(LOCK_LIFE_MS - 20);
        await release();
      });

      it("only the holder releases a lock: a late release by a holder whose lock expired leaves the next holder's lock", async () => {
        const [late, other] = await twoReplicas();
        const releaseLate = await late.locks.tryLock('job', LOCK_LIFE_MS);
        const releaseNext = await eventually(() => other.locks.tryLock('job', 60_000), 10_000);
        await releaseLate!();
        // Still the next holder's: not even the late holder's replica can take it now.
        expect(await late.locks.tryLock('job', 60_000)).toBeNull();
        await releaseNext();
        const free = await late.locks.tryLock('job', 60_000);
        expect(free).not.toBeNull();
        await free!();
      });

      it('tryLock returns null while withLock holds the lock', async () => {
        const gate = deferred<void>();
        const holding = store.locks.withLock('job', () => gate.promise);
        await eventually(async () => {
          const release = await store.locks.tryLock('job', 60_000);
          if (release === null) return true;
          await release(); // withLock had not taken it yet
          return null;
        });
        gate.resolve();
        await holding;
        expect(await store.locks.tryLock('job', 60_000)).not.toBeNull();
      });
    });

    describe('events', () => {
      it('a message reaches the subscribers of its channel only', async () => {
        const onA: unknown[] = [];
        const onB: unknown[] = [];
        const onA2: unknown[] = [];
        await store.events.subscribe('a', (m) => onA.push(m));
        await store.events.subscribe('a', (m) => onA2.push(m));
        await store.events.subscribe('b', (m) => onB.push(m));
        await store.events.publish('a', { kind: 'first', values: [1, 2] });
        await store.events.publish('b', 'second');
        await eventually(() => (onA.length > 0 && onA2.length > 0 && onB.length > 0) || null);
        expect(onA).toEqual([{ kind: 'first', values: [1, 2] }]);
        expect(onA2).toEqual([{ kind: 'first', values: [1, 2] }]);
        // Published after the message of `a`: had that one leaked here, it would have come first.
        expect(onB).toEqual(['second']);
      });

      it('a message published while nobody subscribes is dropped, not kept for a later subscriber', async () => {
        await store.events.publish('d', 'unheard');
        const heard: unknown[] = [];
        await store.events.subscribe('d', (m) => heard.push(m));
        await store.events.publish('d', 'heard');
        await eventually(() => heard.length > 0 || null);
        expect(heard).toEqual(['heard']);
      });

      it('unsubscribe stops the messages of that subscriber only', async () => {
        const gone: unknown[] = [];
        const staying: unknown[] = [];
        const unsubscribe = await store.events.subscribe('c', (m) => gone.push(m));
        await store.events.subscribe('c', (m) => staying.push(m));
        await store.events.publish('c', 1);
        await eventually(() => (gone.length === 1 && staying.length === 1) || null);
        await unsubscribe();
        await store.events.publish('c', 2);
        await eventually(() => staying.length === 2 || null);
        expect(gone).toEqual([1]);
        expect(staying).toEqual([1, 2]);
      });
    });

    describe('settings', () => {
      it('get is null until set; set replaces; setIfAbsent keeps an existing value and stores a missing one', async () => {
        expect(await store.settings.get('sessionSecret')).toBeNull();
        await store.settings.set('sessionSecret', 's1');
        expect(await store.settings.get('sessionSecret')).toBe('s1');
        await store.settings.set('sessionSecret', 's2');
        expect(await store.settings.get('sessionSecret')).toBe('s2');
        expect(await store.settings.setIfAbsent('sessionSecret', 'ignored')).toBe('s2');
        expect(await store.settings.setIfAbsent('fixtures', 'abc')).toBe('abc');
        expect(await store.settings.get('fixtures')).toBe('abc');
      });

      it('concurrent setIfAbsent calls agree on one value', async () => {
        const values = await Promise.all(Array.from({ length: 10 }, (_, i) => store.settings.setIfAbsent('secret', `v${i}`)));
        expect(new Set(values).size).toBe(1);
        expect(await store.settings.get('secret')).toBe(values[0]);
      });
    });

    // ---- sessions --------------------------------------------------------------------------

    describe('sessions', () => {
      it('set then get returns the session; destroy removes it; an unknown sid has none', async () => {
        const sessions = sessionApi(store);
        const data = givenSession('u1');
        await sessions.set('sid-1', data);
        expect(await sessions.get('sid-1')).toEqual(data);
        expect(await sessions.get('sid-unknown')).toBeFalsy();
        await sessions.set('sid-1', givenSession('u2'));
        expect(await sessions.get('sid-1')).toEqual(givenSession('u2'));
        await sessions.destroy('sid-1');
        expect(await sessions.get('sid-1')).toBeFalsy();
      });

      it('a session expires sessionTtlMs after it was stored', async () => {
        const ttl = capabilities.expiresOn === 'clock' ? 60_000 : 1000;
        const sessions = sessionApi((await openStore({ sessionTtlMs: ttl })).store);
        await sessions.set('sid-1', givenSession('u1'));
        expect(await sessions.get('sid-1')).toEqual(givenSession('u1'));
        clock.advance(ttl);
        await eventually(async () => !(await sessions.get('sid-1')) || null);
        expect(await sessions.get('sid-1')).toBeFalsy();
      });

      onClockIt('touch extends a session by sessionTtlMs from the touch', async () => {
        const sessions = sessionApi((await openStore({ sessionTtlMs: 60_000 })).store);
        await sessions.set('sid-1', givenSession('u1'));
        clock.advance(50_000);
        await sessions.touch('sid-1', givenSession('u1'));
        clock.advance(50_000);
        expect(await sessions.get('sid-1')).toEqual(givenSession('u1'));
        clock.advance(10_000);
        expect(await sessions.get('sid-1')).toBeFalsy();
      });
    });

    // ---- list and count --------------------------------------------------------------------

    describe('accounts.list and count', () => {
      it('pages through the accounts in creation order with a cursor', async () => {
        expect(await store.accounts.count()).toBe(0);
        expect(await store.accounts.list({ limit: 2 })).toEqual({ accounts: [], next: null });
        const ids = ['e', 'c', 'a', 'd', 'b'];
        for (const [i, id] of ids.entries()) await create(store, givenAccount(id, { createdAtMs: T0 + i * 1000, origin: i % 2 ? 'generated' : 'fixture' }));
        expect(await store.accounts.count()).toBe(5);

        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        for (;;) {
          const page = await store.accounts.list(after === undefined ? { limit: 2 } : { after, limit: 2 });
          pages++;
          expect(page.accounts.length).toBeLessThanOrEqual(2);
          seen.push(...page.accounts.map((s) => s.accountId));
          if (page.next === null) break;
          after = page.next;
          if (pages > 5) throw new Error('the cursor never ends');
        }
        expect(seen).toEqual(ids);
        expect(pages).toBe(3);
      });

      it('summaries carry name, origin, creation time and last request, and follow updates', async () => {
        await create(store, givenAccount('a', { createdAtMs: T0, origin: 'generated', name: 'Ada' }));
        await store.accounts.update('a', (doc) => void (doc.account.name = 'Ada Lovelace'));
        await store.accounts.touch('a', T0 + 5);
        expect((await store.accounts.list({ limit: 10 })).accounts).toEqual([{ accountId: 'a', name: 'Ada Lovelace', origin: 'generated', createdAt: iso(T0), lastSeenMs: T0 + 5 }]);
      });

      it('count and list follow deletes', async () => {
        for (const [i, id] of ['a', 'b', 'c'].entries()) await create(store, givenAccount(id, { createdAtMs: T0 + i }));
        await store.accounts.delete('b');
        expect(await store.accounts.count()).toBe(2);
        expect((await store.accounts.list({ limit: 10 })).accounts.map((s) => s.accountId)).toEqual(['a', 'c']);
        const first = await store.accounts.list({ limit: 1 });
        expect(first.accounts.map((s) => s.accountId)).toEqual(['a']);
        expect(await store.accounts.list({ after: first.next!, limit: 10 })).toMatchObject({ accounts: [{ accountId: 'c' }], next: null });
      });

      it('a page after a cursor whose account was deleted meanwhile goes on after it, not from the start', async () => {
        for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) await create(store, givenAccount(id, { createdAtMs: T0 + i, origin: 'generated' }));
        const first = await store.accounts.list({ limit: 2 });
        expect(first.accounts.map((s) => s.accountId)).toEqual(['a', 'b']);
        // An idle-account sweep deletes the account the cursor points at, between two pages.
        await store.accounts.delete('b');
        const second = await store.accounts.list({ after: first.next!, limit: 2 });
        expect(second.accounts.map((s) => s.accountId)).toEqual(['c', 'd']);
        expect(second.next).toBeNull();
      });
    });

    // ---- restart ---------------------------------------------------------------------------

    if (!capabilities.persistent) {
      it('says it is not persistent and offers no reopen', async () => {
        const opened = await openStore();
        expect(opened.store.persistent).toBe(false);
        expect(opened.reopen).toBeUndefined();
      });
      return;
    }

    describe('after a restart (reopen)', () => {
      it('everything stored is still there: documents, deliveries, journal, settings, sessions, look-ups, due hints, lifetimes', async () => {
        const opened = current[0]!;
        expect(opened.store.persistent).toBe(true);
        const s = opened.store;
        const a = givenAccount('a', { createdAtMs: T0 - 2000 });
        a.clock.offsetMs = 7_200_000;
        await create(s, a, [givenDelivery('a', 'done', { state: 'delivered' })]);
        await create(s, givenAccount('g', { origin: 'generated', createdAtMs: T0 - 1000 }));
        await create(s, givenAccount('gone'));
        await s.accounts.update('a', (doc, tx) => {
          indexedKeys.apiKey.add(doc, 'added-key');
          indexedKeys.email.remove(doc, keyOf('email', 'a'));
          doc.runs.push({ runId: 'r1', accountId: 'a', scenario: 's', locationId: 'l', startedAtMs: T0, nextStep: 1, totalSteps: 3, dueAtMs: T0 + 7_200_000 + 60_000, state: 'running', log: [], alertIds: {} });
          tx.addDeliveries([givenDelivery('a', 'waiting', { dueAtMs: T0 + 7_200_000 + 1000 })]);
        });
        await s.deliveries.update('a', 'waiting', (d) => void d.attempts.push({ at: iso(T0), statusCode: 500, latencyMs: 9, error: null, responseExcerpt: 'oops', warnings: ['w'] }));
        await s.deliveries.add('a', [givenDelivery('a', 'failed', { state: 'failed' })]);
        for (let i = 0; i < 5; i++) await s.journal.append('a', givenJournalEntry('a', i));
        await s.accounts.touch('g', T0 - 500);
        await s.accounts.delete('gone');
        await s.settings.set('sessionSecret', 'secret');
        await sessionApi(s).set('sid-1', givenSession('u1'));

        const docBefore = await docOf(s, 'a');
        const deliveriesBefore = await s.deliveries.list('a', { offset: 0, limit: 100 });
        const listBefore = await s.accounts.list({ limit: 10 });

        const r = await opened.reopen!();

        expect(await docOf(r, 'a')).toEqual(docBefore);
        expect(await r.deliveries.list('a', { offset: 0, limit: 100 })).toEqual(deliveriesBefore);
        expect(deliveriesBefore.items.map((d) => [d.deliveryId, d.state])).toEqual([
          ['failed', 'failed'],
          ['waiting', 'pending'],
          ['done', 'delivered'],
        ]);
        expect(await r.journal.list('a', 10)).toEqual([4, 3, 2, 1, 0].map((i) => ({ ...givenJournalEntry('a', i), seq: i + 1 })));
        expect(await r.settings.get('sessionSecret')).toBe('secret');
        expect(await sessionApi(r).get('sid-1')).toEqual(givenSession('u1'));
        expect(await r.accounts.list({ limit: 10 })).toEqual(listBefore);
        expect(await r.accounts.count()).toBe(2);
        expect(await r.accounts.get('gone')).toBeNull();

        expect(await r.accounts.lookup('apiKey', 'added-key')).toBe('a');
        expect(await r.accounts.lookup('email', keyOf('email', 'a'))).toBeNull();
        for (const kind of INDEX_KINDS) {
          if (kind !== 'email') expect(await r.accounts.lookup(kind, keyOf(kind, 'a'))).toBe('a');
          expect(await r.accounts.lookup(kind, keyOf(kind, 'g'))).toBe('g');
          expect(await r.accounts.lookup(kind, keyOf(kind, 'gone'))).toBeNull();
        }

        expect(await r.accounts.due(T0 + 999, 10)).toEqual([]);
        expect(await r.accounts.due(T0 + 1000, 10)).toEqual(['a']);
        expect(await r.deliveries.nextDueMs('a')).toBe(T0 + 7_200_000 + 1000);
        expect((await claimDue(r, 'a', T0 + 7_200_000 + 1000, 'x', 60_000, 10)).map((d) => d.deliveryId)).toEqual(['waiting']);
        expect(await r.accounts.idleSince(T0, 10)).toEqual(['g']);
        expect(await r.accounts.idleSince(T0 - 500, 10)).toEqual([]);

        // And it goes on working.
        await r.accounts.update('a', (doc) => indexedKeys.apiKey.add(doc, 'after-restart'));
        expect(await r.accounts.lookup('apiKey', 'after-restart')).toBe('a');
      });

      it('a second restart keeps changes made after the first one', async () => {
        const opened = current[0]!;
        await create(opened.store, givenAccount('a'));
        const first = await opened.reopen!();
        await first.accounts.update('a', (doc) => void (doc.account.name = 'renamed'));
        await first.deliveries.add('a', [givenDelivery('a', 'd1')]);
        await first.journal.append('a', givenJournalEntry('a', 1));
        const second = await opened.reopen!();
        expect((await docOf(second, 'a')).account.name).toBe('renamed');
        expect((await second.deliveries.get('a', 'd1'))?.state).toBe('pending');
        expect(await second.journal.list('a', 10)).toEqual([{ ...givenJournalEntry('a', 1), seq: 1 }]);
        expect((await second.accounts.list({ limit: 10 })).accounts[0]?.name).toBe('renamed');
      });
    });
  });
}

// ---- helpers ---------------------------------------------------------------------------------

/** Polls `check` until it returns something other than null (or false), or fails after the deadline. */
export async function eventually<T>(check: () => T | null | false | Promise<T | null | false>, timeoutMs = 5000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== false) return value;
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Lets other work run for `n` turns of the event loop. */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Fails instead of hanging when `promise` does not settle in time. */
export async function withDeadline<T>(promise: Promise<T>, timeoutMs = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not settle within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function givenSession(userId: string): SessionData {
  return { cookie: { originalMaxAge: 3_600_000, httpOnly: true, path: '/', secure: false, sameSite: 'lax' }, userId, csrfToken: `csrf-${userId}` } as unknown as SessionData;
}

/** express-session's callback API as promises. */
export function sessionApi(store: Store): {
  get(sid: string): Promise<SessionData | null | undefined>;
  set(sid: string, data: SessionData): Promise<void>;
  destroy(sid: string): Promise<void>;
  touch(sid: string, data: SessionData): Promise<void>;
} {
  const s = store.sessions;
  const done = (resolve: () => void, reject: (e: Error) => void) => (err?: unknown) => (err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve());
  return {
    get: (sid) => new Promise((resolve, reject) => s.get(sid, (err, data) => (err ? reject(err instanceof Error ? err : new Error(JSON.stringify(err))) : resolve(data)))),
    set: (sid, data) => new Promise((resolve, reject) => s.set(sid, data, done(resolve, reject))),
    destroy: (sid) => new Promise((resolve, reject) => s.destroy(sid, done(resolve, reject))),
    touch: (sid, data) => new Promise((resolve, reject) => (s.touch ? s.touch(sid, data, () => resolve()) : reject(new Error('the session store has no touch')))),
  };
}
