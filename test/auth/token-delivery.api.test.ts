import { buildTestApp, deliveriesIn, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID } from '../helpers/demo.js';
import { refreshRequest, registerClient, type RegisteredClient, signInThrough } from '../helpers/oauth-clients.js';
import { loginAndGetToken, type OAuthTokens } from '../helpers/oauth.js';
import { refusedDelivery } from '../helpers/refused-delivery.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let receiver: WebhookReceiver;

beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await t.deps.dispatcher.idle();
  await receiver.close();
});

/** A client whose redirect URI is the receiver, and a login through it. */
async function signInThroughReceiver(
  env: Record<string, string> = {},
  redirectUri = receiver.url('/callback'),
  extra: Record<string, unknown> = {},
): Promise<{ tokens: OAuthTokens; client: RegisteredClient }> {
  t = await buildTestApp({ env });
  const client = await registerClient(t.app, {
    applicationName: 'Receiver App',
    description: 'Receives the token POST',
    redirectUri,
    signOutUri: 'https://partner.example/out',
    ...extra,
  });
  return { tokens: await signInThrough(t.app, client, redirectUri), client };
}

const tokenDeliveries = async () => (await deliveriesIn(t)).filter((x) => x.kind === 'token');

describe('token delivery to the redirect URI', () => {
  it('POSTs the token response as JSON to the redirect URI and records it as delivered', async () => {
    const { tokens } = await signInThroughReceiver();
    await t.deps.dispatcher.idle();
    await receiver.waitFor(1);
    const post = receiver.received[0]!;
    expect(post).toMatchObject({ method: 'POST', path: '/callback' });
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    expect(post.body).toEqual(tokens);
    expect(await tokenDeliveries()).toEqual([
      expect.objectContaining({
        accountId: DEMO_ACCOUNT_ID,
        kind: 'token',
        target: receiver.url('/callback'),
        state: 'delivered',
        payload: tokens,
      }),
    ]);
  });

  it('delivers the response of a refresh too', async () => {
    const { tokens, client } = await signInThroughReceiver();
    const refreshed = await refreshRequest(t.app, tokens.refresh_token, client).expect(200);
    await t.deps.dispatcher.idle();
    await receiver.waitFor(2);
    expect(receiver.bodies()).toHaveLength(2);
    expect(receiver.bodies()).toEqual(expect.arrayContaining([tokens, refreshed.body]));
  });

  it('never fails the token request when the redirect URI answers 500, and retries', async () => {
    receiver.fallback = { status: 500, body: '{"error":"down"}' };
    const { tokens } = await signInThroughReceiver();
    await t.deps.dispatcher.idle();
    expect(tokens.token_type).toBe('Bearer');
    const [delivery] = await tokenDeliveries();
    expect(delivery).toMatchObject({ state: 'pending', attempts: [expect.objectContaining({ statusCode: 500 })] });
    receiver.fallback = { status: 200, body: '{"ok":true}' };
    t.clock.advance(1000);
    await t.deps.dispatcher.drain();
    await t.deps.dispatcher.idle();
    expect((await tokenDeliveries())[0]).toMatchObject({ state: 'delivered' });
  });

  it('never fails the token request when nothing listens at the redirect URI', async () => {
    // A privileged port nothing on this machine listens on: a port freed by a closed receiver can
    // be handed to the next server started on port 0 (supertest's), which would answer.
    const deadUrl = 'http://127.0.0.1:9/callback';
    const { tokens } = await signInThroughReceiver({}, deadUrl);
    await t.deps.dispatcher.idle();
    expect(tokens.token_type).toBe('Bearer');
    expect((await tokenDeliveries())[0]).toMatchObject({
      target: deadUrl,
      state: 'pending',
      attempts: [expect.objectContaining({ statusCode: null, error: expect.any(String) })],
    });
  });

  it('is switched off with TOKEN_DELIVERY=false', async () => {
    await signInThroughReceiver({ TOKEN_DELIVERY: 'false' });
    await t.deps.dispatcher.idle();
    expect(await tokenDeliveries()).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('is skipped for a client registered with postTokenToRedirectUri: false', async () => {
    await signInThroughReceiver({}, receiver.url('/callback'), { postTokenToRedirectUri: false });
    await t.deps.dispatcher.idle();
    expect(await tokenDeliveries()).toEqual([]);
    expect(receiver.received).toEqual([]);
  });

  it('is skipped for a custom-scheme redirect URI, which cannot receive a POST', async () => {
    t = await buildTestApp();
    await loginAndGetToken(t.app, { redirectUri: 'waterapp://callback' });
    expect(await tokenDeliveries()).toEqual([]);
  });

  it('is refused at connection for a loopback redirect URI when BLOCK_PRIVATE_ENDPOINTS=true: logged as blocked, not retried, nothing sent', async () => {
    await signInThroughReceiver({ BLOCK_PRIVATE_ENDPOINTS: 'true' });
    await t.deps.dispatcher.idle();
    expect(await tokenDeliveries()).toEqual([
      refusedDelivery('blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)'),
    ]);
    expect(receiver.received).toEqual([]);
  });
});
