import { ManualClock } from '../../../src/core/clock.js';
import type { AccountDoc, DeliveryRecord } from '../../../src/store/data.js';
import { NO_ACCOUNT_LIMITS, type AccountLimits } from '../../../src/store/limits.js';
import type { Store } from '../../../src/store/store.js';
import { live } from '../../helpers/live.js';
import { T0 } from '../builders.js';

/** What each part of the Store contract (the files of this folder) is given; see ../contract.ts for how a backend plugs in. */

export interface StoreContractOptions {
  deliveryLogLimit: number;
  sessionTtlMs: number;
  /** ACCOUNT_TTL in ms; 0 (the default): generated accounts live for ever. */
  accountLifetimeMs: number;
  /** How long a withLock lock lives without renewal, where a backend's holders can die apart from it (Redis). */
  lockTtlMs: number;
  /** ACCOUNT_STORAGE_LIMIT and MAX_PENDING_DELIVERIES (0: none). */
  limits: AccountLimits;
  /** Login sessions kept at most; absent: no bound. */
  maxSessions?: number;
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

export const DEFAULT_CONTRACT_OPTIONS: StoreContractOptions = {
  deliveryLogLimit: 1000,
  sessionTtlMs: 3_600_000,
  accountLifetimeMs: 0,
  lockTtlMs: 30_000,
  limits: NO_ACCOUNT_LIMITS,
};

/** Finished deliveries a backend may keep beyond `deliveryLogLimit` before it trims (see DeliveryStore.update). */
export const logSlack = (limit: number): number => Math.max(1, Math.ceil(limit * 0.1));

export const FAR = Number.MAX_SAFE_INTEGER;

/** What assigning to, or adding to, a frozen object throws (a TypeError of the realm the object was made in: matched by its message). */
export const FROZEN = /read[ -]only|not extensible/;

/** Claims what `due` offers, one delivery at a time, as the dispatcher does; returns what `owner` got. */
export async function claimDue(
  store: Store,
  accountId: string,
  nowMs: number,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<DeliveryRecord[]> {
  const claimed: DeliveryRecord[] = [];
  for (const candidate of await store.deliveries.due(accountId, nowMs, limit)) {
    if (await store.deliveries.claim(accountId, candidate.deliveryId, owner, leaseMs)) claimed.push(candidate);
  }
  return claimed;
}

/** The running test's store and clock, and what every part shares. */
export interface ContractSuite {
  readonly capabilities: StoreContractCapabilities;
  /** The running test's store, opened before it with the default options (a fresh ManualClock at T0). */
  readonly store: Store;
  readonly clock: ManualClock;
  /** Every store the running test opened, the one above first; each is closed after the test. */
  readonly current: readonly StoreUnderTest[];
  /** Opens another store next to the first, on the same clock, with some options changed. */
  openStore(options?: Partial<StoreContractOptions>): Promise<StoreUnderTest>;
  /** Creates the account (it must not exist yet) and returns its document. */
  create(s: Store, doc: AccountDoc, deliveries?: DeliveryRecord[]): Promise<AccountDoc>;
  /** A copy of the account's document; fails the test when it is missing. */
  docOf(s: Store, accountId: string): Promise<AccountDoc>;
  /** `it` for the tests that need counters and sessions to expire on the injected clock. */
  readonly onClockIt: jest.It;
  /** A TTL that expires quickly in the backend's time: advanced on the clock, or waited for. */
  readonly shortTtlMs: number;
}

/** Registers the hooks that open a fresh store before each test and close what it opened after it, and answers what the parts share. */
export function useContractSuite(open: OpenStoreForContract, capabilities: StoreContractCapabilities): ContractSuite {
  let clock: ManualClock | null = null;
  let store: Store | null = null;
  const current: StoreUnderTest[] = [];
  const during = <T>(value: T | null): T => {
    if (value === null)
      throw new Error('the contract store exists only while a test runs (it is made before each test)');
    return value;
  };

  const openStore = async (options: Partial<StoreContractOptions> = {}): Promise<StoreUnderTest> => {
    const opened = await open(during(clock), { ...DEFAULT_CONTRACT_OPTIONS, ...options });
    current.push(opened);
    return opened;
  };

  beforeEach(async () => {
    clock = new ManualClock(T0);
    store = (await openStore()).store;
  });

  afterEach(async () => {
    [clock, store] = [null, null];
    for (const opened of current.splice(0)) await opened.close();
  });

  return {
    capabilities,
    store: live('the contract store', () => store),
    clock: live('the contract clock', () => clock),
    current,
    openStore,
    create: async (s, doc, deliveries) => {
      expect(await s.accounts.create(doc, deliveries)).toBe(true);
      return doc;
    },
    docOf: async (s, accountId) => {
      const doc = await s.accounts.get(accountId);
      if (doc === null) throw new Error(`account ${accountId} is missing`);
      return structuredClone(doc) as AccountDoc;
    },
    onClockIt: capabilities.expiresOn === 'clock' ? it : it.skip,
    shortTtlMs: capabilities.expiresOn === 'clock' ? 60_000 : 300,
  };
}
