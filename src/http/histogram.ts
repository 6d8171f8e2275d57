import type { Metric, Registry } from 'prom-client';

/** One labelled series of a Histogram: observed with a comparison per bucket and three additions. */
export class HistogramSeries {
  readonly #bounds: readonly number[];
  /** Observations per bucket (not cumulative: each in the first bucket whose bound holds it). */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    if (i < bounds.length) this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * A Prometheus histogram for the per-request metrics, exposed through prom-client's registry
 * in the same text as prom-client's Histogram (buckets cumulative, then `+Inf`, `_sum` and
 * `_count`, each series' labels after `le`). prom-client's own checks the label names, hashes
 * the labels and looks the bucket up by a number turned into a key at every observation, even
 * through `labels()`: with a series here looked up once, an observation costs a few
 * comparisons, which a request's two or three observations notice on a fast runtime.
 */
export class Histogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, { labels: Record<L, string>; series: HistogramSeries }>();

  constructor(options: { name: string; help: string; buckets: readonly number[]; registers: Registry[] }) {
    this.name = options.name;
    this.help = options.help;
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric);
  }

  /** The series of `labels` (made at its first use); keep it, and observe through it. */
  series(labels: Record<L, string>): HistogramSeries {
    const key = JSON.stringify(labels);
    let found = this.#series.get(key);
    if (!found) {
      found = { labels: { ...labels }, series: new HistogramSeries(this.#bounds) };
      this.#series.set(key, found);
    }
    return found.series;
  }

  /** What prom-client's registry writes out (see Registry.getMetricsAsString). */
  getForPromString(): { name: string; help: string; type: string; values: ExportedValue[]; aggregator: string } {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, series } of this.#series.values()) {
      let cumulative = 0;
      for (const [i, bound] of this.#bounds.entries()) {
        cumulative += series.counts[i] ?? 0;
        values.push({ labels: { le: bound }, sharedLabels: labels, value: cumulative, metricName: bucket });
      }
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: labels, value: series.count, metricName: bucket },
        { labels: {}, sharedLabels: labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: labels, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The same with each series' labels among its values' own (prom-client's `get`, for JSON). */
  get(): Promise<{ name: string; help: string; type: string; values: ExportedValue[]; aggregator: string }> {
    const exported = this.getForPromString();
    exported.values = exported.values.map((v) => ({
      ...v,
      labels: { ...v.labels, ...v.sharedLabels },
      sharedLabels: {},
    }));
    return Promise.resolve(exported);
  }

  /** Every series back to no observation (the registry's resetMetrics). */
  reset(): void {
    for (const { series } of this.#series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
