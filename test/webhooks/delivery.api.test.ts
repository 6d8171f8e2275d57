import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import type { Logger } from '../../src/core/logger.js';
import { NOT_JSON_WARNING } from '../../src/webhooks/assess.js';
import { useAppsAndReceivers } from '../helpers/app-and-receiver.js';
import { TEST_START, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY } from '../helpers/demo.js';
import { type LoggedLine, recordingLogger } from '../helpers/recording-logger.js';
import { deliveriesIn, givenSubscription, postedBodies, startAlert } from './support.js';

const { buildApp, startReceiver: receiver } = useAppsAndReceivers();
const app = (env: Record<string, string> = {}, options: { logger?: Logger; start?: Date } = {}): Promise<TestApp> =>
  buildApp({ env, ...options });

/** Advances the test clock to the next pending attempt and runs it. */
async function advanceToNextAttempt(t: TestApp): Promise<void> {
  const [delivery] = (await deliveriesIn(t)).filter((x) => x.state === 'pending');
  if (!delivery?.dueAtMs) throw new Error('nothing pending');
  t.clock.set(delivery.dueAtMs);
  await t.deps.dispatcher.drain();
}

describe('retries', () => {
  it('retries a delivery answered 500, after the first backoff on the account clock, and records both attempts', async () => {
    const t = await app();
    const r = await receiver();
    r.script = [{ status: 500, body: '{"error":"boom"}' }];
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();

    let [delivery] = await deliveriesIn(t);
    expect(delivery).toMatchObject({ state: 'pending', dueAtMs: TEST_START.getTime() + 1000 });
    expect(delivery!.attempts).toEqual([
      {
        at: TEST_START.toISOString(),
        statusCode: 500,
        latencyMs: expect.any(Number),
        error: 'HTTP 500',
        responseExcerpt: '{"error":"boom"}',
        warnings: [],
      },
    ]);

    // Not due yet: nothing is sent.
    t.clock.advance(999);
    await t.deps.dispatcher.drain();
    expect(r.received).toHaveLength(1);

    t.clock.advance(1);
    await t.deps.dispatcher.drain();
    [delivery] = await deliveriesIn(t);
    expect(delivery).toMatchObject({ state: 'delivered', dueAtMs: null });
    expect(delivery!.attempts.map((a) => [a.statusCode, a.error])).toEqual([
      [500, 'HTTP 500'],
      [200, null],
    ]);
    expect(postedBodies(r)).toHaveLength(2);
  });

  it('doubles the delay between attempts and marks the delivery failed after WEBHOOK_MAX_ATTEMPTS', async () => {
    const t = await app({ WEBHOOK_MAX_ATTEMPTS: '4', WEBHOOK_BACKOFF_MS: '1000' });
    const r = await receiver();
    r.fallback = { status: 503, body: 'down', contentType: 'text/plain' };
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();

    const dueTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      dueTimes.push((await deliveriesIn(t))[0]!.dueAtMs! - t.clock.now().getTime());
      await advanceToNextAttempt(t);
    }
    expect(dueTimes).toEqual([1000, 2000, 4000]);
    const [delivery] = await deliveriesIn(t);
    expect(delivery).toMatchObject({ state: 'failed', dueAtMs: null });
    expect(delivery!.attempts).toHaveLength(4);
    expect(r.received).toHaveLength(4);
  });

  it('cuts an attempt at WEBHOOK_TIMEOUT_MS against a receiver that hangs, then delivers on retry', async () => {
    const t = await app({ WEBHOOK_TIMEOUT_MS: '150' });
    const r = await receiver();
    r.script = [{ hang: true }];
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    expect((await deliveriesIn(t))[0]!.attempts[0]).toMatchObject({
      statusCode: null,
      error: 'timed out after 150 ms',
      responseExcerpt: null,
    });

    await advanceToNextAttempt(t);
    expect((await deliveriesIn(t))[0]!.state).toBe('delivered');
  });

  it('records a connection reset as a failed attempt and retries', async () => {
    const t = await app();
    const r = await receiver();
    r.script = [{ reset: true }];
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const [first] = (await deliveriesIn(t))[0]!.attempts;
    expect(first).toMatchObject({ statusCode: null, responseExcerpt: null });
    expect(first!.error).toEqual(expect.any(String));

    await advanceToNextAttempt(t);
    expect((await deliveriesIn(t))[0]!.state).toBe('delivered');
  });

  it('retries a refused connection (nothing listening)', async () => {
    const t = await app({ WEBHOOK_MAX_ATTEMPTS: '2' });
    const r = await receiver();
    const url = r.url();
    await r.close();
    await givenSubscription(t, url);
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    await advanceToNextAttempt(t);
    const [delivery] = await deliveriesIn(t);
    expect(delivery!.state).toBe('failed');
    expect(delivery!.attempts.map((a) => a.error)).toEqual([
      expect.stringContaining('ECONNREFUSED'),
      expect.stringContaining('ECONNREFUSED'),
    ]);
  });
});

describe('the log of attempts', () => {
  it('logs a delivered attempt at info and a failed one at warn, each with its delivery, target and answer', async () => {
    const lines: LoggedLine[] = [];
    const logger = recordingLogger(lines);
    const t = await app({ WEBHOOK_MAX_ATTEMPTS: '1' }, { logger });
    const r = await receiver();
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    r.script = [{ status: 500, body: '{"error":"down"}' }];
    await startAlert(t, { type: 'ambientTemp' }).expect(201);
    await t.deps.dispatcher.drain();

    const [delivered, failed] = await deliveriesIn(t);
    const logged = (d: NonNullable<typeof delivered>) => ({
      deliveryId: d.deliveryId,
      accountId: DEMO_ACCOUNT_ID,
      kind: 'alert',
      method: 'POST',
      target: r.url(),
      ...d.attempts[0],
    });
    expect(lines.filter((line) => line.msg.startsWith('webhook attempt'))).toEqual([
      { level: 'info', msg: 'webhook attempt', fields: logged(delivered!) },
      { level: 'warn', msg: 'webhook attempt failed', fields: logged(failed!) },
    ]);
    expect(failed!.attempts[0]).toMatchObject({
      statusCode: 500,
      error: 'HTTP 500',
      responseExcerpt: '{"error":"down"}',
    });
  });
});

describe('answers that are not JSON', () => {
  it('counts a 2xx answer that is not JSON as delivered, with a warning on the attempt and in the log', async () => {
    const lines: { msg: string; fields: Record<string, unknown> | undefined }[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: (msg, fields) => lines.push({ msg, fields }),
      error: () => {},
      child: () => logger,
    };
    const t = await app({}, { logger });
    const r = await receiver();
    r.fallback = { status: 200, body: 'OK', contentType: 'text/plain' };
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    const [delivery] = await deliveriesIn(t);
    expect(delivery!.state).toBe('delivered');
    expect(delivery!.attempts[0]).toMatchObject({
      statusCode: 200,
      error: null,
      responseExcerpt: 'OK',
      warnings: [NOT_JSON_WARNING],
    });
    expect(lines).toEqual([
      {
        msg: 'webhook attempt delivered with warnings',
        fields: expect.objectContaining({ deliveryId: delivery!.deliveryId, warnings: [NOT_JSON_WARNING] }),
      },
    ]);
  });

  it('warns about an empty 2xx body too', async () => {
    const t = await app();
    const r = await receiver();
    r.fallback = { status: 204, body: '' };
    await givenSubscription(t, r.url());
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    expect((await deliveriesIn(t))[0]).toMatchObject({
      state: 'delivered',
      attempts: [expect.objectContaining({ statusCode: 204, warnings: [NOT_JSON_WARNING] })],
    });
  });
});

describe('concurrency', () => {
  it('keeps delivering to other endpoints while one endpoint hangs', async () => {
    // Concurrency 4 allows one attempt per origin at a time: six hanging deliveries cannot fill every slot.
    const t = await app({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_TIMEOUT_MS: '2000' });
    const slow = await receiver();
    const fast = await receiver();
    slow.fallback = { hang: true };
    for (let i = 0; i < 6; i++) await givenSubscription(t, slow.url(`/hooks/${i}`));
    await givenSubscription(t, fast.url());
    await startAlert(t, { type: 'highLeak' }).expect(201);

    await fast.waitFor(1);
    const byTarget = async (target: string) => (await deliveriesIn(t)).filter((x) => x.target.startsWith(target));
    // The fast receiver got its alert while the first slow attempt is still hanging.
    expect(slow.received.length).toBeLessThanOrEqual(1);
    expect((await byTarget(slow.url(''))).every((x) => x.attempts.length === 0)).toBe(true);
    await slow.close();
    await t.deps.dispatcher.idle();
    expect((await byTarget(fast.url()))[0]!.state).toBe('delivered');
  });

  it('delivers an alert to many subscriptions, each exactly once', async () => {
    const t = await app();
    const r = await receiver();
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) ids.push(await givenSubscription(t, r.url(`/hooks/${i}`)));
    await startAlert(t, { type: 'highLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    expect(
      postedBodies<{ subscriptionId: string }>(r)
        .map((b) => b.subscriptionId)
        .sort(),
    ).toEqual(ids.sort());
    expect((await deliveriesIn(t)).every((x) => x.state === 'delivered')).toBe(true);
  });
});

describe('the bounded log', () => {
  it('keeps only the newest WEBHOOK_LOG_LIMIT finished deliveries of the account, and every pending one', async () => {
    const t = await app({ WEBHOOK_LOG_LIMIT: '5' });
    const ok = await receiver();
    const down = await receiver();
    down.fallback = { status: 500 };
    await givenSubscription(t, down.url());
    await givenSubscription(t, ok.url());
    for (let i = 0; i < 6; i++) {
      const started = await startAlert(t, { type: 'humidity' }).expect(201);
      await t.deps.dispatcher.drain();
      await request(t.app)
        .post(`/sandbox/locations/${started.body.locationId}/alerts/${started.body.alertId}/end`)
        .set(bearer(DEMO_API_KEY))
        .expect(200);
      await t.deps.dispatcher.drain();
    }
    const log = await deliveriesIn(t);
    const finished = log.filter((x) => x.state !== 'pending');
    expect(finished).toHaveLength(5);
    expect(log.filter((x) => x.state === 'pending')).toHaveLength(12);
    // The newest: the last end notification is kept.
    expect(finished.at(-1)!.payload).toMatchObject({ active: false });
    expect(postedBodies(ok)).toHaveLength(12);
  });
});

describe('stopping', () => {
  it('starts no new attempt once stopped, and keeps the delivery pending for the next start', async () => {
    const t = await app();
    const r = await receiver();
    await givenSubscription(t, r.url());
    t.deps.dispatcher.stop();
    await startAlert(t, { type: 'lowLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    expect(r.received).toHaveLength(0);
    expect((await deliveriesIn(t)).map((x) => [x.state, x.attempts.length])).toEqual([['pending', 0]]);
  });
});

describe('a restart', () => {
  it('resumes pending deliveries from the data file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'water-sandbox-'));
    try {
      const env = { DATA_DIR: join(dir, 'state') };
      const r = await receiver();
      r.script = [{ status: 500 }];

      const first = await app(env);
      await givenSubscription(first, r.url());
      await startAlert(first, { type: 'lowLeak' }).expect(201);
      await first.deps.dispatcher.drain();
      // A second delivery that was never attempted before the "crash".
      await givenSubscription(first, r.url('/second'));
      const never = first.deps.dispatcher.build(
        {
          accountId: DEMO_ACCOUNT_ID,
          kind: 'alert',
          subscriptionId: null,
          locationId: null,
          target: r.url('/second'),
          payload: { hello: 1 },
        },
        TEST_START.getTime() + 500,
      );
      await first.store.deliveries.add(DEMO_ACCOUNT_ID, [never]);
      await first.store.flush();
      expect((await deliveriesIn(first)).map((x) => [x.state, x.attempts.length])).toEqual([
        ['pending', 1],
        ['pending', 0],
      ]);

      const second = await app(env, { start: new Date(TEST_START.getTime() + 1000) });
      await second.deps.dispatcher.drain();
      expect((await deliveriesIn(second)).map((x) => [x.state, x.attempts.length])).toEqual([
        ['delivered', 2],
        ['delivered', 1],
      ]);
      expect(r.received.map((x) => x.path).sort()).toEqual(['/hooks', '/hooks', '/second']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
