import { describeAccountsContract } from './contract/accounts.js';
import { describeCountersContract } from './contract/counters.js';
import { describeDeliveriesContract } from './contract/deliveries.js';
import { describeDueContract } from './contract/due.js';
import { describeEventsContract } from './contract/events.js';
import { describeIndexesContract } from './contract/indexes.js';
import { describeJournalContract } from './contract/journal.js';
import { describeLifetimesContract } from './contract/lifetimes.js';
import { describeLimitsContract } from './contract/limits.js';
import { describeLocksContract } from './contract/locks.js';
import { describeRestartContract } from './contract/restart.js';
import { describeSessionsContract } from './contract/sessions.js';
import { describeSettingsContract } from './contract/settings.js';
import { useContractSuite, type OpenStoreForContract, type StoreContractCapabilities } from './contract/suite.js';

/**
 * The behaviour every Store backend must have, as one suite, in one file per part of the store
 * (contract/: accounts, limits, indexes, lifetimes, deliveries, due hints, journal, counters, locks,
 * events, settings, sessions, restart). A backend plugs in with
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
 *
 * Each part is a function of what contract/suite.ts opens for every test (the running test's store
 * and clock, and how to open another next to them), called here in one describe per backend.
 */
export function describeStoreContract(
  name: string,
  open: OpenStoreForContract,
  capabilities: StoreContractCapabilities,
): void {
  describe(`${name}: the Store contract`, () => {
    const suite = useContractSuite(open, capabilities);
    describeAccountsContract(suite);
    describeLimitsContract(suite);
    describeIndexesContract(suite);
    describeLifetimesContract(suite);
    describeDeliveriesContract(suite);
    describeDueContract(suite);
    describeJournalContract(suite);
    describeCountersContract(suite);
    describeLocksContract(suite);
    describeEventsContract(suite);
    describeSettingsContract(suite);
    describeSessionsContract(suite);
    describeRestartContract(suite);
  });
}
