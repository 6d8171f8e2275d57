// A naive integration of the water-monitoring API: it works on a good day, and
// `water-sandbox readiness` shows what it would do to production on a bad one. Run it against
// a started sandbox, on a fresh account (docs/readiness.md):
//
//   eval "$(water-sandbox accounts create)"
//   node examples/readiness/naive.mjs
//   water-sandbox readiness --wait 70   # the pagination check fails once a minute has passed
//
// What it gets wrong, each on purpose: it never refreshes its access token, reads only the first
// page of readings, asks for hours over two months, polls in a loop, retries failures at once,
// and its receiver answers with an HTML page. Node 20 or later, no dependencies.
import { config, log, provokeErrors, provokeWebhooks, signIn, startReceiver } from './harness.mjs';

// ---- The integration ----

class NaiveClient {
  #accessToken = null;

  async connect(code) {
    const res = await fetch(`${config.sandbox}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: config.redirectUri }),
    });
    // The refresh token is thrown away.
    this.#accessToken = (await res.json()).access_token;
  }

  /** Tries again at once on any failure, three times, then gives up. */
  async call(method, path, body) {
    let res;
    for (let attempt = 1; attempt <= 4; attempt++) {
      res = await fetch(`${config.sandbox}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.#accessToken}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.ok) return res.json();
    }
    log(`${method} ${path}: gave up after ${res.status}`);
    return null;
  }

  /** The first page only: pageCount is not looked at. */
  async readings(locationId, query) {
    return (
      (await this.call('GET', `/v1/locations/${locationId}/readings/water-usage?${new URLSearchParams(query)}`))
        ?.readings ?? []
    );
  }
}

/** Answers everything with an HTML page; reads confirmations to confirm them. */
function htmlReceiver(onConfirmation) {
  return async (request) => {
    if (request.body?.confirmationUrl) setImmediate(() => onConfirmation(request.body.confirmationUrl));
    return { status: 200, type: 'text/html', body: '<html><body>OK</body></html>' };
  };
}

// ---- The run ----

const client = new NaiveClient();
let confirm = () => {};
const receiver = await startReceiver(htmlReceiver((url) => confirm(url)));
try {
  await client.connect(await signIn());
  const { locations } = await client.call('GET', '/v1/locations');
  const locationId = locations[0].locationId;
  const confirmed = new Promise((resolve) => {
    confirm = (url) => client.call('GET', new URL(url).pathname + new URL(url).search).then(resolve);
  });
  await client.call('POST', `/v1/locations/${locationId}/subscriptions`, { endpoint: receiver.url });
  await confirmed;
  await receiver.waitFor((r) => r.method === 'GET', 'the endpoint check (GET)');
  log('signed in and subscribed');

  await client.readings(locationId, { startTime: new Date(Date.now() - 8 * 86_400_000).toISOString(), perPage: '50' });
  await client.readings(locationId, {
    startTime: new Date(Date.now() - 60 * 86_400_000).toISOString(),
    perPage: '100',
  });
  for (let i = 0; i < 12; i++) await client.call('GET', `/v1/locations/${locationId}/readings/water-usage/summary`);
  log('readings: first pages only; the summary polled 12 times in a row');

  await provokeWebhooks(receiver, locationId);
  log('alerts answered with an HTML page');

  await provokeErrors(client, locationId);
  log('done: run `water-sandbox readiness --wait 70` for the report');
} finally {
  await receiver.close();
}
