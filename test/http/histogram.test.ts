import { Histogram as PromHistogram, Registry } from 'prom-client';

import { Histogram } from '../../src/http/histogram.js';

/** The project's histogram against prom-client's, fed the same observations: /metrics must not tell them apart. */
describe("the per-request histogram is written out as prom-client's", () => {
  const buckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
  const series = [
    { method: 'GET', route: '/v1/locations/:locationId', status: '200' },
    { method: 'POST', route: '/oauth2/token', status: '400' },
    { method: 'GET', route: 'a "quoted" \\ route\nwith a line', status: '200' },
  ];
  // On a bound, between bounds, under the first, past the last, zero.
  const values = [0.0005, 0.0007, 0.00001, 7.5, 0, 0.1, 0.25, 0.3, 5, 0.001, 1e-9, 2.5000001];

  async function both(observe: boolean): Promise<{ ours: string; theirs: string }> {
    const ourRegistry = new Registry();
    const theirRegistry = new Registry();
    const ours = new Histogram<'method' | 'route' | 'status'>({
      name: 'sandbox_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route pattern and status',
      buckets,
      registers: [ourRegistry],
    });
    const theirs = new PromHistogram({
      name: 'sandbox_http_request_duration_seconds',
      help: 'Time to answer HTTP requests, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets,
      registers: [theirRegistry],
    });
    if (observe)
      for (const [i, labels] of series.entries())
        for (const value of values.slice(i)) {
          ours.series(labels).observe(value);
          theirs.labels(labels).observe(value);
        }
    return { ours: await ourRegistry.metrics(), theirs: await theirRegistry.metrics() };
  }

  it('writes the same text, series by series, bucket by bucket', async () => {
    const { ours, theirs } = await both(true);
    expect(ours).toContain('sandbox_http_request_duration_seconds_bucket{le="+Inf",method="GET"');
    expect(ours).toBe(theirs);
  });

  it('writes the same text with no observation yet', async () => {
    const { ours, theirs } = await both(false);
    expect(ours).toBe(theirs);
  });

  it('counts each series apart, and reset brings every count back to none', async () => {
    const registry = new Registry();
    const histogram = new Histogram<'operation'>({ name: 'h', help: 'h', buckets: [1, 2], registers: [registry] });
    const a = histogram.series({ operation: 'a' });
    expect(histogram.series({ operation: 'a' })).toBe(a);
    a.observe(1.5);
    histogram.series({ operation: 'b' }).observe(3);
    expect(Array.from(a.counts)).toEqual([0, 1]);
    expect([a.sum, a.count]).toEqual([1.5, 1]);
    const json = (await registry.getMetricsAsJSON())[0] as { values: { labels: object; value: number }[] };
    expect(json.values).toContainEqual(expect.objectContaining({ labels: { le: '+Inf', operation: 'b' }, value: 1 }));
    registry.resetMetrics();
    expect([a.sum, a.count, ...a.counts]).toEqual([0, 0, 0, 0]);
  });
});
