import request from 'supertest';

import { useAppAndReceiver } from '../helpers/app-and-receiver.js';
import { buildTestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_LOCATIONS, OTHER_API_KEY } from '../helpers/demo.js';
import { sendRaw } from '../helpers/raw-body.js';
import { postSubscription } from '../helpers/subscription-request.js';

const SUBSCRIPTION_KEYS = ['endpoint', 'locationId', 'status', 'subscriptionId'];

const { t, receiver, rebuildApp } = useAppAndReceiver();

async function subscribe(
  locationId = DEMO_LOCATION_ID,
  endpoint = receiver.url(),
): Promise<{ subscriptionId: string; confirmationUrl: string; confirmationToken: string }> {
  const before = receiver.received.filter((r) => r.method === 'POST').length;
  const res = await postSubscription(t, endpoint, locationId).expect(200);
  await t.deps.dispatcher.idle();
  const posts = receiver.received.filter((r) => r.method === 'POST');
  expect(posts.length).toBe(before + 1);
  const message = posts.at(-1)!.body as { confirmationUrl: string; confirmationToken: string };
  return { subscriptionId: res.body.subscriptionId, ...message };
}

/** The confirmation URL's path and query, to call on the in-process app. */
const pathOf = (url: string): string => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describe('creating a subscription', () => {
  it('answers a pending subscription with exactly the documented keys', async () => {
    const res = await postSubscription(t, receiver.url()).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(SUBSCRIPTION_KEYS);
    expect(res.body).toMatchObject({ locationId: DEMO_LOCATION_ID, endpoint: receiver.url(), status: 'pending' });
    expect(res.body.subscriptionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('POSTs {confirmationUrl, confirmationToken} as JSON to the endpoint, with the URL built from PUBLIC_URL', async () => {
    // Hosted by its PUBLIC_URL; the loopback receiver needs the local rules back.
    await rebuildApp({
      env: {
        PUBLIC_URL: 'https://sandbox.example.test/',
        ENDPOINT_POLICY: 'https-or-loopback',
        BLOCK_PRIVATE_ENDPOINTS: 'false',
      },
    });
    const { subscriptionId, confirmationUrl, confirmationToken } = await subscribe();
    const post = receiver.received.find((r) => r.method === 'POST')!;
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(post.body as object).sort()).toEqual(['confirmationToken', 'confirmationUrl']);
    expect(confirmationUrl).toBe(
      `https://sandbox.example.test/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=${confirmationToken}`,
    );
  });

  it('adds the subscription to the location subscriptionIds, and removes it on delete', async () => {
    const { subscriptionId } = await subscribe();
    const withIt = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(withIt.body.subscriptionIds).toEqual([subscriptionId]);
    await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(200);
    const without = await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY));
    expect(without.body.subscriptionIds).toEqual([]);
  });

  it.each([
    [{}, 'endpoint is required'],
    [{ endpoint: 42 }, 'must be a string'],
    [{ endpoint: 'not a url' }, 'absolute URL'],
    [{ endpoint: 'ftp://example.com/hook' }, 'https'],
    [{ endpoint: 'http://example.com/hook' }, 'plain http is accepted only for localhost'],
    [{ endpoint: 'https://example.com/hook', secret: 'x' }, 'remove "secret"'],
  ])('refuses %j with a 400 naming the rule, and stores nothing', async (body, rule) => {
    const res = await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send(body)
      .expect(400);
    expect(res.body.error).toBe('invalid_parameter');
    expect(res.body.message).toContain(rule);
    const list = await request(t.app).get('/v1/subscriptions').set(bearer(DEMO_API_KEY));
    expect(list.body.total).toBe(0);
    expect(receiver.received).toHaveLength(0);
  });

  it.each(['localhost:8080/hooks', '127.0.0.1:8080/hooks', 'example.com/hooks'])(
    'refuses %s, a URL without scheme://, as not absolute (not as a refused scheme)',
    async (endpoint) => {
      const res = await postSubscription(t, endpoint).expect(400);
      expect(res.body).toEqual({
        error: 'invalid_parameter',
        parameter: 'endpoint',
        message: `endpoint must be an absolute URL such as https://example.com/webhooks; got ${JSON.stringify(endpoint)}`,
      });
    },
  );

  it('accepts plain http only on loopback under the default policy, and refuses it under https-only', async () => {
    await postSubscription(t, 'http://localhost:1/x').expect(200);
    const strict = await buildTestApp({ env: { ENDPOINT_POLICY: 'https-only' } });
    const res = await request(strict.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: receiver.url() })
      .expect(400);
    expect(res.body.message).toContain('https-only');
  });

  it('refuses loopback and private endpoints when BLOCK_PRIVATE_ENDPOINTS is on', async () => {
    const hosted = await buildTestApp({ env: { BLOCK_PRIVATE_ENDPOINTS: 'true', ENDPOINT_POLICY: 'any' } });
    for (const endpoint of [
      'http://127.0.0.1:9/x',
      'https://10.1.2.3/x',
      'https://192.168.0.5/x',
      'https://[::1]/x',
      'https://localhost/x',
    ]) {
      const res = await request(hosted.app)
        .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
        .set(bearer(DEMO_API_KEY))
        .send({ endpoint });
      expect({ endpoint, status: res.status }).toEqual({ endpoint, status: 400 });
    }
    await request(hosted.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: 'https://example.com/x' })
      .expect(200);
  });

  it('refuses malformed JSON with a 400 and a body over the limit with a 413', async () => {
    const path = `/v1/locations/${DEMO_LOCATION_ID}/subscriptions`;
    const bad = await sendRaw(t, 'post', path, 'application/json', '{"endpoint": ').expect(400);
    expect(bad.body.error).toBe('invalid_json');
    const big = await postSubscription(t, `https://example.com/${'a'.repeat(200_000)}`).expect(413);
    expect(big.body.error).toBe('payload_too_large');
  });
});

describe('confirming a subscription', () => {
  it('confirms with the token from the confirmation message', async () => {
    const { subscriptionId, confirmationUrl } = await subscribe();
    const res = await request(t.app).get(pathOf(confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(200);
    expect(Object.keys(res.body).sort()).toEqual(SUBSCRIPTION_KEYS);
    expect(res.body).toMatchObject({ subscriptionId, status: 'confirmed' });
    const got = await request(t.app).get(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY));
    expect(got.body.status).toBe('confirmed');
  });

  it('accepts the trailing slash the official Python client sends before the query', async () => {
    const { subscriptionId, confirmationToken } = await subscribe();
    await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm/?confirmationToken=${confirmationToken}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
  });

  it('explains the missing "=" of the official Node client bug', async () => {
    const { subscriptionId, confirmationToken } = await subscribe();
    const res = await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken${confirmationToken}`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    expect(res.body).toMatchObject({ error: 'invalid_parameter', parameter: 'confirmationToken' });
    expect(res.body.message).toContain('no "="');
  });

  it('says a token was already used', async () => {
    const { confirmationUrl } = await subscribe();
    await request(t.app).get(pathOf(confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(200);
    const res = await request(t.app).get(pathOf(confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(400);
    expect(res.body.error).toBe('confirmation_token_used');
  });

  it('says a token is wrong, and keeps the subscription pending', async () => {
    const { subscriptionId } = await subscribe();
    const res = await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=wrong`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    expect(res.body.error).toBe('invalid_confirmation_token');
    const got = await request(t.app).get(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY));
    expect(got.body.status).toBe('pending');
  });

  it('says a token expired once CONFIRMATION_TOKEN_TTL seconds have passed on the clock', async () => {
    await rebuildApp({ env: { CONFIRMATION_TOKEN_TTL: '60' } });
    const { confirmationUrl } = await subscribe();
    t.clock.advance(60_000);
    const res = await request(t.app).get(pathOf(confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(400);
    expect(res.body.error).toBe('confirmation_token_expired');
    expect(res.body.message).toContain('/confirmation');
  });

  it('requires the token', async () => {
    const { subscriptionId } = await subscribe();
    const res = await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm`)
      .set(bearer(DEMO_API_KEY))
      .expect(400);
    expect(res.body.parameter).toBe('confirmationToken');
  });

  it('sends a fresh token on request, which replaces the old one', async () => {
    await rebuildApp({ env: { CONFIRMATION_TOKEN_TTL: '60' } });
    const first = await subscribe();
    t.clock.advance(120_000);
    const res = await request(t.app)
      .post(`/sandbox/subscriptions/${first.subscriptionId}/confirmation`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    await t.deps.dispatcher.idle();
    const resent = receiver.received.filter((r) => r.method === 'POST').at(-1)!.body as {
      confirmationToken: string;
      confirmationUrl: string;
    };
    expect(resent.confirmationToken).toBe(res.body.confirmationToken);
    expect(resent.confirmationToken).not.toBe(first.confirmationToken);
    await request(t.app).get(pathOf(first.confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(400);
    await request(t.app).get(pathOf(resent.confirmationUrl)).set(bearer(DEMO_API_KEY)).expect(200);
    const again = await request(t.app)
      .post(`/sandbox/subscriptions/${first.subscriptionId}/confirmation`)
      .set(bearer(DEMO_API_KEY))
      .expect(409);
    expect(again.body.error).toBe('already_confirmed');
  });
});

describe('listing and deleting', () => {
  it('lists the account subscriptions, per location and overall, in the paged envelope', async () => {
    const a = await subscribe(DEMO_LOCATIONS[0]!.locationId);
    const b = await subscribe(DEMO_LOCATIONS[1]!.locationId);
    const all = await request(t.app).get('/v1/subscriptions').set(bearer(DEMO_API_KEY)).expect(200);
    expect(Object.keys(all.body).sort()).toEqual(['page', 'pageCount', 'perPage', 'subscriptions', 'total']);
    expect(all.body.subscriptions.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([
      a.subscriptionId,
      b.subscriptionId,
    ]);
    const perLocation = await request(t.app)
      .get(`/v1/locations/${DEMO_LOCATIONS[1]!.locationId}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(perLocation.body).toMatchObject({ total: 1, subscriptions: [{ subscriptionId: b.subscriptionId }] });
    const paged = await request(t.app).get('/v1/subscriptions?perPage=1&page=2').set(bearer(DEMO_API_KEY)).expect(200);
    expect(paged.body).toMatchObject({ page: 2, perPage: 1, pageCount: 2, total: 2 });
    expect(paged.body.subscriptions[0].subscriptionId).toBe(b.subscriptionId);
  });

  it('deletes with a 200 JSON body (the official Node client crashes on an empty 200), then answers 404', async () => {
    const { subscriptionId } = await subscribe();
    const res = await request(t.app)
      .delete(`/v1/subscriptions/${subscriptionId}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    expect(res.body).toMatchObject({ subscriptionId, locationId: DEMO_LOCATION_ID });
    await request(t.app).get(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(404);
    await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(404);
  });

  it('keeps accounts apart: another account cannot see, confirm or delete the subscription', async () => {
    const { subscriptionId, confirmationUrl } = await subscribe();
    await request(t.app).get(`/v1/subscriptions/${subscriptionId}`).set(bearer(OTHER_API_KEY)).expect(404);
    await request(t.app).get(pathOf(confirmationUrl)).set(bearer(OTHER_API_KEY)).expect(404);
    await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(OTHER_API_KEY)).expect(404);
    const list = await request(t.app).get('/v1/subscriptions').set(bearer(OTHER_API_KEY)).expect(200);
    expect(list.body.total).toBe(0);
  });
});
