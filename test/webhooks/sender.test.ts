import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import { AddressGuard, type ResolvedAddress } from '../../src/webhooks/address-policy.js';
import { createWebhookSender, USER_AGENT, type WebhookRequest } from '../../src/webhooks/sender.js';
import { WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * The real sender on its own, against real receivers on loopback: what it sends, what it keeps
 * of the answer, and what it refuses before anything goes out.
 */

let receiver: WebhookReceiver;
beforeEach(async () => {
  receiver = await WebhookReceiver.start();
});
afterEach(async () => {
  await receiver.close();
});

const loopback: ResolvedAddress[] = [{ address: '127.0.0.1', family: 4 }];
/** A resolver that knows only `receiver.test`, on loopback, where the receivers listen. */
const resolve = (host: string): Promise<ResolvedAddress[]> =>
  host === 'receiver.test'
    ? Promise.resolve(loopback)
    : Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
/** The receiver's URL under another host name. */
const onHost = (host: string, path = '/hooks'): string => {
  const url = new URL(receiver.url(path));
  url.hostname = host;
  return url.toString();
};
const post = (url: string, extra: Partial<WebhookRequest> = {}): WebhookRequest => ({
  method: 'POST',
  url,
  body: { hello: 'world' },
  timeoutMs: 5000,
  ...extra,
});

describe('what the sender sends', () => {
  it("POSTs the body as JSON with its length, our headers, then the request's own", async () => {
    const sender = createWebhookSender({ guard: null });
    const answer = await sender.send(
      post(receiver.url(), { headers: { 'X-Sandbox-Attempt': '2', Accept: 'text/plain' } }),
    );
    expect(answer).toMatchObject({ statusCode: 200, error: null, responseExcerpt: '{"ok":true}', bodyIsJson: true });
    const [got] = receiver.received;
    expect(got).toMatchObject({ method: 'POST', path: '/hooks', rawBody: '{"hello":"world"}' });
    expect(got!.headers).toMatchObject({
      'user-agent': USER_AGENT,
      accept: 'text/plain',
      'content-type': 'application/json',
      'content-length': '17',
      'x-sandbox-attempt': '2',
    });
    // Connections to an origin are kept for its next deliveries.
    expect(got!.headers['connection']).toBe('keep-alive');
  });

  it('measures the time of each attempt, from the start of the send to its answer', async () => {
    receiver.script = [{ status: 200, body: '{}', delayMs: 50 }];
    const started = performance.now();
    const answer = await createWebhookSender({ guard: null }).send(post(receiver.url()));
    const wallMs = performance.now() - started;
    expect(answer.statusCode).toBe(200);
    // Timers may fire a millisecond early against performance.now.
    expect(answer.latencyMs).toBeGreaterThanOrEqual(49);
    expect(answer.latencyMs).toBeLessThanOrEqual(Math.ceil(wallMs));
  });

  it('speaks TLS to an https URL and checks the certificate: a self-signed one is refused', async () => {
    const { generate } = await import('selfsigned');
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keyType: 'ec', curve: 'P-256' });
    const server = createHttpsServer({ cert: pems.cert, key: pems.private }, (_req, res) => res.end('{}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await createWebhookSender({ guard: null }).send(post(`https://127.0.0.1:${port}/hooks`));
      expect(answer).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(
          /^(DEPTH_ZERO_SELF_SIGNED_CERT|ERR_TLS_CERT_ALTNAME_INVALID|SELF_SIGNED_CERT_IN_CHAIN): /,
        ),
      });
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('sends a GET without a body or a Content-Type', async () => {
    const sender = createWebhookSender({ guard: null });
    await sender.send({ method: 'GET', url: receiver.url('/check'), timeoutMs: 5000 });
    const [got] = receiver.received;
    expect(got).toMatchObject({ method: 'GET', path: '/check', rawBody: '' });
    expect(got!.headers['content-type']).toBeUndefined();
    expect(got!.headers['accept']).toBe('application/json');
  });

  it('keeps the first 500 characters of the answer, and whether the whole of it is JSON', async () => {
    const sender = createWebhookSender({ guard: null });
    const long = JSON.stringify({ text: 'x'.repeat(2000) });
    receiver.script = [
      { status: 201, body: long },
      { status: 500, body: 'Internal <b>error</b>', contentType: 'text/html' },
    ];
    expect(await sender.send(post(receiver.url()))).toMatchObject({
      statusCode: 201,
      responseExcerpt: long.slice(0, 500),
      bodyIsJson: true,
      error: null,
    });
    expect(await sender.send(post(receiver.url()))).toMatchObject({
      statusCode: 500,
      responseExcerpt: 'Internal <b>error</b>',
      bodyIsJson: false,
      error: null,
    });
  });

  it('resolves names through the injected resolver when nothing is checked', async () => {
    const sender = createWebhookSender({ guard: null, resolve });
    expect(await sender.send(post(onHost('receiver.test')))).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.received).toHaveLength(1);
  });
});

describe('answers it does not follow or read whole', () => {
  it('takes a redirect as the answer: the Location gets nothing', async () => {
    const elsewhere = await WebhookReceiver.start();
    try {
      receiver.script = [{ status: 307, body: '', headers: { Location: elsewhere.url() } }];
      expect(await createWebhookSender({ guard: null }).send(post(receiver.url()))).toMatchObject({
        statusCode: 307,
        error: null,
      });
      expect(elsewhere.received).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('stops reading after 64 KiB: an answer without end comes back at once, cut', async () => {
    receiver.script = [{ endless: true }];
    const answer = await createWebhookSender({ guard: null }).send(post(receiver.url(), { timeoutMs: 8000 }));
    expect(answer).toMatchObject({ statusCode: 200, error: null, bodyIsJson: false });
    expect(answer.responseExcerpt).toHaveLength(500);
  });

  it('stops at exactly 64 KiB: an answer that pauses there comes back at once, not at the timeout', async () => {
    const server = createHttpServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('x'.repeat(64 * 1024));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await createWebhookSender({ guard: null }).send(
        post(`http://127.0.0.1:${port}/hooks`, { timeoutMs: 8000 }),
      );
      expect(answer).toMatchObject({
        statusCode: 200,
        error: null,
        bodyIsJson: false,
        responseExcerpt: 'x'.repeat(500),
      });
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('reads an answer of just under 64 KiB whole', async () => {
    const body = JSON.stringify({ padding: 'x'.repeat(64 * 1024 - 20) });
    receiver.script = [{ status: 200, body }];
    expect(await createWebhookSender({ guard: null }).send(post(receiver.url()))).toMatchObject({
      statusCode: 200,
      bodyIsJson: true,
    });
  });
});

describe('what goes wrong on the way', () => {
  it('names a timeout with the time allowed', async () => {
    receiver.script = [{ hang: true }];
    const answer = await createWebhookSender({ guard: null }).send(post(receiver.url(), { timeoutMs: 100 }));
    expect(answer).toMatchObject({
      statusCode: null,
      error: 'timed out after 100 ms',
      responseExcerpt: null,
      bodyIsJson: false,
    });
    expect(answer.latencyMs).toBeGreaterThanOrEqual(99);
  });

  it('names a refused connection by its code', async () => {
    const url = receiver.url();
    await receiver.close();
    const answer = await createWebhookSender({ guard: null }).send(post(url));
    expect(answer).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^ECONNREFUSED: connect ECONNREFUSED 127\.0\.0\.1:\d+$/),
      responseExcerpt: null,
      bodyIsJson: false,
    });
    receiver = await WebhookReceiver.start();
  });

  it('refuses what is not an http(s) URL without trying', async () => {
    const sender = createWebhookSender({ guard: null });
    expect(await sender.send(post('not a url'))).toMatchObject({ statusCode: null, error: 'not a URL: not a url' });
    expect(await sender.send(post('ftp://127.0.0.1/hooks'))).toMatchObject({
      statusCode: null,
      error: 'not an http(s) URL: ftp://127.0.0.1/hooks',
    });
  });
});

describe('BLOCK_PRIVATE_ENDPOINTS in the sender', () => {
  it('refuses an address host before connecting: nothing reaches the receiver, and the answer says why', async () => {
    const sender = createWebhookSender({ guard: new AddressGuard({ resolve }) });
    const answer = await sender.send(post(receiver.url()));
    expect(answer).toMatchObject({
      statusCode: null,
      error: 'blocked: 127.0.0.1 is a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
      responseExcerpt: null,
      bodyIsJson: false,
      blocked: { host: '127.0.0.1', address: '127.0.0.1', range: 'loopback' },
    });
    expect(receiver.received).toEqual([]);
  });

  it('refuses a name when its connection resolves it to a private address: nothing reaches the receiver', async () => {
    const sender = createWebhookSender({ guard: new AddressGuard({ resolve }) });
    const answer = await sender.send(post(onHost('receiver.test')));
    expect(answer).toMatchObject({
      statusCode: null,
      error: 'blocked: receiver.test resolves to 127.0.0.1, a loopback address (BLOCK_PRIVATE_ENDPOINTS)',
      blocked: { host: 'receiver.test', address: '127.0.0.1', range: 'loopback' },
    });
    expect(receiver.received).toEqual([]);
  });

  it('refuses an https name when its connection resolves it to a private address: the TLS agent checks it too', async () => {
    const sender = createWebhookSender({ guard: new AddressGuard({ resolve }) });
    const answer = await sender.send(post(onHost('receiver.test').replace('http:', 'https:')));
    expect(answer).toMatchObject({
      statusCode: null,
      blocked: { host: 'receiver.test', address: '127.0.0.1', range: 'loopback' },
    });
    expect(receiver.received).toEqual([]);
  });

  it('connects where the guard allows it', async () => {
    const sender = createWebhookSender({
      guard: new AddressGuard({ resolve, treatAsPublic: (address) => address === '127.0.0.1' }),
    });
    expect(await sender.send(post(onHost('receiver.test')))).toMatchObject({ statusCode: 200, error: null });
    expect(await sender.send(post(receiver.url()))).toMatchObject({ statusCode: 200, error: null });
    expect(receiver.received).toHaveLength(2);
  });
});
