import { performance } from 'node:perf_hooks';

import type { DestinationStream } from 'pino';
import request from 'supertest';

import { createLogger, type Logger } from '../../src/core/logger.js';
import { buildTestApp, changeDoc, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_LOCATION_ID } from '../helpers/demo.js';
import { deferred, eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { endAlert, givenSubscription, startAlert } from '../webhooks/support.js';

// One partner's load must not slow down the others' webhooks, nor one slow receiver the
// account's healthy ones. Latencies are bounded at 500 ms; the ordering itself is shown by
// events: the healthy delivery arrives while the slow receivers still hold every slot they
// were given (they answer only when the test lets them), which no queueing behind them allows.

const BOUND_MS = 500;

const receivers: WebhookReceiver[] = [];
const apps: TestApp[] = [];
/** What the slow receivers wait for before they answer: the end of the test. */
let released = deferred();

async function receiver(): Promise<WebhookReceiver> {
  const r = await WebhookReceiver.start();
  receivers.push(r);
  return r;
}

async function app(env: Record<string, string>, logger?: Logger): Promise<TestApp> {
  const t = await buildTestApp({ env, ...(logger === undefined ? {} : { logger }) });
  apps.push(t);
  return t;
}

beforeEach(() => {
  released = deferred();
});

afterEach(async () => {
  released.resolve();
  for (const r of receivers.splice(0)) await r.close();
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

/** Confirmed subscriptions of one location, stored in one change. */
async function givenSubscriptions(
  t: TestApp,
  accountId: string,
  locationId: string,
  endpoints: readonly string[],
): Promise<void> {
  await changeDoc(
    t,
    (d) => {
      for (const endpoint of endpoints) {
        d.subscriptions.push({
          subscriptionId: t.deps.ids.uuid(),
          accountId,
          locationId,
          endpoint,
          status: 'confirmed',
          createdAt: t.clock.now().toISOString(),
        });
      }
    },
    accountId,
  );
}

/** Milliseconds from now until `receiver` has `count` requests matching `match`. */
async function msUntil(
  receiver: WebhookReceiver,
  match: (body: Record<string, unknown>) => boolean,
  started: number,
): Promise<number> {
  await receiver.waitForMatching((r) => match((r.body ?? {}) as Record<string, unknown>));
  return performance.now() - started;
}

describe("one account's fan-out and another account's delivery", () => {
  it('500 subscriptions over 20 slow receivers do not delay another account by more than 500 ms', async () => {
    const t = await app({ WEBHOOK_TIMEOUT_MS: '30000' });
    const slow = await Promise.all(Array.from({ length: 20 }, () => receiver()));
    for (const r of slow) r.fallback = { status: 200, body: '{"ok":true}', until: released.promise };
    const healthy = await receiver();

    const created = await request(t.app).post('/sandbox/accounts').send({ locations: 1 }).expect(201);
    const busy = created.body as { accountId: string; apiKey: string; locations: { locationId: string }[] };
    const busyLocation = busy.locations[0]!.locationId;
    await givenSubscriptions(
      t,
      busy.accountId,
      busyLocation,
      Array.from({ length: 500 }, (_, i) => slow[i % 20]!.url(`/hooks/${i}`)),
    );
    await givenSubscription(t, healthy.url());

    await startAlert(t, { type: 'highLeak' }, busyLocation, busy.apiKey).expect(201);
    // The busy account takes all the slots it may (three quarters of 64), each on a receiver that does not answer.
    const holding = (): number => slow.reduce((n, r) => n + r.received.length, 0);
    await eventually(() => holding() >= 48);

    const started = performance.now();
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    const ms = await msUntil(healthy, (b) => b['type'] === 'lowLeak', started);

    // It arrived while the busy account held its whole share and 452 of its deliveries waited.
    expect(holding()).toBe(48);
    expect(ms).toBeLessThan(BOUND_MS);
  });
});

describe("one account's slow receivers and its healthy one", () => {
  /** 20 subscriptions on a receiver that hangs, 5 on one that resets, 1 on a healthy one: the report's set-up. */
  async function setUp(env: Record<string, string>, hang: { until?: Promise<unknown> } | 'hang') {
    const t = await app({ WEBHOOK_CONCURRENCY: '8', ...env });
    const hanging = await receiver();
    hanging.fallback = hang === 'hang' ? { hang: true } : { status: 200, body: '{"ok":true}', ...hang };
    const resetting = await receiver();
    resetting.fallback = { reset: true };
    const healthy = await receiver();
    await givenSubscriptions(t, DEMO_ACCOUNT_ID, DEMO_LOCATION_ID, [
      ...Array.from({ length: 20 }, (_, i) => hanging.url(`/h${i}`)),
      ...Array.from({ length: 5 }, (_, i) => resetting.url(`/r${i}`)),
      healthy.url('/healthy'),
    ]);
    const start = await startAlert(t, { type: 'highLeak' }).expect(201);
    await healthy.waitForMatching((r) => (r.body as { active?: boolean }).active === true);
    // The resetting receiver's first attempts have failed; their retries fall due on the account clock.
    await resetting.waitFor(2);
    t.clock.advance(60_000);
    return { t, hanging, resetting, healthy, alertId: (start.body as { alertId: string }).alertId };
  }

  it('an alert end reaches the healthy receiver within 500 ms, behind hanging and resetting receivers and their retries (WEBHOOK_TIMEOUT_MS=1000, WEBHOOK_CONCURRENCY=8)', async () => {
    const { t, healthy, alertId } = await setUp({ WEBHOOK_TIMEOUT_MS: '1000' }, 'hang');
    const started = performance.now();
    await endAlert(t, alertId).expect(200);
    const ms = await msUntil(healthy, (b) => b['active'] === false, started);
    expect(ms).toBeLessThan(BOUND_MS);
  });

  it('the alert end arrives while the hanging receiver still holds its slots with alert starts: it queued behind none of them', async () => {
    const { t, hanging, healthy, alertId } = await setUp({ WEBHOOK_TIMEOUT_MS: '30000' }, { until: released.promise });
    await endAlert(t, alertId).expect(200);
    await healthy.waitForMatching((r) => (r.body as { active?: boolean }).active === false);
    const toHanging = hanging.received.map((r) => (r.body as { active: boolean }).active);
    // A quarter of 8 slots per origin: the hanging receiver holds 2 alert starts, and has had nothing else.
    expect(toHanging).toEqual([true, true]);
  });

  it('new work is noticed at once while the account waits on a receiver that holds its slots', async () => {
    const t = await app({ WEBHOOK_TIMEOUT_MS: '30000' });
    const hanging = await receiver();
    hanging.fallback = { status: 200, body: '{"ok":true}', until: released.promise };
    const healthy = await receiver();
    await givenSubscriptions(t, DEMO_ACCOUNT_ID, DEMO_LOCATION_ID, [
      ...Array.from({ length: 30 }, (_, i) => hanging.url(`/h${i}`)),
      healthy.url('/healthy'),
    ]);
    const start = await startAlert(t, { type: 'highLeak' }).expect(201);
    // The hanging receiver holds its origin's share (a quarter of 64) and answers none.
    await Promise.all([healthy.waitFor(1), hanging.waitFor(16)]);
    await endAlert(t, (start.body as { alertId: string }).alertId).expect(200);
    await healthy.waitFor(2);
    expect(healthy.bodies().map((b) => b['active'])).toEqual([true, false]);
    expect(hanging.bodies().map((b) => b['active'])).toEqual(Array.from({ length: 16 }, () => true));
  });
});

describe("the operator's view", () => {
  it('an account waiting for its share is counted in /metrics and logged at warn, once a minute, without secrets', async () => {
    const lines: string[] = [];
    const destination: DestinationStream = { write: (line: string) => void lines.push(line) };
    const t = await app({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '30000' }, createLogger('warn', destination));
    const slow = await Promise.all(Array.from({ length: 4 }, () => receiver()));
    for (const r of slow) r.fallback = { status: 200, body: '{"ok":true}', until: released.promise };
    await givenSubscriptions(
      t,
      DEMO_ACCOUNT_ID,
      DEMO_LOCATION_ID,
      Array.from({ length: 8 }, (_, i) => slow[i % 4]!.url(`/s${i}`)),
    );
    await startAlert(t, { type: 'highLeak' }).expect(201);
    // Three quarters of 4 slots: three receivers hold one each.
    await eventually(() => slow.filter((r) => r.received.length > 0).length === 3);
    await startAlert(t, { type: 'ambientTemp' }).expect(201);
    const metrics = await eventually(async () => {
      const text = (await request(t.app).get('/metrics').expect(200)).text;
      return /sandbox_webhook_account_share_waits_total [1-9]/.test(text) ? text : null;
    });
    expect(metrics).toMatch(/sandbox_webhook_account_share_waits_total [1-9]/);
    const warned = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'webhook deliveries of an account wait for its share of the delivery slots');
    expect(warned).toEqual([
      expect.objectContaining({ level: 'warn', accountId: DEMO_ACCOUNT_ID, inFlight: 3, share: 3, concurrency: 4 }),
    ]);
    expect(lines.join('\n')).not.toContain('demo_api_key');
  });
});
