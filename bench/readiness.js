// Integration readiness: GET /sandbox/readiness for an account whose request journal and delivery
// log are full (200 requests of every kind the checks read, 1,000 finished deliveries), next to
// GET /sandbox/requests (the same journal, listed) as the baseline of the same run. Target
// (printed, not asserted): p99 under 50 ms. Two cases: the steady state (the journal is folded
// into the account's digest as it fills, so a report reads what is new), and a report that folds
// the whole journal at once (a digest reset before each request).
import { performance } from 'node:perf_hooks';

import { sequential } from './lib/measure.js';

export const title = 'readiness: GET /sandbox/readiness with a full journal and delivery log';

const DELIVERIES = 1000;
const JOURNAL = 200;
const TARGET_P99_MS = 50;

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** A finished delivery of each kind the webhook checks judge, its first attempt answered as `status`. */
function finishedDelivery(dispatcher, accountId, i, nowMs) {
  const kinds = ['confirmation', 'receiver_check', 'alert', 'alert', 'alert'];
  const kind = kinds[i % kinds.length];
  const record = dispatcher.build(
    {
      accountId,
      kind,
      subscriptionId: `sub-${i % 20}`,
      locationId: null,
      method: kind === 'receiver_check' ? 'GET' : 'POST',
      target: `https://receiver.example/hooks/${i % 20}`,
      payload: { type: 'lowLeak', active: i % 2 === 0 },
    },
    nowMs,
  );
  const status = i % 7 === 0 ? 500 : 200;
  return {
    ...record,
    ...(i % 50 === 0 ? { sentAsId: record.deliveryId, drill: 'duplicate-delivery' } : {}),
    state: status === 200 ? 'delivered' : 'failed',
    dueAtMs: null,
    attempts: [
      {
        at: record.createdAt,
        statusCode: status,
        latencyMs: 3,
        error: status === 200 ? null : 'HTTP 500',
        responseExcerpt: '{}',
        warnings: i % 11 === 0 ? ['not JSON'] : [],
      },
    ],
  };
}

export async function run({ sandbox }) {
  const { store, deps, url, clock } = sandbox;
  const created = await (await fetch(`${url}/sandbox/accounts`, { method: 'POST' })).json();
  const headers = { Authorization: `Bearer ${created.apiKey}` };
  const { accountId } = created;
  const locationId = created.locations[0].locationId;

  const nowMs = clock.now().getTime();
  await store.deliveries.add(
    accountId,
    Array.from({ length: DELIVERIES }, (_, i) => finishedDelivery(deps.dispatcher, accountId, i, nowMs)),
  );

  // The journal filled by real requests, so each entry carries what the routes note: walks
  // through pages, polls, 429s and their retries, 503s, errors.
  const call = (path) => fetch(`${url}${path}`, { headers }).then((res) => res.arrayBuffer());
  const walk = `/v1/locations/${locationId}/readings/water-usage?startTime=2026-03-02T00:00:00Z&endTime=2026-03-10T00:00:00Z&perPage=50`;
  for (let made = 0; made < JOURNAL;) {
    for (let page = 1; page <= 4; page++, made++) await call(`${walk}&page=${page}`);
    await call(`/v1/locations/${locationId}/readings/water-usage/summary`);
    await fetch(`${url}/sandbox/faults`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ status: made % 2 === 0 ? 429 : 503, retryAfter: 1 }),
    });
    await call('/v1/locations');
    await call('/v1/locations');
    await call('/v1/locations/not-a-location');
    clock.advance(1000);
    made += 5;
  }
  const entries = (await store.journal.list(accountId, JOURNAL)).length;
  const { total } = await store.deliveries.list(accountId, { offset: 0, limit: 1 });

  const steady = await sequential(`${url}/sandbox/readiness`, headers, 300, 50);
  const baseline = await sequential(`${url}/sandbox/requests`, headers, 300, 50);

  // The whole journal folded by the request itself: the digest dropped before each one (not timed).
  const fullFold = [];
  for (let i = 0; i < 100; i++) {
    await store.accounts.update(accountId, (d) => {
      delete d.readiness;
    });
    const started = performance.now();
    await call('/sandbox/readiness');
    fullFold.push(performance.now() - started);
  }
  fullFold.sort((a, b) => a - b);

  const line = (name, p50, p99) =>
    `${name.padEnd(52)} p50 ${p50.toFixed(2).padStart(6)} ms   p99 ${p99.toFixed(2).padStart(6)} ms`;
  console.log(`account with ${entries} journal entries and ${total} deliveries (1 connection, one request at a time)`);
  console.log(line('baseline: GET /sandbox/requests (the journal listed)', baseline.p50, baseline.p99));
  console.log(line('GET /sandbox/readiness, journal folded as it filled', steady.p50, steady.p99));
  console.log(
    line('GET /sandbox/readiness, whole journal folded at once', percentile(fullFold, 0.5), percentile(fullFold, 0.99)),
  );
  console.log(
    `ratio of the readiness p50 to the baseline's: ${(steady.p50 / baseline.p50).toFixed(2)} (steady), ${(percentile(fullFold, 0.5) / baseline.p50).toFixed(2)} (whole journal)`,
  );
  const worst = Math.max(steady.p99, percentile(fullFold, 0.99));
  console.log(
    `target: p99 under ${TARGET_P99_MS} ms: ${worst < TARGET_P99_MS ? 'met' : 'NOT met'} (worst p99 ${worst.toFixed(2)} ms)`,
  );
}
