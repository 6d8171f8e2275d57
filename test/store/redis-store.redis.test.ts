import type { ManualClock } from '../../src/core/clock.js';
import type { DeliveryRecord } from '../../src/store/data.js';
import type { AccountLimits } from '../../src/store/limits.js';
import { RedisStore } from '../../src/store/redis/redis-store.js';
import { useTestRedis } from '../helpers/redis-server.js';
import { deferred, eventually, withDeadline } from '../helpers/waiting.js';
import { givenAccount, givenDelivery, iso, keyOf, T0 } from './builders.js';
import type { StoreContractOptions, StoreUnderTest } from './contract/suite.js';
import { describeStoreContract } from './contract.js';

const redis = useTestRedis();

/** A store of its own: a fresh key prefix on the shared test Redis, ready before it is handed out. */
async function openRedis(
  options: Pick<StoreContractOptions, 'deliveryLogLimit' | 'sessionTtlMs'> & {
    accountLifetimeMs?: number;
    lockTtlMs?: number;
    maxSessions?: number;
    prefix?: string;
    clock?: ManualClock;
    limits?: AccountLimits;
  },
): Promise<RedisStore> {
  const { deliveryLogLimit, sessionTtlMs, accountLifetimeMs, lockTtlMs, maxSessions, limits } = options;
  const store = new RedisStore({
    url: redis.url,
    prefix: options.prefix ?? redis.prefix(),
    deliveryLogLimit,
    sessionTtlMs,
    cacheSize: 2,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(accountLifetimeMs === undefined ? {} : { accountLifetimeMs }),
    ...(lockTtlMs === undefined ? {} : { lockTtlMs }),
    ...(maxSessions === undefined ? {} : { maxSessions }),
    ...(limits === undefined ? {} : { limits }),
  });
  await eventually(async () => (await store.health()).ok || null);
  return store;
}

describeStoreContract(
  'the redis store',
  async (clock: ManualClock, options: StoreContractOptions): Promise<StoreUnderTest> => {
    const prefix = redis.prefix();
    let store = await openRedis({ ...options, prefix, clock });
    const peers: RedisStore[] = [];
    return {
      store,
      // A restart of the sandbox: a new connection to the same keys.
      reopen: async () => {
        await store.close();
        store = await openRedis({ ...options, prefix, clock });
        return store;
      },
      // Another replica: its own connections to the same keys.
      peer: async () => {
        const peer = await openRedis({ ...options, prefix, clock });
        peers.push(peer);
        return peer;
      },
      close: async () => {
        await store.close();
        for (const peer of peers.splice(0)) await peer.close();
      },
    };
  },
  { expiresOn: 'realTime', persistent: true },
);

describe('the redis store', () => {
  const opened: RedisStore[] = [];
  const open = async (prefix: string, options: { lockTtlMs?: number } = {}): Promise<RedisStore> => {
    const store = await openRedis({ deliveryLogLimit: 10, sessionTtlMs: 3_600_000, prefix, ...options });
    opened.push(store);
    return store;
  };

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('two connections on one prefix see each other at once, as two replicas do', async () => {
    const prefix = redis.prefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    await a.accounts.create(givenAccount('x'));
    expect((await b.accounts.get('x'))?.account.name).toBe('Account x');
    await b.accounts.update('x', (doc) => void (doc.account.name = 'renamed on b'));
    // a has the document cached at its old version: it reads the new one.
    expect((await a.accounts.get('x'))?.account.name).toBe('renamed on b');
    // findByKey too (it asks for the version with the owner, and the document when that changed).
    await b.accounts.update('x', (doc) => void (doc.account.name = 'renamed again on b'));
    expect((await a.accounts.findByKey('apiKey', keyOf('apiKey', 'x')))?.doc.account.name).toBe('renamed again on b');
    await b.accounts.delete('x');
    expect(await a.accounts.findByKey('apiKey', keyOf('apiKey', 'x'))).toBeNull();
  });

  it('concurrent updates of one account from two connections all land (compare-and-set, retried)', async () => {
    const prefix = redis.prefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    await a.accounts.create(givenAccount('x'));
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? a : b).accounts.update('x', (doc) => {
          doc.rateLimit = { requests: (doc.rateLimit?.requests ?? 0) + 1, perSeconds: 60, anchorMs: T0 };
        }),
      ),
    );
    expect((await a.accounts.get('x'))?.rateLimit?.requests).toBe(100);
  });

  it('reads records that a replica of an older version wrote with nextAttemptAt beside dueAtMs without it, and changes and cancels them', async () => {
    const store = await open(redis.prefix());
    const older = (id: string): DeliveryRecord =>
      ({ ...givenDelivery('x', id, { dueAtMs: T0 }), nextAttemptAt: iso(T0) }) as DeliveryRecord;
    await store.accounts.create(givenAccount('x'), [older('d1'), older('d2')]);
    const current = givenDelivery('x', 'd1', { dueAtMs: T0 });
    expect(await store.deliveries.get('x', 'd1')).toStrictEqual(current);
    // One subscription's deliveries come one at a time: d1 (d2 is read back by list below).
    expect((await store.deliveries.due('x', T0, 10)).map((d) => [d.deliveryId, 'nextAttemptAt' in d])).toEqual([
      ['d1', false],
    ]);
    expect(await store.deliveries.update('x', 'd1', (d) => void (d.dueAtMs = T0 + 5000))).toBeUndefined();
    expect(await store.deliveries.get('x', 'd1')).toStrictEqual({ ...current, dueAtMs: T0 + 5000 });
    // d2 is still as the older replica stored it: the compare-and-set is against that text.
    expect(await withDeadline(store.deliveries.cancelPending('x', 'sub-1', 'gone'), 5000)).toBe(2);
    expect(
      (await store.deliveries.list('x', { offset: 0, limit: 10 })).items.map((d) => [
        d.deliveryId,
        d.state,
        d.dueAtMs,
        'nextAttemptAt' in d,
      ]),
    ).toEqual([
      ['d2', 'failed', null, false],
      ['d1', 'failed', null, false],
    ]);
  });

  it('a claim taken through one connection holds against the other; the due filter refuses a rescheduled delivery', async () => {
    const prefix = redis.prefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    await a.accounts.create(givenAccount('x'), [givenDelivery('x', 'd1', { dueAtMs: T0 })]);
    const [first, second] = await Promise.all([
      a.deliveries.claim('x', 'd1', 'a', 60_000),
      b.deliveries.claim('x', 'd1', 'b', 60_000),
    ]);
    expect([first, second].filter(Boolean)).toHaveLength(1);
    await a.deliveries.update('x', 'd1', (d) => void (d.dueAtMs = T0 + 5000));
    expect(await b.deliveries.claim('x', 'd1', 'b', 60_000, T0)).toBe(false);
    expect(await b.deliveries.claim('x', 'd1', 'b', 60_000, T0 + 5000)).toBe(true);
  });

  it('a replica that dies holding a lock of withLock (its connection gone, nothing renews it) loses it after the lock lifetime', async () => {
    const prefix = redis.prefix();
    const [dying, other] = [await open(prefix, { lockTtlMs: 600 }), await open(prefix)];
    const gate = deferred();
    const holding = dying.locks.withLock('time:x', () => gate.promise);
    await eventually(async () => {
      const release = await other.locks.tryLock('time:x', 60_000);
      if (release === null) return true;
      await release();
      return null;
    });
    await dying.close();
    // The dead holder's fn never finished, yet the other replica gets the lock.
    await expect(
      withDeadline(
        other.locks.withLock('time:x', () => Promise.resolve('taken over')),
        10_000,
      ),
    ).resolves.toBe('taken over');
    gate.resolve();
    await holding;
  });

  it('events published through one connection reach subscribers of the other', async () => {
    const prefix = redis.prefix();
    const [a, b] = [await open(prefix), await open(prefix)];
    const heard: unknown[] = [];
    await b.events.subscribe('account:x', (m) => heard.push(m));
    await a.events.publish('account:x', { type: 'reset' });
    await eventually(() => heard.length === 1 || null);
    expect(heard).toEqual([{ type: 'reset' }]);
  });

  it('a store whose Redis is not there reports why, and answers calls with a 503 error', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:1', deliveryLogLimit: 10, sessionTtlMs: 1000 });
    opened.push(store);
    const health = await eventually(async () => {
      const h = await store.health();
      return h.reason?.includes('unreachable') ? h : null;
    });
    expect(health).toEqual({
      ok: false,
      reason: expect.stringContaining('Redis at redis://127.0.0.1:1 is unreachable'),
    });
    await expect(store.accounts.get('x')).rejects.toMatchObject({ status: 503, code: 'service_unavailable' });
  });

  it('closing fails the commands still waiting for Redis at once, with the reason', async () => {
    const store = new RedisStore({ url: 'redis://127.0.0.1:1', deliveryLogLimit: 10, sessionTtlMs: 1000 });
    // Within its first 2 s a store waits for Redis: the read waits until the store closes.
    const waiting = store.accounts.get('x');
    await store.close();
    await expect(waiting).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining('its store is closed'),
    });
  });
});
