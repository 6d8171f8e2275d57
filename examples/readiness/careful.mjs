// A careful integration of the water-monitoring API, and a run that shows the sandbox each
// behaviour production needs. Afterwards `water-sandbox readiness` reports every required
// check passed. Run it against a started sandbox, on a fresh account (docs/readiness.md):
//
//   eval "$(water-sandbox accounts create)"
//   node examples/readiness/careful.mjs
//   water-sandbox readiness
//
// Node 20 or later, no dependencies. It takes about 20 s: it waits out the rate-limit and
// server-error drills as a real client would.
import { config, log, provokeErrors, provokeWebhooks, signIn, sleep, startReceiver } from './harness.mjs';

// ---- The integration: an API client and a webhook receiver, as a partner's app has them ----

/** Calls the API with an OAuth access token: refreshes on 403, waits out 429s, backs off on 5xx. */
class WaterClient {
  #tokens = null;

  /** Exchanges the authorization code of a sign-in for tokens. */
  async connect(code) {
    this.#tokens = await this.#token({ grant_type: 'authorization_code', code, redirect_uri: config.redirectUri });
  }

  async #token(form) {
    const res = await fetch(`${config.sandbox}/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${config.clientId}:${config.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`token request refused: ${answer.error}: ${answer.error_description}`);
    return answer;
  }

  /** One API call. Each failure mode is met the way production expects. */
  async call(method, path, body) {
    let refreshed = false;
    let backoffMs = 1000;
    for (let serverRetries = 0; ;) {
      const res = await fetch(`${config.sandbox}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.#tokens.access_token}`,
          'content-type': 'application/json; charset=utf-8',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      if (res.status === 403 && !refreshed) {
        // The access token expired (or was revoked): one refresh, then the same call again.
        log(`${method} ${path}: 403, refreshing the access token`);
        this.#tokens = await this.#token({ grant_type: 'refresh_token', refresh_token: this.#tokens.refresh_token });
        refreshed = true;
        continue;
      }
      if (res.status === 429) {
        const seconds = Number(res.headers.get('retry-after') ?? '1');
        log(`${method} ${path}: 429, waiting ${seconds} s as Retry-After asks`);
        await sleep(seconds * 1000);
        continue;
      }
      if (res.status >= 500 && serverRetries < 5) {
        log(`${method} ${path}: ${res.status}, retrying in ${backoffMs / 1000} s`);
        await sleep(backoffMs);
        backoffMs *= 2;
        serverRetries++;
        continue;
      }
      const answer = await res.json();
      if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${answer.message}`);
      return answer;
    }
  }

  /**
   * Water usage over a range: every page of it, following pageCount, with endTime pinned to one
   * instant for the whole walk (left to default to now, a new hour during the walk shifts the pages).
   */
  async readings(locationId, range) {
    const path = `/v1/locations/${locationId}/readings/water-usage`;
    const query = { endTime: new Date().toISOString(), ...range };
    const first = await this.call('GET', `${path}?${new URLSearchParams({ ...query, page: '1' })}`);
    const readings = [...first.readings];
    for (let page = 2; page <= first.pageCount; page++) {
      readings.push(
        ...(await this.call('GET', `${path}?${new URLSearchParams({ ...query, page: String(page) })}`)).readings,
      );
    }
    return readings;
  }
}

/**
 * The webhook receiver: answers every request at once with 2xx and JSON (a GET too: production
 * checks the endpoint with one), then handles it. A notification whose X-Sandbox-Delivery-Id it
 * has seen is acknowledged and dropped; an alert end of an alert it never heard start is simply
 * an ended alert.
 */
function carefulReceiver(onConfirmation) {
  const seen = new Set();
  return async (request) => {
    const id = request.headers['x-sandbox-delivery-id'];
    if (request.method === 'POST' && id !== undefined) {
      if (seen.has(id)) return { status: 200, type: 'application/json', body: '{"duplicate":true}' };
      seen.add(id);
      if (request.body?.confirmationUrl) setImmediate(() => onConfirmation(request.body.confirmationUrl));
    }
    return { status: 200, type: 'application/json', body: '{"received":true}' };
  };
}

// ---- The run: the integration meets every case, the rare ones provoked by drills ----

const client = new WaterClient();
let confirm = () => {};
const receiver = await startReceiver(carefulReceiver((url) => confirm(url)));
try {
  await client.connect(await signIn());
  log('signed in through the login form; code exchanged for tokens');
  const { locations } = await client.call('GET', '/v1/locations');
  const locationId = locations[0].locationId;

  const confirmed = new Promise((resolve, reject) => {
    confirm = (url) => client.call('GET', new URL(url).pathname + new URL(url).search).then(resolve, reject);
  });
  const subscription = await client.call('POST', `/v1/locations/${locationId}/subscriptions`, {
    endpoint: config.webhookUrl ?? receiver.url,
  });
  await confirmed;
  await receiver.waitFor((r) => r.method === 'GET', 'the endpoint check (GET)');
  log(`subscription ${subscription.subscriptionId} confirmed`);

  const hours = await client.readings(locationId, {
    startTime: new Date(Date.now() - 8 * 86_400_000).toISOString(),
    groupBy: 'hour',
    perPage: '50',
  });
  const days = await client.readings(locationId, {
    startTime: new Date(Date.now() - 90 * 86_400_000).toISOString(),
    groupBy: 'day',
    perPage: '100',
  });
  log(`readings: ${hours.length} hours and ${days.length} days, every page`);

  await provokeWebhooks(receiver, locationId);
  log('an alert started and ended, a duplicate dropped, an alert end of an unknown alert acknowledged');

  await provokeErrors(client, locationId);
  log('rate limit, server errors and an expired token met');

  await client.call('DELETE', `/v1/subscriptions/${subscription.subscriptionId}`);
  log('done: run `water-sandbox readiness` for the report');
} finally {
  await receiver.close();
}
