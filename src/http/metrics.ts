import { performance } from 'node:perf_hooks';

import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram as PromHistogram, Registry } from 'prom-client';

import type { Clock } from '../core/clock.js';
import type { Store } from '../store/store.js';
import { afterResponse } from './after-response.js';
import { Histogram, type HistogramSeries } from './histogram.js';
import { routeLabelOf } from './route-label.js';

/**
 * What an operator scrapes from GET /metrics (Prometheus text format), whatever the store:
 * requests by route and status with latencies, webhook attempts and finished deliveries by
 * state, the due-delivery queue's depth and age, accounts stored, and store latency. Counters
 * and histograms are this replica's own (Prometheus sums them over replicas); the gauges read
 * the shared store at each scrape, so every replica reports the same values for them.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Counts and times every request by method, route pattern (never the raw path) and status. */
  readonly requests: RequestHandler;
  /** Times one store operation (see store/instrumented.ts). */
  readonly observeStore: (operation: string, seconds: number) => void;
  /** Counts a recorded webhook attempt (the dispatcher's onAttempt); one refused by BLOCK_PRIVATE_ENDPOINTS also counts as a refused endpoint. */
  readonly observeAttempt: (attempt: {
    kind: string;
    state: string;
    ok: boolean;
    latencyMs: number;
    blockedRange?: string;
  }) => void;
  /** Counts an endpoint refused by a rule: at subscription, or when a connection was about to be made. */
  readonly countRefusedEndpoint: (refusal: { rule: string; range: string; at: 'subscription' | 'connection' }) => void;
  /** Counts a request refused by a limit (a rate, a cap, the body size), by the setting that names it. */
  readonly countLimited: (rule: string) => void;
  /** Counts a wait of due deliveries because their account holds its whole share of the delivery slots. */
  readonly countShareWait: () => void;
  /** Notes requests starting (+1) or ending (-1) a wait for their client's turn (fair-share.ts). */
  readonly noteWaitingRequests: (change: 1 | -1) => void;
  /** The whole exposition, with the gauges read from the store now. */
  render(): Promise<{ contentType: string; body: string }>;
  /** Adds Node's process metrics (heap, event loop lag, GC): for a running server, not for every test app. */
  collectProcessMetrics(): void;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1];

export function createMetrics(sources: { store: Store; clock: Clock }): Metrics {
  const registry = new Registry();
  const labels = ['method', 'route', 'status'] as const;
  // Requests are counted in requestSeries and handed to the counter at each scrape: one
  // prom-client call fewer per request (each validates and hashes its labels).
  new Counter({
    name: 'sandbox_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: labels,
    registers: [registry],
    collect() {
      this.reset();
      for (const series of requestSeries.values()) this.inc(series.values, series.answered);
    },
  });
  // The two histograms every request observes are the project's own (see histogram.ts).
  const requestSeconds = new Histogram<(typeof labels)[number]>({
    name: 'sandbox_http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method, route pattern and status',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const storeSeconds = new Histogram<'backend' | 'operation'>({
    name: 'sandbox_store_operation_duration_seconds',
    help: 'Latency of store operations (lowdb, memory or Redis), by operation',
    buckets: STORE_BUCKETS,
    registers: [registry],
  });
  const attempts = new Counter({
    name: 'sandbox_webhook_attempts_total',
    help: 'Webhook attempts made by this replica, by kind and whether the endpoint accepted it',
    labelNames: ['kind', 'result'],
    registers: [registry],
  });
  const attemptSeconds = new PromHistogram({
    name: 'sandbox_webhook_attempt_duration_seconds',
    help: 'Time webhook endpoints took to answer',
    labelNames: ['kind'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'sandbox_webhook_deliveries_total',
    help: 'Deliveries this replica finished, by kind and final state (delivered or failed); retried ones count once, at the end',
    labelNames: ['kind', 'state'],
    registers: [registry],
  });
  const refusedEndpoints = new Counter({
    name: 'sandbox_refused_endpoints_total',
    help: 'Webhook endpoints refused, by rule (BLOCK_PRIVATE_ENDPOINTS or ENDPOINT_POLICY), range (the address range, or the policy) and where (subscription or connection)',
    labelNames: ['rule', 'range', 'at'],
    registers: [registry],
  });
  const limited = new Counter({
    name: 'sandbox_limited_requests_total',
    help: 'Requests refused by a limit (a rate, a cap or the body size), by the setting that names it',
    labelNames: ['rule'],
    registers: [registry],
  });
  const shareWaits = new Counter({
    name: 'sandbox_webhook_account_share_waits_total',
    help: "Times an account's due deliveries waited because it held its whole share of this replica's delivery slots",
    registers: [registry],
  });
  const waitingRequests = new Gauge({
    name: 'sandbox_http_requests_waiting',
    help: "Requests waiting their turn behind their client's others on this replica (MAX_CONCURRENT_REQUESTS)",
    registers: [registry],
  });
  const accounts = new Gauge({ name: 'sandbox_accounts', help: 'Accounts stored', registers: [registry] });
  const dueDeliveries = new Gauge({
    name: 'sandbox_webhook_queue_due_deliveries',
    help: 'Pending deliveries due now, across accounts',
    registers: [registry],
  });
  const dueAccounts = new Gauge({
    name: 'sandbox_webhook_queue_due_accounts',
    help: 'Accounts with work due now (deliveries or scenario steps)',
    registers: [registry],
  });
  const oldestAge = new Gauge({
    name: 'sandbox_webhook_queue_oldest_age_seconds',
    help: 'How long the longest-waiting due work has waited (0 when none)',
    registers: [registry],
  });
  const backend = sources.store.backend;
  // The labelled series, looked up once each.
  const requestSeries = new Map<
    string,
    {
      values: Record<(typeof labels)[number], string>;
      answered: number;
      seconds: HistogramSeries;
    }
  >();
  const storeSeries = new Map<string, HistogramSeries>();
  for (const state of ['delivered', 'failed'])
    for (const kind of ['confirmation', 'alert']) deliveries.inc({ kind, state }, 0);

  return {
    registry,
    requests: (req, res, next) => {
      const started = performance.now();
      afterResponse(res, () => {
        const key = `${req.method} ${routeLabelOf(req, res)} ${res.statusCode}`;
        let series = requestSeries.get(key);
        if (series === undefined) {
          const values = { method: req.method, route: routeLabelOf(req, res), status: String(res.statusCode) };
          series = { values, answered: 0, seconds: requestSeconds.series(values) };
          requestSeries.set(key, series);
        }
        series.answered++;
        series.seconds.observe((performance.now() - started) / 1000);
      });
      next();
    },
    observeStore: (operation, seconds) => {
      let series = storeSeries.get(operation);
      if (series === undefined) {
        series = storeSeconds.series({ backend, operation });
        storeSeries.set(operation, series);
      }
      series.observe(seconds);
    },
    observeAttempt: ({ kind, state, ok, latencyMs, blockedRange }) => {
      attempts.inc({ kind, result: ok ? 'accepted' : 'refused' });
      attemptSeconds.observe({ kind }, latencyMs / 1000);
      if (state !== 'pending') deliveries.inc({ kind, state });
      if (blockedRange !== undefined)
        refusedEndpoints.inc({ rule: 'BLOCK_PRIVATE_ENDPOINTS', range: blockedRange, at: 'connection' });
    },
    countRefusedEndpoint: (refusal) => refusedEndpoints.inc(refusal),
    countLimited: (rule) => limited.inc({ rule }),
    countShareWait: () => shareWaits.inc(),
    noteWaitingRequests: (change) => waitingRequests.inc(change),
    render: async () => {
      const nowMs = sources.clock.now().getTime();
      const [count, queue] = await Promise.all([sources.store.accounts.count(), sources.store.deliveries.queue(nowMs)]);
      accounts.set(count);
      dueDeliveries.set(queue.dueDeliveries);
      dueAccounts.set(queue.dueAccounts);
      oldestAge.set(queue.oldestDueMs === null ? 0 : Math.max(0, nowMs - queue.oldestDueMs) / 1000);
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
    collectProcessMetrics: () => collectDefaultMetrics({ register: registry }),
  };
}
