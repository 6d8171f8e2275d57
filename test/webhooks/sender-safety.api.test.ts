import { NOT_JSON_WARNING } from '../../src/webhooks/assess.js';
import { useAppsAndReceivers } from '../helpers/app-and-receiver.js';
import type { TestApp } from '../helpers/build-test-app.js';
import { eventually } from '../helpers/waiting.js';
import type { WebhookReceiver } from '../helpers/webhook-receiver.js';
import { deliveriesIn, givenSubscription, startAlert } from './support.js';

/**
 * What the sender refuses to do for a partner's endpoint, seen from real receivers: follow a
 * redirect (an allowed endpoint could bounce the sandbox to a private address), or read an
 * answer without limit.
 */

const { buildApp, startReceiver: receiver } = useAppsAndReceivers();
let t: TestApp;

beforeEach(async () => {
  t = await buildApp({ env: { WEBHOOK_TIMEOUT_MS: '8000' } });
});

async function firstAttemptAgainst(r: WebhookReceiver): Promise<Awaited<ReturnType<typeof deliveriesIn>>[number]> {
  await givenSubscription(t, r.url());
  await startAlert(t, { type: 'lowLeak' }).expect(201);
  await t.deps.dispatcher.drain();
  const [delivery] = await deliveriesIn(t);
  return delivery!;
}

describe('redirects', () => {
  it.each([301, 302, 303, 307, 308])(
    'a %i answer is not followed: the attempt failed, the Location is never contacted, a retry is scheduled',
    async (status) => {
      const endpoint = await receiver();
      // Stands for the address a hostile endpoint would bounce the sandbox to.
      const elsewhere = await receiver();
      endpoint.script = [{ status, body: '', headers: { Location: elsewhere.url('/internal') } }];

      const delivery = await firstAttemptAgainst(endpoint);

      expect(elsewhere.received).toEqual([]);
      expect(delivery.state).toBe('pending');
      expect(delivery.attempts).toEqual([
        expect.objectContaining({ statusCode: status, error: `HTTP ${status}: redirects are not followed` }),
      ]);
    },
  );
});

describe('the size of an answer', () => {
  it('stops reading an answer that never ends, and records the attempt at once as a 200', async () => {
    const endpoint = await receiver();
    endpoint.script = [{ endless: true }];

    const delivery = await firstAttemptAgainst(endpoint);

    expect(delivery.state).toBe('delivered');
    // Cut after 64 KiB: what was read is the start of a JSON array, not JSON.
    expect(delivery.attempts).toEqual([
      expect.objectContaining({ statusCode: 200, error: null, warnings: [NOT_JSON_WARNING] }),
    ]);
    expect(delivery.attempts[0]!.responseExcerpt).toMatch(/^\["0123456789abcdef",/);
    expect(delivery.attempts[0]!.responseExcerpt).toHaveLength(500);
    await eventually(() => endpoint.endless[0]?.cutByClient === true);
  });

  it('reads a JSON answer of just under 64 KiB whole (no warning)', async () => {
    const endpoint = await receiver();
    const body = JSON.stringify({ padding: 'x'.repeat(64 * 1024 - 20) });
    expect(Buffer.byteLength(body)).toBeLessThan(64 * 1024);
    endpoint.script = [{ status: 200, body }];

    const delivery = await firstAttemptAgainst(endpoint);

    expect(delivery.attempts).toEqual([expect.objectContaining({ statusCode: 200, error: null, warnings: [] })]);
  });
});
