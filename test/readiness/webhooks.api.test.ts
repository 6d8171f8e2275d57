import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import { postSubscription } from '../helpers/subscription-request.js';
import { givenConfirmedSubscription } from '../helpers/subscriptions.js';
import { endAlert, startAlert } from '../webhooks/support.js';
import { checkOf, drill, expectCheck } from './support.js';

/**
 * subscriptions.confirmed and the webhook checks, through real deliveries to a real receiver on
 * loopback: each passed, failed and pending.
 */

const { t, receiver } = useAppAndReceiver();

const HTML = { status: 200, body: '<html><body>OK</body></html>', contentType: 'text/html' };

async function subscribe(endpoint = receiver.url()): Promise<{ subscriptionId: string }> {
  const res = await postSubscription(t, endpoint).expect(200);
  await t.deps.dispatcher.drain();
  return res.body as { subscriptionId: string };
}

/** An alert started and ended at the demo location, with every delivery attempted. */
async function alertStartAndEnd(): Promise<void> {
  const started = await startAlert(t, { type: 'lowLeak' }).expect(201);
  await endAlert(t, started.body.alertId as string).expect(200);
  await t.deps.dispatcher.drain();
}

describe('subscriptions.confirmed', () => {
  it('passes once a subscription was confirmed with its token', async () => {
    const subscriptionId = await givenConfirmedSubscription(t, receiver);
    await expectCheck(t, 'subscriptions.confirmed', 'passed', {
      request: expect.stringMatching(
        new RegExp(`^GET /v1/subscriptions/${subscriptionId}/confirm\\?confirmationToken=`),
      ),
      status: 200,
    });
  });

  it('is pending while no subscription was made, and while a new one waits for its confirm call (its token still valid)', async () => {
    expect((await checkOf(t, 'subscriptions.confirmed')).status).toBe('pending');
    await subscribe();
    const check = await checkOf(t, 'subscriptions.confirmed');
    expect(check).toMatchObject({
      status: 'pending',
      evidence: [],
      fix: expect.stringContaining('confirm it with the token'),
    });
  });

  it("fails when a confirm call was refused through the client's fault and not followed by a good one", async () => {
    const { subscriptionId } = await subscribe();
    // The official Node client's bug: no "=" between the parameter and the token.
    await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm?confirmationTokenabc`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    await expectCheck(t, 'subscriptions.confirmed', 'failed', {
      status: 400,
      detail: 'confirm call refused (400); the subscription is not confirmed since',
    });
  });

  it('fails when a confirmation token expired unused, naming the subscription', async () => {
    const { subscriptionId } = await subscribe();
    expect((await checkOf(t, 'subscriptions.confirmed')).status).toBe('pending');
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 601 }).expect(200);
    await expectCheck(t, 'subscriptions.confirmed', 'failed', {
      subscriptionId,
      detail: expect.stringMatching(/^its confirmation token expired unused at /),
    });
  });
});

describe('webhooks.confirmation-answer and webhooks.check-answer', () => {
  it('pass when the receiver answered the confirmation POST and the GET check with 2xx JSON', async () => {
    const { subscriptionId } = await subscribe();
    const confirmation = await checkOf(t, 'webhooks.confirmation-answer');
    expect(confirmation.status).toBe('passed');
    expect(confirmation.evidence).toEqual([
      expect.objectContaining({
        deliveryId: expect.any(String),
        status: 200,
        detail: `the confirmation POST to ${receiver.url()} was answered 200 at its first attempt`,
      }),
    ]);
    expect((await checkOf(t, 'webhooks.check-answer')).status).toBe('passed');
    expect(subscriptionId).toEqual(expect.any(String));
  });

  it('fail when the receiver answered with HTML: the POST and the GET each name their delivery', async () => {
    receiver.fallback = HTML;
    await subscribe();
    const confirmation = await checkOf(t, 'webhooks.confirmation-answer');
    expect(confirmation.status).toBe('failed');
    expect(confirmation.evidence[0]!.detail).toBe(
      `the confirmation POST to ${receiver.url()} was answered 200 with a body that is not JSON at its first attempt`,
    );
    const check = await checkOf(t, 'webhooks.check-answer');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]!.detail).toMatch(/^the GET check to .* with a body that is not JSON/);
    const deliveries = (await request(t.app).get('/sandbox/deliveries').set(bearer(DEMO_API_KEY)).expect(200)).body
      .deliveries as { deliveryId: string; kind: string }[];
    expect(check.evidence[0]!.deliveryId).toBe(deliveries.find((d) => d.kind === 'receiver_check')!.deliveryId);
  });

  it('the GET check fails alone when only GET is answered with an error, and both are pending before any subscription', async () => {
    expect((await checkOf(t, 'webhooks.confirmation-answer')).status).toBe('pending');
    expect((await checkOf(t, 'webhooks.check-answer')).status).toBe('pending');
    receiver.script = [
      { status: 200, body: '{}' },
      { status: 405, body: '{"error":"method not allowed"}' },
    ];
    await subscribe();
    expect((await checkOf(t, 'webhooks.confirmation-answer')).status).toBe('passed');
    const check = await checkOf(t, 'webhooks.check-answer');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]).toMatchObject({ status: 405 });
  });
});

describe('webhooks.alert-answer', () => {
  it('passes when alert starts and ends were answered 2xx JSON at their first attempt', async () => {
    await givenConfirmedSubscription(t, receiver);
    await alertStartAndEnd();
    const check = await checkOf(t, 'webhooks.alert-answer');
    expect(check.status).toBe('passed');
    expect(check.evidence.map((e) => e.detail)).toEqual([
      `the lowLeak alert start to ${receiver.url()} was answered 200 at its first attempt`,
      `the lowLeak alert end to ${receiver.url()} was answered 200 at its first attempt`,
    ]);
  });

  it("fails when an alert's first attempt was answered 500, even though a retry got through", async () => {
    await givenConfirmedSubscription(t, receiver);
    receiver.script = [{ status: 500, body: '{"error":"busy"}' }];
    await startAlert(t, { type: 'highLeak' }).expect(201);
    await t.deps.dispatcher.drain();
    t.clock.advance(1000);
    await t.deps.dispatcher.drain();
    const alerts = receiver.received.filter(
      (r) => r.method === 'POST' && (r.body as { type?: string }).type === 'highLeak',
    );
    expect(alerts.map((r) => r.headers['x-sandbox-attempt'])).toEqual(['1', '2']);
    await expectCheck(t, 'webhooks.alert-answer', 'failed', {
      status: 500,
      detail: `the highLeak alert start to ${receiver.url()} was answered 500 at its first attempt`,
    });
  });

  it('is pending until an alert was sent to a confirmed subscription', async () => {
    await givenConfirmedSubscription(t, receiver);
    expect((await checkOf(t, 'webhooks.alert-answer')).status).toBe('pending');
  });
});

describe('webhooks.duplicate', () => {
  it('passes when the duplicate (same X-Sandbox-Delivery-Id) was answered 2xx', async () => {
    await givenConfirmedSubscription(t, receiver);
    await alertStartAndEnd();
    expect((await checkOf(t, 'webhooks.duplicate')).status).toBe('pending');
    const outcome = (await drill(t, 'duplicate-delivery').expect(200)).body as { deliveryIds: string[] };
    await t.deps.dispatcher.drain();
    await expectCheck(t, 'webhooks.duplicate', 'passed', { deliveryId: outcome.deliveryIds[0], status: 200 });
  });

  it('fails when the receiver refused the duplicate', async () => {
    await givenConfirmedSubscription(t, receiver);
    await alertStartAndEnd();
    receiver.script = [{ status: 409, body: '{"error":"duplicate"}' }];
    await drill(t, 'duplicate-delivery').expect(200);
    await t.deps.dispatcher.drain();
    const check = await checkOf(t, 'webhooks.duplicate');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]!.detail).toMatch(
      /^the lowLeak alert end sent again as a duplicate \(X-Sandbox-Delivery-Id [0-9a-f-]+\) to .* was answered 409 at its first attempt$/,
    );
    // Duplicates are judged here, not as alert answers.
    expect((await checkOf(t, 'webhooks.alert-answer')).status).toBe('passed');
  });
});

describe('webhooks.duplicate, pending', () => {
  it('stays pending while alerts are delivered but no duplicate was sent, with how to send one', async () => {
    await givenConfirmedSubscription(t, receiver);
    await alertStartAndEnd();
    const check = await checkOf(t, 'webhooks.duplicate');
    expect(check).toMatchObject({
      status: 'pending',
      evidence: [],
      fix: 'Run the duplicate-delivery drill once an alert has been delivered.',
    });
  });
});

describe('webhooks.out-of-order', () => {
  it('passes when the end of an alert never started was answered 2xx (without JSON, too)', async () => {
    await givenConfirmedSubscription(t, receiver);
    expect((await checkOf(t, 'webhooks.out-of-order')).status).toBe('pending');
    receiver.fallback = { status: 204, body: '' };
    await drill(t, 'out-of-order').expect(200);
    await t.deps.dispatcher.drain();
    const check = await checkOf(t, 'webhooks.out-of-order');
    expect(check.status).toBe('passed');
    expect(check.evidence[0]!.detail).toBe(
      `the lowLeak alert end of an alert never started to ${receiver.url()} was answered 204 at its first attempt`,
    );
  });

  it('fails when the receiver refused it', async () => {
    await givenConfirmedSubscription(t, receiver);
    receiver.fallback = { status: 400, body: '{"error":"unknown alert"}' };
    await drill(t, 'out-of-order').expect(200);
    await t.deps.dispatcher.drain();
    const check = await checkOf(t, 'webhooks.out-of-order');
    expect(check.status).toBe('failed');
    expect(check.evidence[0]).toMatchObject({ status: 400 });
  });
});

describe('webhooks.https', () => {
  it('fails for an http endpoint, passes when every endpoint is https, and is pending without subscriptions', async () => {
    expect((await checkOf(t, 'webhooks.https')).status).toBe('pending');
    const secure = await postSubscription(t, 'https://hooks.partner.example/water').expect(200);
    const https = await checkOf(t, 'webhooks.https');
    expect(https).toMatchObject({
      status: 'passed',
      required: false,
      evidence: [
        expect.objectContaining({
          subscriptionId: secure.body.subscriptionId,
          detail: 'endpoint https://hooks.partner.example/water uses https',
        }),
      ],
    });
    await subscribe();
    const http = await checkOf(t, 'webhooks.https');
    expect(http.status).toBe('failed');
    expect(http.evidence).toEqual([expect.objectContaining({ detail: `endpoint ${receiver.url()} is not https` })]);
  });
});
