import request from 'supertest';

import type { Link, Scene } from '../../src/demo/view-types.js';
import { listen } from '../auth/listening.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, DEMO_USER, OTHER_API_KEY } from '../helpers/demo.js';
import { DemoStream, openPresenter, pageData, type Presenter } from '../helpers/presenter.js';
import { givenPendingSubscription } from '../helpers/subscriptions.js';
import { eventually } from '../helpers/waiting.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
let presenter: Presenter;
const streams: DemoStream[] = [];

async function start(env: Record<string, string> = {}): Promise<void> {
  t = await buildTestApp({ env });
  server = await listen(t.app);
  t.deps.urls.publicUrl = server.baseUrl;
  presenter = await openPresenter(server.baseUrl);
}
afterEach(async () => {
  for (const s of streams.splice(0)) s.close();
  t.deps.demoStreams.closeAll();
  await t.deps.dispatcher.idle();
  await server.close();
});

async function share(who: Presenter = presenter): Promise<Link & { token: string }> {
  const answer = await who.call<Link>('POST', '/demo/links');
  if (answer.status !== 201)
    throw new Error(`POST /demo/links answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return { ...answer.body, token: answer.body.url.split('/').at(-1)! };
}

async function open(url: string, cookie?: string): Promise<DemoStream> {
  const stream = await DemoStream.open(url, cookie);
  streams.push(stream);
  return stream;
}

const HOUR_MS = 3_600_000;

describe('POST /demo/links (Share)', () => {
  beforeEach(() => start());

  it('makes an unguessable link that lives 4 hours of real time, listed for the presenter, never cached', async () => {
    const answer = await presenter.call<Link>('POST', '/demo/links');
    expect(answer.status).toBe(201);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const link = answer.body;
    expect(link.url).toMatch(new RegExp(`^${server.baseUrl}/demo/watch/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(link.expiresAt) - Date.parse(link.createdAt)).toBe(4 * HOUR_MS);
    expect(link.createdAt).toBe(t.clock.now().toISOString());
    const second = await share();
    expect(second.url).not.toBe(link.url);
    const listed = await presenter.call<{ links: Link[] }>('GET', '/demo/links');
    expect(listed.body.links.map((l) => l.linkId)).toEqual([link.linkId, second.linkId]);
    expect(listed.headers.get('cache-control')).toBe('no-store');
  });

  it('shows the same view to anyone with the link, without sign-in, and nothing secret in it or what it loads', async () => {
    // A pending subscription: its confirmation (with its token) is in the delivery log, and on the partner's side.
    const receiver = await WebhookReceiver.start();
    try {
      const { confirmationToken } = await givenPendingSubscription(t, receiver);
      await presenter.call('PUT', '/demo/view', { prospect: 'Acme Insurance' });
      const { url } = await share();
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('cache-control')).toBe('no-store');
      const page = await res.text();
      const config = pageData(page, 'config');
      expect(config).toEqual({
        role: 'audience',
        token: url.split('/').at(-1),
        expiresText: expect.stringMatching(/in 4 hours$/),
      });
      const scene = pageData(page, 'scene');
      expect(scene.prospect).toBe('Acme Insurance');
      expect(scene.cards.map((c) => c.headline)).toEqual([
        "Connection check sent to Acme Insurance's endpoint",
        "Request to confirm the subscription sent to Acme Insurance's endpoint",
      ]);
      expect(scene.cards[1]?.raw.body).toContain('"confirmationToken": "[hidden]"');
      const assets = [...page.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets).toHaveLength(2);
      const loaded = [page, await (await fetch(`${url}/scene`)).text()];
      for (const asset of assets) loaded.push(await (await fetch(`${server.baseUrl}${asset}`)).text());
      const doc = await docOf(t);
      const secrets = [
        DEMO_API_KEY,
        DEMO_USER.password,
        'demo-client-secret',
        confirmationToken,
        presenter.config.csrfToken,
        ...doc.accessTokens.map((a) => a.accessToken),
        ...doc.refreshTokens.map((r) => r.refreshToken),
        ...doc.users.map((u) => u.passwordHash),
      ];
      for (const text of loaded) for (const secret of secrets) expect(text.includes(secret) ? secret : null).toBeNull();
      expect(pageData(page, 'scene')).toEqual((await presenter.call<Scene>('GET', '/demo/scene')).body);
    } finally {
      await receiver.close();
    }
  });

  it('refuses every change through the link: no method but GET, no presenter route, no sandbox control', async () => {
    const { url } = await share();
    const before = await docOf(t);
    for (const path of ['', '/scene', '/events'])
      for (const method of ['POST', 'PUT', 'DELETE'])
        expect([method, path, (await fetch(`${url}${path}`, { method })).status]).toEqual([method, path, 405]);
    for (const [method, path] of [
      ['POST', '/demo/story'],
      ['POST', '/demo/story/play'],
      ['PUT', '/demo/view'],
      ['POST', '/demo/links'],
      ['POST', '/sandbox/clock'],
      ['POST', `/sandbox/locations/${DEMO_LOCATION_ID}/alerts`],
    ] as const)
      expect([
        method,
        path,
        (await fetch(`${server.baseUrl}${path}`, { method, headers: { referer: url } })).status,
      ]).toEqual([method, path, 401]);
    expect(await docOf(t)).toEqual(before);
  });

  it('a revoked link is a 404 page, its scene a 404, and its open stream ends at once', async () => {
    const link = await share();
    const stream = await open(`${link.url}/events`);
    await stream.scene();
    const revoked = await presenter.call<Link>('DELETE', `/demo/links/${link.linkId}`);
    expect([revoked.status, revoked.body.linkId]).toEqual([200, link.linkId]);
    await stream.end();
    expect(stream.messages.at(-1)).toEqual({ type: 'gone', reason: expect.stringContaining('ended this link') });
    const page = await fetch(link.url);
    expect([page.status, page.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect(await page.text()).toContain('This demo link has ended');
    expect((await fetch(`${link.url}/scene`)).status).toBe(404);
    expect((await fetch(`${link.url}/events`)).status).toBe(404);
    expect((await presenter.call('DELETE', `/demo/links/${link.linkId}`)).status).toBe(404);
    expect((await presenter.call<{ links: Link[] }>('GET', '/demo/links')).body.links).toEqual([]);
  });

  it('expires on real time, 4 hours after it was made, whatever the account clock does', async () => {
    const { url } = await share();
    // A story moves the account clock by days: the link lives on.
    await request(t.app)
      .post('/sandbox/clock')
      .set(bearer(DEMO_API_KEY))
      .send({ advanceSeconds: 7 * 86_400 })
      .expect(200);
    t.clock.advance(4 * HOUR_MS - 1);
    expect((await fetch(url)).status).toBe(200);
    t.clock.advance(1);
    expect((await fetch(url)).status).toBe(404);
    expect((await fetch(`${url}/scene`)).status).toBe(404);
    expect((await presenter.call<{ links: Link[] }>('GET', '/demo/links')).body.links).toEqual([]);
  });

  it('an unknown token, or one of another shape, is a 404', async () => {
    for (const token of ['x', 'A'.repeat(43), '..%2F..%2Fdemo'])
      expect((await fetch(`${server.baseUrl}/demo/watch/${token}`)).status).toBe(404);
  });

  it("shows its own account only, and another account's presenter can neither list nor revoke it", async () => {
    const link = await share();
    const other = await openPresenter(server.baseUrl, { email: 'other@example.com', password: 'other-password' });
    const seen = (await (await fetch(`${link.url}/scene`)).json()) as Scene;
    expect(seen.location?.name).toBe('Maple Street Home');
    expect((await other.call<{ links: Link[] }>('GET', '/demo/links')).body.links).toEqual([]);
    expect((await other.call('DELETE', `/demo/links/${link.linkId}`)).status).toBe(404);
    expect((await fetch(link.url)).status).toBe(200);
    const theirs = await share(other);
    expect(((await (await fetch(`${theirs.url}/scene`)).json()) as Scene).location?.name).toBe('Desert Bungalow');
    // The other account's API key reaches nothing of the demo account's view either.
    await request(t.app).get('/demo/scene').set(bearer(OTHER_API_KEY)).expect(401);
  });

  it('an audience stream follows the account live: an alert shows as it is delivered', async () => {
    const { url } = await share();
    await presenter.call('POST', '/demo/story', { scenario: 'cold-snap', speed: 3600 });
    const stream = await open(`${url}/events`);
    expect(await stream.first()).toEqual({ type: 'hello' });
    await stream.scene((s) => s.story?.state === 'ready');
    await presenter.story('play');
    await t.deps.dispatcher.idle();
    const scene = await stream.scene((s) => s.cards.some((c) => c.tone === 'ok'));
    expect(scene.cards[0]?.headline).toBe("Freezing risk alert sent to your app's endpoint");
    expect(scene.phone.notifications[0]).toMatchObject({ active: true, title: 'Freezing risk' });
  });
});

describe('the bounds of the audience', () => {
  beforeEach(() => start({ MAX_DEMO_LINKS: '2', MAX_DEMO_VIEWERS: '2' }));

  it('refuses a link past MAX_DEMO_LINKS with 409 limit_reached naming it; an expired one frees its place', async () => {
    await share();
    t.clock.advance(HOUR_MS);
    await share();
    const refused = await presenter.call<{ error: string; message: string }>('POST', '/demo/links');
    expect([refused.status, refused.body.error]).toEqual([409, 'limit_reached']);
    expect(refused.body.message).toContain('MAX_DEMO_LINKS=2');
    t.clock.advance(3 * HOUR_MS);
    await share();
    expect((await presenter.call<{ links: Link[] }>('GET', '/demo/links')).body.links).toHaveLength(2);
    expect((await docOf(t)).demo?.links).toHaveLength(2);
  });

  it('refuses a stream past MAX_DEMO_VIEWERS (the presenter counts) with 409 limit_reached, and frees it when one closes', async () => {
    const { url } = await share();
    await open(`${server.baseUrl}/demo/events`, presenter.cookie);
    const viewer = await open(`${url}/events`);
    await viewer.scene();
    const refused = await fetch(`${url}/events`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toContain('MAX_DEMO_VIEWERS=2');
    const { accountId } = (await docOf(t)).account;
    viewer.close();
    await eventually(() => t.deps.demoStreams.count(accountId) < 2);
    const again = await open(`${url}/events`);
    expect((await again.scene()).location?.name).toBe('Maple Street Home');
  });
});
