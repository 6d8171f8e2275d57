import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { RedisStore } from '../../src/store/redis/redis-store.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { freePort, itWithOwnRedis, startTestRedis, useTestRedis } from '../helpers/redis-server.js';
import { openSharedStore, replicaEnv, spawnReplica, type ReplicaProcess } from '../helpers/replicas.js';
import { eventually } from '../helpers/waiting.js';

/**
 * Replicas as separate OS processes (`node dist/water-sandbox.js`), so that one can be killed with -9
 * mid-delivery or stopped with SIGTERM, and one can start before its Redis.
 */

const redis = useTestRedis({ appendfsync: 'always' });
const processes: ReplicaProcess[] = [];
const stores: RedisStore[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(processes.splice(0).map((p) => p.kill('SIGKILL')));
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function spawn(env: Record<string, string>, options: { waitForBanner?: boolean } = {}): Promise<ReplicaProcess> {
  const replica = await spawnReplica(env, options);
  processes.push(replica);
  return replica;
}

/**
 * A webhook receiver that can hold its answers. It records each request's delivery id and the
 * phase it arrived in (before or after the test said `mark()`, e.g. at a kill).
 */
interface HoldingReceiver {
  url: string;
  arrived: { id: string; phase: number }[];
  /** Answer every held request now, and every later one at once. */
  release(): void;
  /** Requests held open now. */
  held(): number;
  /** Starts the next phase. */
  mark(): void;
}

async function holdingReceiver(options: { holdMs?: number; hold?: boolean }): Promise<HoldingReceiver> {
  const waiting = new Set<() => void>();
  let holding = options.hold ?? false;
  let phase = 0;
  const arrived: { id: string; phase: number }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      arrived.push({ id: String(req.headers['x-sandbox-delivery-id']), phase });
      const answer = (): void => {
        waiting.delete(answer);
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      };
      if (holding) waiting.add(answer);
      else if (options.holdMs) setTimeout(answer, options.holdMs);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived,
    release() {
      holding = false;
      for (const answer of [...waiting]) answer();
    },
    held: () => waiting.size,
    mark: () => {
      phase++;
    },
  };
}

/** Requests per delivery id, split by phase. */
function perDelivery(receiver: HoldingReceiver): Map<string, number[]> {
  const counts = new Map<string, number[]>();
  for (const { id, phase } of receiver.arrived) {
    const c = counts.get(id) ?? [0, 0];
    c[phase] = (c[phase] ?? 0) + 1;
    counts.set(id, c);
  }
  return counts;
}

async function givenConfirmedSubscriptions(shared: RedisStore, url: string, n: number): Promise<void> {
  await shared.accounts.update(DEMO_ACCOUNT_ID, (doc) => {
    for (let i = 0; i < n; i++) {
      const subscriptionId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      doc.subscriptions.push({
        subscriptionId,
        accountId: DEMO_ACCOUNT_ID,
        locationId: DEMO_LOCATION_ID,
        endpoint: `${url}/hooks/${i}`,
        status: 'confirmed',
        createdAt: new Date(0).toISOString(),
      });
    }
  });
}

const startAlert = (replica: ReplicaProcess): Promise<Response> =>
  fetch(`${replica.url}/sandbox/locations/${DEMO_LOCATION_ID}/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(DEMO_API_KEY) },
    body: '{"type":"highLeak"}',
  });

async function deliveredCount(shared: RedisStore): Promise<number> {
  return (await shared.deliveries.list(DEMO_ACCOUNT_ID, { kind: 'alert', state: 'delivered', offset: 0, limit: 1 }))
    .total;
}

describe('replicas as processes', () => {
  it('kill -9 of a replica during deliveries: the other finishes them, nothing lost, nothing sent twice by the survivor', async () => {
    const prefix = redis.prefix();
    // Attempts are cut at 1 s, so a dead replica's claims (timeout + 10 s) end after 11 s.
    const env = replicaEnv(redis, prefix, { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_MAX_ATTEMPTS: '10' });
    const [a, b] = [await spawn(env), await spawn(env)];
    const shared = await openSharedStore(redis, prefix);
    stores.push(shared);
    const n = 60;
    const receiver = await holdingReceiver({ hold: true });
    await givenConfirmedSubscriptions(shared, receiver.url, n);

    expect((await startAlert(a)).status).toBe(201);
    // Both replicas have attempts on the wire (16 each: a quarter of the concurrency per origin).
    await eventually(() => receiver.held() >= 32 || null, 10_000);
    await a.kill('SIGKILL');
    receiver.mark();
    const heldAtKill = receiver.arrived.length;
    receiver.release();

    await eventually(async () => ((await deliveredCount(shared)) === n ? true : null), 30_000);
    const counts = perDelivery(receiver);
    expect(counts.size).toBe(n);
    // Nothing lost, and the survivor never sent one delivery twice: after the kill each delivery
    // arrived at most once. The only repeats are attempts the killed replica had on the wire and
    // never saw answered; the survivor took them over when their claims ran out.
    const repeated = [...counts.values()].filter(([before = 0, after = 0]) => before + after > 1);
    for (const [before = 0, after = 0] of counts.values()) {
      expect(after).toBeLessThanOrEqual(1);
      expect(before).toBeLessThanOrEqual(1);
    }
    expect(repeated.length).toBeGreaterThan(0);
    expect(repeated.length).toBeLessThanOrEqual(heldAtKill);
    // The log: each delivery delivered, with the one attempt that was answered.
    const { items } = await shared.deliveries.list(DEMO_ACCOUNT_ID, { kind: 'alert', offset: 0, limit: 1000 });
    expect(items.map((d) => [d.state, d.attempts.length])).toEqual(items.map(() => ['delivered', 1]));
    expect(b.child.exitCode).toBeNull();
  }, 60_000);

  it('SIGTERM finishes the attempts in flight, exits 0, and leaves the rest to the other replica at once (no claim to wait out)', async () => {
    const prefix = redis.prefix();
    const env = replicaEnv(redis, prefix, { WEBHOOK_TIMEOUT_MS: '20000' });
    const a = await spawn(env);
    const shared = await openSharedStore(redis, prefix);
    stores.push(shared);
    const n = 60;
    const receiver = await holdingReceiver({ holdMs: 300 });
    await givenConfirmedSubscriptions(shared, receiver.url, n);

    expect((await startAlert(a)).status).toBe(201);
    await eventually(() => receiver.arrived.length >= 5 || null, 10_000);
    const started = performance.now();
    expect(await a.kill('SIGTERM')).toBe(0);
    // Its attempts were answered before it exited, and recorded.
    const afterStop = await deliveredCount(shared);
    expect(afterStop).toBeGreaterThan(0);
    expect(afterStop).toBe(receiver.arrived.length);

    const b = await spawn(env);
    expect(b.port).toBeGreaterThan(0);
    await eventually(async () => ((await deliveredCount(shared)) === n ? true : null), 20_000);
    // Far sooner than a lease (timeout 20 s + 10 s): nothing was left claimed.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(receiver.arrived).toHaveLength(n);
    expect(new Set(receiver.arrived.map((r) => r.id)).size).toBe(n);
  }, 60_000);

  itWithOwnRedis(
    'a replica started while Redis is down keeps trying, says why (a log line, /healthz 503 with the reason), and serves once Redis is up',
    async () => {
      const redisPort = await freePort();
      const port = await freePort();
      const env = {
        ...replicaEnv(redis, redis.prefix(), { LOG_LEVEL: 'warn', PORT: String(port) }),
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      };
      const replica = await spawn(env, { waitForBanner: false });
      const health = await eventually(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        return res?.status === 503 ? ((await res.json()) as Record<string, unknown>) : null;
      }, 15_000);
      expect(health).toMatchObject({
        status: 'starting',
        store: 'redis',
        reason: expect.stringContaining(`Redis at redis://127.0.0.1:${redisPort} is unreachable`),
      });
      const api = await fetch(`http://127.0.0.1:${port}/v1/locations`, { headers: bearer(DEMO_API_KEY) });
      expect(api.status).toBe(503);
      expect(api.headers.get('retry-after')).toBe('1');
      await eventually(() => replica.output().includes('Redis is unreachable; retrying') || null);

      const late = await startTestRedis({ port: redisPort });
      try {
        await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200 || null, 15_000);
        expect((await fetch(`http://127.0.0.1:${port}/v1/locations`, { headers: bearer(DEMO_API_KEY) })).status).toBe(
          200,
        );
        expect(replica.output()).toContain(`water-sandbox is running at http://localhost:${port}`);
        expect(replica.child.exitCode).toBeNull();
      } finally {
        await replica.kill('SIGKILL');
        await late.dispose();
      }
    },
    60_000,
  );
});
