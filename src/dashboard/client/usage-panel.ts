import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import type { Paged, Reading, SandboxAlert, Summary } from '../api-types.js';
import type { Context } from './context.js';
import { byId } from './dom.js';
import { gallons, shortTime } from './format.js';

export type ChartView = 'hour' | 'day' | 'month';

interface ViewSpec {
  groupBy: ChartView;
  /** Buckets shown; one more is asked for and the first, partial one dropped. */
  buckets: number;
  /** How far back to ask, in seconds, to get at least buckets + 1 of them. */
  lookbackSeconds: number;
  unit: string;
  caption: string;
}

const VIEWS: Record<ChartView, ViewSpec> = {
  hour: {
    groupBy: 'hour',
    buckets: 48,
    lookbackSeconds: 49 * 3600,
    unit: 'gallons per hour',
    caption: 'the last 48 hours, by hour',
  },
  day: {
    groupBy: 'day',
    buckets: 30,
    lookbackSeconds: 31 * 86400,
    unit: 'gallons per day',
    caption: 'the last 30 days, by day',
  },
  month: {
    groupBy: 'month',
    buckets: 12,
    lookbackSeconds: 400 * 86400,
    unit: 'gallons per month',
    caption: 'the last 12 months, by month',
  },
};

const CHART_HEIGHT = 240;
const BAR_COLOR = '#1f6fa8';
const LEAK_FILL = 'rgba(179, 38, 30, 0.16)';
const NOW_COLOR = '#8a1c12';

/**
 * The selected location's water use as a bar chart (uPlot on a canvas): hours, days or months
 * in the location's time zone, leak alerts shaded, the account's virtual now marked, and the
 * value under the pointer in the legend. Below it, today / this month / this year.
 */
export class UsagePanel {
  #view: ChartView = 'hour';
  #plot: uPlot | null = null;
  #leaks: { from: number; to: number }[] = [];
  #nowSeconds = 0;
  #seq = 0;

  constructor(private readonly ctx: Context) {
    for (const button of document.querySelectorAll<HTMLButtonElement>('[data-view]')) {
      button.addEventListener('click', () => {
        this.#view = (button.dataset['view'] as ChartView | undefined) ?? 'hour';
        this.ctx.refresh('usage');
      });
    }
    new ResizeObserver(() => this.#plot?.setSize({ width: this.#width(), height: CHART_HEIGHT })).observe(
      byId('chart'),
    );
    ctx.onSelect(() => ctx.refresh('usage'));
  }

  #width(): number {
    return Math.max(260, Math.floor(byId('chart').clientWidth));
  }

  async refresh(): Promise<void> {
    const nowMs = this.ctx.clock.nowMs();
    if (nowMs === null) return;
    const seq = ++this.#seq;
    const view = VIEWS[this.#view];
    const locationId = this.ctx.selected;
    const path = `/v1/locations/${encodeURIComponent(locationId)}/readings/water-usage`;
    const nowSeconds = Math.floor(nowMs / 1000);
    const [readings, alerts, summary] = await Promise.all([
      this.ctx.api.get<Paged & { readings: Reading[] }>(
        `${path}?startTime=${nowSeconds - view.lookbackSeconds}&groupBy=${view.groupBy}&perPage=100`,
      ),
      this.ctx.api.get<{ alerts: SandboxAlert[] }>(
        `/sandbox/locations/${encodeURIComponent(locationId)}/alerts?perPage=100`,
      ),
      this.ctx.api.get<Summary>(`${path}/summary`),
    ]);
    if (seq !== this.#seq) return;
    this.#nowSeconds = nowSeconds;
    this.#leaks = alerts.alerts
      .filter((a) => this.ctx.alertTypes.get(a.type)?.leak === true)
      .map((a) => ({ from: a.startTime, to: a.active || a.stopTime === 0 ? nowSeconds : a.stopTime }));
    this.#draw(readings.readings.slice(-view.buckets), view);
    byId('today').textContent = gallons(summary.today);
    byId('this-month').textContent = gallons(summary.thisMonth);
    byId('this-year').textContent = gallons(summary.thisYear);
  }

  #draw(readings: Reading[], view: ViewSpec): void {
    const zone = this.ctx.zoneOf();
    const xs = readings.map((r) => Date.parse(r.time) / 1000);
    const ys = readings.map((r) => r.volume);
    for (const button of document.querySelectorAll<HTMLButtonElement>('[data-view]'))
      button.setAttribute('aria-pressed', String(button.dataset['view'] === view.groupBy));
    byId('chart-caption').textContent =
      `${capitalize(view.unit)}, ${view.caption}, in ${zone}. Shaded: leaks. Red line: the account's now.`;
    const chart = byId('chart');
    chart.dataset['view'] = view.groupBy;
    chart.dataset['buckets'] = String(readings.length);
    chart.dataset['leaks'] = String(this.#leaks.length);
    this.#plot?.destroy();
    this.#plot = null;
    if (readings.length === 0) {
      chart.replaceChildren(
        Object.assign(document.createElement('p'), {
          className: 'empty',
          textContent: 'No readings in this period: the monitor was installed later. Try a shorter view.',
        }),
      );
      return;
    }
    chart.replaceChildren();
    const last = xs[xs.length - 1] ?? this.#nowSeconds;
    const span = xs.length > 1 ? last - (xs[xs.length - 2] ?? last) : 3600;
    const bars = uPlot.paths.bars;
    const opts: uPlot.Options = {
      width: this.#width(),
      height: CHART_HEIGHT,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
      legend: { live: true },
      cursor: { points: { show: false } },
      scales: {
        x: { time: true, range: (_u, min) => [min, Math.max(last + span, this.#nowSeconds)] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        { label: `Time (${zone})`, stroke: '#33434f', grid: { stroke: '#e3ebf1' }, ticks: { stroke: '#c5d2dc' } },
        { label: view.unit, stroke: '#33434f', grid: { stroke: '#e3ebf1' }, ticks: { stroke: '#c5d2dc' }, size: 56 },
      ],
      // A series' value is null where the cursor is on no point, whatever uPlot's types say.
      series: [
        { label: 'Time', value: (_u, ts: number | null) => (ts === null ? '–' : shortTime(ts * 1000, zone)) },
        {
          label: 'Use',
          stroke: BAR_COLOR,
          fill: BAR_COLOR,
          width: 0,
          ...(bars ? { paths: bars({ size: [0.8, 60], align: 1 }) } : {}),
          points: { show: false },
          value: (_u, v: number | null) => (v === null ? '–' : gallons(v)),
        },
      ],
      hooks: { drawClear: [(u) => this.#shadeLeaks(u)], draw: [(u) => this.#markNow(u)] },
    };
    this.#plot = new uPlot(opts, [xs, ys], chart);
    const canvasWrap = this.#plot.root.querySelector('.u-wrap');
    canvasWrap?.setAttribute('role', 'img');
    canvasWrap?.setAttribute('aria-label', describe(readings, view, zone, this.#leaks.length));
  }

  #shadeLeaks(u: uPlot): void {
    const { ctx, bbox } = u;
    ctx.save();
    ctx.fillStyle = LEAK_FILL;
    for (const leak of this.#leaks) {
      const from = Math.max(bbox.left, u.valToPos(leak.from, 'x', true));
      const to = Math.min(bbox.left + bbox.width, u.valToPos(leak.to, 'x', true));
      if (to > from) ctx.fillRect(from, bbox.top, Math.max(to - from, 2), bbox.height);
    }
    ctx.restore();
  }

  #markNow(u: uPlot): void {
    const { ctx, bbox } = u;
    const x = u.valToPos(this.#nowSeconds, 'x', true);
    if (x < bbox.left || x > bbox.left + bbox.width) return;
    ctx.save();
    ctx.strokeStyle = NOW_COLOR;
    ctx.lineWidth = 2 * devicePixelRatio;
    ctx.beginPath();
    ctx.moveTo(x, bbox.top);
    ctx.lineTo(x, bbox.top + bbox.height);
    ctx.stroke();
    ctx.fillStyle = NOW_COLOR;
    ctx.font = `${12 * devicePixelRatio}px system-ui, sans-serif`;
    ctx.textAlign = 'right';
    ctx.fillText('now', x - 4 * devicePixelRatio, bbox.top + 12 * devicePixelRatio);
    ctx.restore();
  }
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** The chart in words, for screen readers: the canvas itself says nothing. */
function describe(readings: Reading[], view: ViewSpec, zone: string, leaks: number): string {
  const total = readings.reduce((sum, r) => sum + r.volume, 0);
  const peak = readings.reduce(
    (best, r) => (r.volume > best.volume ? r : best),
    readings[0] ?? { time: '', volume: 0 },
  );
  return `Water use, ${view.caption}: ${gallons(total)} in all; most ${gallons(peak.volume)} at ${peak.time ? shortTime(peak.time, zone) : '–'}${leaks ? `; ${leaks} leak period${leaks === 1 ? '' : 's'} shaded` : ''}.`;
}
