import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import request from 'supertest';

import { relayAwareSender } from '../../src/relay/index.js';
import { HIDDEN, type WebhookSender } from '../../src/webhooks/index.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_ACCOUNT_ID, DEMO_API_KEY, DEMO_LOCATION_ID } from '../helpers/demo.js';

// Issue 40, item 8: on a hosted sandbox the confirmation token reaches the endpoint only, and the
// delivery log hides it in the payload; an endpoint that echoes its request must not show it to
// the subscriber through the answer the log keeps (its first 500 characters) either. The attacker
// subscribes a URL that did not ask for the traffic but echoes what it gets (as many debugging
// endpoints do), reads the log, and would confirm the subscription with the token.

const HOSTED = { PUBLIC_URL: 'https://sandbox.example.com', ENDPOINT_POLICY: 'any', BLOCK_PRIVATE_ENDPOINTS: 'false' };

/**
 * An endpoint that answers every POST with its body, and every GET with the last body it was
 * sent, padded so that the confirmation token starts at character `at` of the answer: anywhere in
 * the kept excerpt, or across its end.
 */
async function echoingEndpoint(at: number): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method === 'POST') bodies.push(body);
      const echoed = req.method === 'POST' ? body : (bodies.at(-1) ?? '');
      const token = (JSON.parse(echoed || '{}') as { confirmationToken?: string }).confirmationToken ?? '';
      res.setHeader('content-type', 'text/plain');
      res.end(`${'p'.repeat(Math.max(0, at - echoed.indexOf(token)))}${echoed}`);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const apps: TestApp[] = [];
const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
  for (const close of closers.splice(0)) await close();
});

async function subscribeEchoing(env: Record<string, string>, at: number) {
  const t = await buildTestApp({ env });
  apps.push(t);
  const endpoint = await echoingEndpoint(at);
  closers.push(endpoint.close);
  const created = await request(t.app)
    .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
    .set(bearer(DEMO_API_KEY))
    .send({ endpoint: endpoint.url })
    .expect(200);
  await t.deps.dispatcher.drain();
  const subscriptionId = created.body.subscriptionId as string;
  const token = (JSON.parse(endpoint.bodies[0]!) as { confirmationToken: string }).confirmationToken;
  const log = await request(t.app)
    .get(`/sandbox/deliveries?subscriptionId=${subscriptionId}`)
    .set(bearer(DEMO_API_KEY))
    .expect(200);
  return { t, subscriptionId, token, log };
}

type LoggedDelivery = { kind: string; attempts: { responseExcerpt: string | null; error: string | null }[] };

describe('an endpoint that echoes its requests, on a hosted sandbox', () => {
  // Where the token starts in the echoed answer: well inside the excerpt (500 characters), and across its end.
  it.each([
    ['inside the kept excerpt', 200],
    ['across the end of the kept excerpt', 490],
  ])(
    'never shows the confirmation token in a stored answer (%s): the confirmation and the GET check that follows',
    async (_where, at) => {
      const { t, subscriptionId, token, log } = await subscribeEchoing(HOSTED, at);
      const deliveries = log.body.deliveries as LoggedDelivery[];
      expect(deliveries.map((d) => d.kind).sort()).toEqual(['confirmation', 'receiver_check']);
      // The endpoint did echo the token, and the log kept its answers.
      for (const d of deliveries) {
        expect(d.attempts).toHaveLength(1);
        expect(d.attempts[0]!.responseExcerpt).toMatch(/^p{10}/);
      }
      // No part of the token is in anything the account can read of its log (the first half of a
      // token cut at the excerpt's end included), and where it was, the log says it was hidden.
      expect(log.text).not.toContain(token.slice(0, 8));
      expect(log.text).not.toContain(token.slice(-8));
      const confirmation = deliveries.find((d) => d.kind === 'confirmation')!;
      if (at < 400) expect(confirmation.attempts[0]!.responseExcerpt).toContain(HIDDEN);
      // Nor in the store itself: what the log is read from holds it hidden.
      const stored = await t.store.deliveries.list(DEMO_ACCOUNT_ID, { offset: 0, limit: 10 });
      expect(JSON.stringify(stored.items.map((d) => d.attempts))).not.toContain(token.slice(0, 8));
      // So the subscriber cannot confirm the subscription: it has no token.
      await request(t.app)
        .get(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=${HIDDEN}`)
        .set(bearer(DEMO_API_KEY))
        .expect(400);
    },
  );

  it('a local sandbox keeps the answer as it came (the token is the partner’s own there)', async () => {
    const { token, log } = await subscribeEchoing({}, 200);
    const confirmation = (log.body.deliveries as LoggedDelivery[]).find((d) => d.kind === 'confirmation')!;
    expect(confirmation.attempts[0]!.responseExcerpt).toContain(token);
  });
});

describe("the relay's recorded answers", () => {
  it('hide what they are told to hide, in the answer and in the error the listener reports', async () => {
    const t = await buildTestApp({ env: HOSTED });
    apps.push(t);
    const relay = await request(t.app).post('/sandbox/relays').set(bearer(DEMO_API_KEY)).send({}).expect(200);
    const hub = t.deps.relays;
    const relayId = relay.body.relayId as string;
    const notARelay: WebhookSender = { send: () => Promise.reject(new Error('not a relay')) };
    const sender = relayAwareSender(hub, notARelay);
    const accountId = DEMO_ACCOUNT_ID;
    const secret = 'the-secret-token-of-the-endpoint';
    // A listener on this relay that answers with what it got, then with an error that names it.
    const answers = [
      (body: string | null) => ({
        type: 'answer' as const,
        status: 200,
        headers: {},
        body: `{"got": ${body ?? 'null'}}`,
      }),
      () => ({ type: 'error' as const, error: `refused ${secret}` }),
    ];
    const detach = await hub.attach(relayId, (req) => {
      void hub.answer(relayId, req.requestId, answers.shift()!(req.body));
    });
    try {
      const send = () =>
        sender.send({
          method: 'POST',
          url: relay.body.endpoint as string,
          body: { confirmationToken: secret },
          timeoutMs: 2000,
          accountId,
          hide: [secret],
        });
      const answered = await send();
      expect(answered.responseExcerpt).toBe(`{"got": {"confirmationToken":"${HIDDEN}"}}`);
      const failed = await send();
      expect(failed.error).toBe(`refused ${HIDDEN}`);
    } finally {
      await detach();
    }
  });
});
