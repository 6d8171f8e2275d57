import type { Caller } from '../../src/subscriptions/service.js';
import {
  confirmSubscription,
  createSubscription,
  deleteSubscription,
  resendConfirmation,
} from '../../src/subscriptions/service.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { DEMO_ACCOUNT_ID, DEMO_LOCATION_ID, DEMO_LOCATIONS } from '../helpers/demo.js';

const apps: TestApp[] = [];
async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await buildTestApp({ env });
  apps.push(t);
  return t;
}

afterEach(async () => {
  for (const t of apps.splice(0)) await t.deps.dispatcher.idle();
});

const caller = async (t: TestApp): Promise<Caller> => ({ accountId: DEMO_ACCOUNT_ID, doc: await docOf(t) });

/** The confirmation deliveries queued for a subscription, oldest first, with their tokens. */
async function confirmationsOf(t: TestApp, subscriptionId: string): Promise<string[]> {
  const { items } = await t.store.deliveries.list(DEMO_ACCOUNT_ID, {
    subscriptionId,
    kind: 'confirmation',
    offset: 0,
    limit: 50,
  });
  return items.map((d) => (d.payload as { confirmationToken: string }).confirmationToken).reverse();
}

const currentTokens = async (t: TestApp, subscriptionId: string): Promise<string[]> =>
  (await docOf(t)).confirmationTokens
    .filter((c) => c.subscriptionId === subscriptionId && c.usedAt === null)
    .map((c) => c.token);

describe('subscriptions service: one endpoint, one subscription per location', () => {
  it('answers the pending subscription again with a fresh confirmation that replaces the first token', async () => {
    const t = await app();
    const first = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/a');
    const again = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/a');
    expect(again.subscriptionId).toBe(first.subscriptionId);
    expect((await docOf(t)).subscriptions.filter((s) => s.endpoint === 'https://hooks.example/a')).toHaveLength(1);
    const tokens = await confirmationsOf(t, first.subscriptionId);
    expect(tokens).toHaveLength(2);
    expect(await currentTokens(t, first.subscriptionId)).toEqual([tokens[1]]);
  });

  it('answers a confirmed subscription again without sending another confirmation', async () => {
    const t = await app();
    const first = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/b');
    const [token] = await confirmationsOf(t, first.subscriptionId);
    await confirmSubscription(t.deps, await caller(t), first.subscriptionId, token!);
    const again = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/b');
    expect(again).toMatchObject({ subscriptionId: first.subscriptionId, status: 'confirmed' });
    expect(await confirmationsOf(t, first.subscriptionId)).toHaveLength(1);
  });

  it('makes a new subscription for the same endpoint on another location', async () => {
    const t = await app();
    const here = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/c');
    const there = await createSubscription(
      t.deps,
      await caller(t),
      DEMO_LOCATIONS[1]!.locationId,
      'https://hooks.example/c',
    );
    expect(there.subscriptionId).not.toBe(here.subscriptionId);
  });
});

describe('subscriptions service: the cap per location', () => {
  it('refuses the subscription past MAX_SUBSCRIPTIONS_PER_LOCATION, but not an endpoint already held', async () => {
    const t = await app({ MAX_SUBSCRIPTIONS_PER_LOCATION: '2' });
    await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/1');
    await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/2');
    await expect(
      createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/3'),
    ).rejects.toMatchObject({ status: 409 });
    await expect(
      createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/2'),
    ).resolves.toMatchObject({ endpoint: 'https://hooks.example/2' });
    expect((await docOf(t)).subscriptions.filter((s) => s.locationId === DEMO_LOCATION_ID)).toHaveLength(2);
  });
});

describe('subscriptions service: confirmation', () => {
  it('confirms once with the current token, marks it used, and refuses a resend afterwards', async () => {
    const t = await app();
    const created = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/d');
    const old = (await confirmationsOf(t, created.subscriptionId))[0]!;
    const resent = await resendConfirmation(t.deps, await caller(t), created.subscriptionId);
    expect(resent.endpoint).toBe('https://hooks.example/d');
    await expect(confirmSubscription(t.deps, await caller(t), created.subscriptionId, old)).rejects.toMatchObject({
      code: 'invalid_confirmation_token',
    });
    const confirmed = await confirmSubscription(
      t.deps,
      await caller(t),
      created.subscriptionId,
      resent.message.confirmationToken,
    );
    expect(confirmed.status).toBe('confirmed');
    await expect(
      confirmSubscription(t.deps, await caller(t), created.subscriptionId, resent.message.confirmationToken),
    ).rejects.toMatchObject({ code: 'confirmation_token_used' });
    await expect(resendConfirmation(t.deps, await caller(t), created.subscriptionId)).rejects.toMatchObject({
      status: 409,
      code: 'already_confirmed',
    });
  });

  it('deletes the subscription with its tokens', async () => {
    const t = await app();
    const created = await createSubscription(t.deps, await caller(t), DEMO_LOCATION_ID, 'https://hooks.example/e');
    expect(await deleteSubscription(t.deps, await caller(t), created.subscriptionId)).toMatchObject({
      subscriptionId: created.subscriptionId,
    });
    const doc = await docOf(t);
    expect(doc.subscriptions.some((s) => s.subscriptionId === created.subscriptionId)).toBe(false);
    expect(doc.confirmationTokens.some((c) => c.subscriptionId === created.subscriptionId)).toBe(false);
  });
});
