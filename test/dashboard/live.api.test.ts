import { get, type IncomingMessage } from 'node:http';

import express from 'express';
import request from 'supertest';

import { dashboardRouter } from '../../src/dashboard/index.js';
import { DASHBOARD_PATHS, type LiveMessage, type PageConfig } from '../../src/dashboard/page-config.js';
import { LiveStreams } from '../../src/live/index.js';
import { listen } from '../auth/listening.js';
import { buildTestApp, docOf, type TestApp } from '../helpers/build-test-app.js';
import { signInToDashboard } from '../helpers/dashboard-sign-in.js';
import { bearer, DEMO_API_KEY, DEMO_LOCATION_ID, OTHER_API_KEY } from '../helpers/demo.js';
import { csrfTokenOf, unescapeHtml } from '../helpers/html.js';

let t: TestApp;
let server: Awaited<ReturnType<typeof listen>>;
beforeEach(async () => {
  t = await buildTestApp();
  server = await listen(t.app);
});
afterEach(async () => {
  t.deps.liveStreams.closeAll();
  await t.deps.dispatcher.idle();
  await server.close();
});

/** A browser's sign-in with fetch: the session cookie, and the page's configuration. */
async function signIn(): Promise<{ cookie: string; config: PageConfig }> {
  const { cookie, page } = await signInToDashboard(server.baseUrl);
  return { cookie, config: JSON.parse(unescapeHtml(/data-config="([^"]*)"/.exec(page)![1]!)) as PageConfig };
}

/** The browser signs out with the form of the signed-in page. */
async function signOut(cookie: string): Promise<void> {
  const page = await (await fetch(`${server.baseUrl}/`, { headers: { cookie } })).text();
  await fetch(`${server.baseUrl}/dashboard/sign-out`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrfTokenOf(page) }),
  });
}

/** An event stream as a browser's EventSource reads it: messages parsed, comments counted. */
class Stream {
  readonly messages: LiveMessage[] = [];
  comments = 0;
  #buffer = '';
  #waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly response: IncomingMessage) {
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end: number;
      while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        if (block.startsWith(':')) this.comments += 1;
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) this.messages.push(JSON.parse(data.slice(6)) as LiveMessage);
      }
      this.#wake();
    });
    response.on('close', () => {
      this.closed = true;
      this.#wake();
    });
  }

  static open(cookie?: string, baseUrl = server.baseUrl): Promise<Stream> {
    return new Promise((resolve, reject) => {
      get(
        `${baseUrl}${DASHBOARD_PATHS.events}`,
        { headers: { accept: 'text/event-stream', ...(cookie ? { cookie } : {}) } },
        (res) => resolve(new Stream(res)),
      ).on('error', reject);
    });
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Resolves with the first message (from the start of the stream) that matches. */
  async next<T extends LiveMessage['type']>(
    type: T,
    matches: (m: Extract<LiveMessage, { type: T }>) => boolean = () => true,
  ): Promise<Extract<LiveMessage, { type: T }>> {
    for (;;) {
      const found = this.messages.find(
        (m): m is Extract<LiveMessage, { type: T }> =>
          m.type === type && matches(m as Extract<LiveMessage, { type: T }>),
      );
      if (found) return found;
      if (this.closed) throw new Error(`the stream closed before a ${type} message`);
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async until(condition: () => boolean): Promise<void> {
    while (!condition()) {
      if (this.closed) return;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  close(): void {
    this.response.destroy();
  }
}

describe('GET /dashboard/events', () => {
  it("streams the account's events to the signed-in browser as server-sent events", async () => {
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers['cache-control']).toBe('no-store');
    await stream.next('hello');

    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 60 }).expect(200);
    expect(await stream.next('clock')).toMatchObject({ offsetSeconds: 60, frozen: false });
    await request(t.app)
      .put(`/v1/locations/${DEMO_LOCATION_ID}`)
      .set(bearer(DEMO_API_KEY))
      .send({ homeAway: 'away' })
      .expect(200);
    expect(await stream.next('location')).toEqual({ type: 'location', locationId: DEMO_LOCATION_ID, homeAway: 'away' });
    await request(t.app).get('/v1/locations/nope').set(bearer(DEMO_API_KEY)).expect(404);
    expect(await stream.next('request', (m) => m.status === 404)).toEqual({
      type: 'request',
      method: 'GET',
      path: '/v1/locations/nope',
      status: 404,
    });
    stream.close();
  });

  it('tells of the home/away and device changes of scenario steps, each once it is stored', async () => {
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie);
    await stream.next('hello');
    const homeAwayNow = async (): Promise<string> =>
      (await request(t.app).get(`/v1/locations/${DEMO_LOCATION_ID}`).set(bearer(DEMO_API_KEY)).expect(200)).body
        .homeAway as string;
    const run = (scenario: string) =>
      request(t.app)
        .post(`/sandbox/scenarios/${scenario}/runs`)
        .set(bearer(DEMO_API_KEY))
        .send({ locationId: DEMO_LOCATION_ID })
        .expect(201);

    const locationEvents = () => stream.messages.filter((m) => m.type === 'location');
    const runId = async (scenario: string): Promise<string> => (await run(scenario)).body.runId as string;
    // A step's location event comes before the run's event of that step.
    const awayLeak = await runId('away-leak');
    await stream.next('run', (m) => m.runId === awayLeak && m.nextStep === 1);
    expect(locationEvents()).toEqual([{ type: 'location', locationId: DEMO_LOCATION_ID, homeAway: 'away' }]);
    expect(await homeAwayNow()).toBe('away');
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 86_400 }).expect(200);
    await stream.next('run', (m) => m.runId === awayLeak && m.state === 'completed');
    expect(locationEvents().at(-1)).toEqual({ type: 'location', locationId: DEMO_LOCATION_ID, homeAway: 'home' });
    expect(await homeAwayNow()).toBe('home');

    // A device that loses its connection and gets it back (monitor-offline, at +6 h and +8 h).
    const before = locationEvents().length;
    const offline = await runId('monitor-offline');
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 86_400 }).expect(200);
    await stream.next('run', (m) => m.runId === offline && m.state === 'completed');
    expect(locationEvents().slice(before)).toEqual([
      { type: 'location', locationId: DEMO_LOCATION_ID, homeAway: 'home' },
      { type: 'location', locationId: DEMO_LOCATION_ID, homeAway: 'home' },
    ]);
    stream.close();
  });

  it('tells of subscriptions created, confirmed and deleted', async () => {
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie);
    await stream.next('hello');
    const created = await request(t.app)
      .post(`/v1/locations/${DEMO_LOCATION_ID}/subscriptions`)
      .set(bearer(DEMO_API_KEY))
      .send({ endpoint: 'http://127.0.0.1:9/hooks' })
      .expect(200);
    const subscriptionId = (created.body as { subscriptionId: string }).subscriptionId;
    expect(await stream.next('subscription')).toEqual({
      type: 'subscription',
      subscriptionId,
      locationId: DEMO_LOCATION_ID,
      status: 'pending',
    });
    const token = (await docOf(t)).confirmationTokens.find((c) => c.subscriptionId === subscriptionId)!.token;
    await request(t.app)
      .get(`/v1/subscriptions/${subscriptionId}/confirm?confirmationToken=${token}`)
      .set(bearer(DEMO_API_KEY))
      .expect(200);
    await stream.next('subscription', (m) => m.status === 'confirmed');
    await request(t.app).delete(`/v1/subscriptions/${subscriptionId}`).set(bearer(DEMO_API_KEY)).expect(200);
    await stream.next('subscription', (m) => m.status === 'deleted');
    stream.close();
  });

  it('hears nothing of another account', async () => {
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie);
    await stream.next('hello');
    await request(t.app).post('/sandbox/clock').set(bearer(OTHER_API_KEY)).send({ advanceSeconds: 60 }).expect(200);
    await request(t.app).post('/sandbox/clock').set(bearer(DEMO_API_KEY)).send({ advanceSeconds: 120 }).expect(200);
    await stream.next('clock');
    expect(stream.messages.filter((m) => m.type === 'clock')).toEqual([
      expect.objectContaining({ offsetSeconds: 120 }),
    ]);
    stream.close();
  });

  it('refuses a browser that is not signed in with 401', async () => {
    const stream = await Stream.open();
    expect(stream.response.statusCode).toBe(401);
    await stream.until(() => stream.closed);
  });

  it("unsubscribes from the account's channel when the browser goes away", async () => {
    const { cookie, config } = await signIn();
    const accountId = (await docOf(t)).account.accountId;
    const stream = await Stream.open(cookie);
    await stream.next('hello');
    expect(t.deps.liveStreams.count(accountId)).toBe(1);
    stream.close();
    await new Promise<void>((resolve) => {
      const check = (): void => (t.deps.liveStreams.count(accountId) === 0 ? resolve() : void setImmediate(check));
      check();
    });
    // Publishing afterwards reaches no stream and breaks nothing.
    await request(t.app).post('/sandbox/clock').set(bearer(config.accessToken)).send({ advanceSeconds: 1 }).expect(200);
  });

  const dashboards: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of dashboards.splice(0)) await close();
  });

  /** The dashboard's routes alone, on a registry of streams with other limits; closed after the test. */
  async function dashboardWith(
    limits: Partial<LiveStreams['limits']>,
  ): Promise<{ streams: LiveStreams; baseUrl: string }> {
    const streams = new LiveStreams({ store: t.store }, { ...t.deps.liveStreams.limits, ...limits });
    const listening = await listen(express().use(dashboardRouter({ ...t.deps, liveStreams: streams })));
    dashboards.push(async () => {
      streams.closeAll();
      await listening.close();
    });
    return { streams, baseUrl: listening.baseUrl };
  }

  it('answers 409 limit_reached once an account has as many streams open as allowed (MAX_OPEN_STREAMS)', async () => {
    const limited = await dashboardWith({ perAccount: 1 });
    const { cookie } = await signIn();
    const first = await Stream.open(cookie, limited.baseUrl);
    expect(first.response.statusCode).toBe(200);
    const second = await Stream.open(cookie, limited.baseUrl);
    expect(second.response.statusCode).toBe(409);
    first.close();
  });

  it('sends heartbeats, and ends the stream with signed-out once the session is gone', async () => {
    const fast = await dashboardWith({ heartbeatMs: 20 });
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie, fast.baseUrl);
    await stream.next('hello');
    await stream.until(() => stream.comments >= 2);
    await signOut(cookie);
    await stream.next('signed-out');
    await stream.until(() => stream.closed);
    expect(stream.closed).toBe(true);
    expect(fast.streams.count((await docOf(t)).account.accountId)).toBe(0);
  });

  it('ends every stream when the registry is closed (shutdown)', async () => {
    const { cookie } = await signIn();
    const stream = await Stream.open(cookie);
    await stream.next('hello');
    t.deps.liveStreams.closeAll();
    await stream.until(() => stream.closed);
    expect(stream.closed).toBe(true);
  });
});

describe('POST /dashboard/token', () => {
  const renew = (cookie: string | undefined, csrf: string | undefined): Promise<Response> =>
    fetch(`${server.baseUrl}${DASHBOARD_PATHS.token}`, {
      method: 'POST',
      headers: { ...(cookie ? { cookie } : {}), ...(csrf ? { 'x-csrf-token': csrf } : {}) },
    });

  it('gives the page a working token again after real time ran past its expiry', async () => {
    const { cookie, config } = await signIn();
    const ttlSeconds = t.deps.config.accessTokenTtlSeconds;
    t.clock.advance((ttlSeconds + 60) * 1000);
    expect((await request(t.app).get('/v1/locations').set(bearer(config.accessToken)).expect(403)).body.error).toBe(
      'token_expired',
    );
    const res = await renew(cookie, config.csrfToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const fresh = (await res.json()) as { accessToken: string; expiresAt: string; expiresIn: number };
    expect(fresh.accessToken).not.toBe(config.accessToken);
    expect(fresh).toMatchObject({
      expiresAt: new Date(t.clock.now().getTime() + ttlSeconds * 1000).toISOString(),
      expiresIn: ttlSeconds,
    });
    await request(t.app).get('/v1/locations').set(bearer(fresh.accessToken)).expect(200);
    // Renewed again while fresh: the same token, not a new one per call, with the seconds it has left.
    t.clock.advance(10_000);
    expect(await (await renew(cookie, config.csrfToken)).json()).toEqual({ ...fresh, expiresIn: ttlSeconds - 10 });
  });

  it("refuses a signed-in request without the page's CSRF token (403) and a browser that is not signed in (401)", async () => {
    const { cookie, config } = await signIn();
    expect((await renew(cookie, undefined)).status).toBe(403);
    expect((await renew(cookie, 'not-the-token')).status).toBe(403);
    expect((await renew(undefined, config.csrfToken)).status).toBe(401);
    await signOut(cookie);
    const anonymous = await fetch(`${server.baseUrl}/`);
    const anonymousCookie = anonymous.headers.get('set-cookie')!.split(';')[0]!;
    const anonymousCsrf = csrfTokenOf(await anonymous.text());
    const refused = await renew(anonymousCookie, anonymousCsrf);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('signed_out');
  });
});

describe('the demo receiver', () => {
  it('answers GET and POST with JSON, 200 or the status its URL asks for', async () => {
    expect((await request(t.app).post(DASHBOARD_PATHS.demoReceiver).send({ any: 'thing' }).expect(200)).body).toEqual({
      received: true,
    });
    await request(t.app).get(DASHBOARD_PATHS.demoReceiver).expect(200).expect('Content-Type', /json/);
    expect(
      (await request(t.app).post(`${DASHBOARD_PATHS.demoReceiver}?status=503`).send({}).expect(503)).body.error,
    ).toBe('demo_failure');
    await request(t.app).post(`${DASHBOARD_PATHS.demoReceiver}?status=99`).send({}).expect(400);
    await request(t.app).delete(DASHBOARD_PATHS.demoReceiver).expect(405);
  });
});
