// What both sample integrations share, and what is not the integration itself: where the
// sandbox is, signing a user in through the login form (a real app shows that page in a
// browser), a webhook receiver on this machine, and the sandbox controls the samples use to
// make things happen (alerts, drills). Node 20 or later, no dependencies.
import { once } from 'node:events';
import { createServer } from 'node:http';

export const config = {
  sandbox: (process.env.SANDBOX_URL || 'http://localhost:8080').replace(/\/+$/, ''),
  // The account's API key: only for the sandbox controls (/sandbox/*); the integration signs in with OAuth.
  apiKey: process.env.WATER_API_KEY || 'demo_api_key_for_the_water_monitoring_sandbox',
  email: process.env.WATER_USER_EMAIL || 'demo@example.com',
  password: process.env.WATER_USER_PASSWORD || 'demo-password',
  clientId: process.env.WATER_CLIENT_ID || 'demo-client',
  clientSecret: process.env.WATER_CLIENT_SECRET || 'demo-client-secret',
  // A native app's redirect URI: the code comes back in the redirect, nothing listens there.
  redirectUri: process.env.WATER_REDIRECT_URI || 'waterapp://callback',
  // The webhook receiver's port on this machine (default: a free one), and the URL the sandbox
  // reaches it at when that is not the receiver's own (a hosted sandbox reaches a laptop through
  // `water-sandbox listen --forward-to http://127.0.0.1:<port>/webhooks`: its relay endpoint).
  receiverPort: Number(process.env.WATER_RECEIVER_PORT || 0),
  webhookUrl: process.env.WATER_WEBHOOK_URL || null,
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function log(message) {
  process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${message}\n`);
}

/** A sandbox control (/sandbox/*) with the account's API key; throws with the sandbox's message. */
export async function sandbox(method, path, body) {
  const res = await fetch(`${config.sandbox}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${config.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await res.json();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${answer.message}`);
  return answer;
}

const unescapeHtml = (text) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * The user signs in on the authorization host's login form; returns the authorization code of
 * the redirect. A real app opens /login in a browser: this fills the form in for it.
 */
export async function signIn() {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
  });
  const page = await fetch(`${config.sandbox}/login?${query}`, { redirect: 'manual' });
  if (page.status !== 200) throw new Error(`GET /login answered ${page.status}`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const hidden = Object.fromEntries(
    [...(await page.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1],
      unescapeHtml(m[2]),
    ]),
  );
  const form = new URLSearchParams({ ...hidden, email: config.email, password: config.password });
  const signedIn = await fetch(`${config.sandbox}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const location = signedIn.headers.get('location');
  const code = location && new URL(location).searchParams.get('code');
  if (!code)
    throw new Error(
      `signing in as ${config.email} failed (${signedIn.status}): check WATER_USER_EMAIL and WATER_USER_PASSWORD`,
    );
  return code;
}

/**
 * A webhook receiver on 127.0.0.1 (a free port), reachable by a sandbox on this machine. Every
 * request is recorded, then answered by `handle(request) -> {status, type, body}`.
 */
export async function startReceiver(handle) {
  const received = [];
  const waiters = [];
  const server = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    let body = null;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      body = text;
    }
    const request = { method: req.method, headers: req.headers, body };
    const answer = await handle(request);
    res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    received.push(request);
    for (const waiter of [...waiters]) if (waiter.test()) waiter.resolve();
  });
  server.listen(config.receiverPort, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}/webhooks`,
    received,
    /** Resolves once a received request matches, or fails after `timeoutMs`. */
    waitFor(matches, what, timeoutMs = 10_000) {
      const test = () => received.some(matches);
      if (test()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`the receiver did not get ${what} within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The receiver got a notification of an alert of this type, starting (active) or ending. */
const isAlert = (type, active) => (r) => r.method === 'POST' && r.body?.type === type && r.body?.active === active;

/**
 * Makes the webhooks happen that the receiver must answer: an alert that starts and ends at the
 * location, then the drills that send a duplicate of the last notification and an alert end of
 * an alert never started. Resolves once the receiver has had all four.
 */
export async function provokeWebhooks(receiver, locationId) {
  const alert = await sandbox('POST', `/sandbox/locations/${locationId}/alerts`, { type: 'lowLeak' });
  await receiver.waitFor(isAlert('lowLeak', true), 'the alert start');
  await sandbox('POST', `/sandbox/locations/${locationId}/alerts/${alert.alertId}/end`);
  await receiver.waitFor(isAlert('lowLeak', false), 'the alert end');
  const before = receiver.received.length;
  await sandbox('POST', '/sandbox/readiness/drills', { drill: 'duplicate-delivery' });
  await sandbox('POST', '/sandbox/readiness/drills', { drill: 'out-of-order' });
  await receiver.waitFor(() => receiver.received.length >= before + 2, 'the duplicate and the out-of-order end');
}

/** Sets up each error drill, then lets the integration make the calls that meet it. */
export async function provokeErrors(client, locationId) {
  await sandbox('POST', '/sandbox/readiness/drills', { drill: 'rate-limit' });
  await client.call('GET', '/v1/locations');
  await sandbox('POST', '/sandbox/readiness/drills', { drill: 'server-errors' });
  await client.call('GET', `/v1/locations/${locationId}`);
  await sandbox('POST', '/sandbox/readiness/drills', { drill: 'expire-tokens' });
  await client.call('GET', '/v1/locations');
}
