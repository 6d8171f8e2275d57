import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import type { Paged, Reading, SandboxAlert, Summary } from '../api-types.js';
import type { Context } from './context.js';
import { byId, el } from './dom.js';
import { capitalize, gallons, shortTime } from './format.js';
import { MIN_LEAK_BAND_PX, renderLeakBands, type LeakSpan } from './leak-bands.js';
import { usageScale, type UsageScale } from './usage-scale.js';

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
/** A bar's share of its bucket's width. */
const BAR_SIZE = 0.8;
const NOW_COLOR = '#8a1c12';

/**
 * The selected location's water use as a bar chart (uPlot on a canvas): hours, days or months
 * in the location's time zone, leak alerts shaded (leak-bands.ts), the account's virtual now
 * marked, spikes cut at the top of the axis (usage-scale.ts), and the value under the pointer in
 * the legend. Below it, today / this month / this year.
 */
export class UsagePanel {
  #view: ChartView = 'hour';
  #plot: uPlot | null = null;
  #leaks: LeakSpan[] = [];
  #nowSeconds = 0;
  #seq = 0;

  constructor(private readonly ctx: Context) {
    for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-view]')) {
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
      .map((a) => ({ fromMs: a.startTime * 1000, toMs: a.active || a.stopTime === 0 ? null : a.stopTime * 1000 }));
    this.#draw(readings.readings.slice(-view.buckets), view);
    byId('today').textContent = gallons(summary.today);
    byId('this-month').textContent = gallons(summary.thisMonth);
    byId('this-year').textContent = gallons(summary.thisYear);
  }

  #draw(readings: Reading[], view: ViewSpec): void {
    const zone = this.ctx.zone;
    const xs = readings.map((r) => Date.parse(r.time) / 1000);
    const ys = readings.map((r) => r.volume);
    const scale = usageScale(ys);
    for (const button of document.querySelectorAll<HTMLButtonElement>('button[data-view]'))
      button.setAttribute('aria-pressed', String(button.dataset['view'] === view.groupBy));
    byId('chart-caption').textContent =
      `${capitalize(view.unit)}, ${view.caption}, in ${zone}. Shaded: leaks. Red line: the account's now.${scale.cutAbove === null ? '' : ` Bars above ${gallons(scale.cutAbove)} are cut short, marked with a break; the legend gives their values.`}`;
    const chart = byId('chart');
    chart.dataset['view'] = view.groupBy;
    chart.dataset['buckets'] = String(readings.length);
    chart.dataset['leaks'] = String(this.#leaks.length);
    chart.dataset['now'] = String(this.#nowSeconds);
    chart.dataset['axisMax'] = String(scale.max);
    chart.dataset['cut'] = String(scale.cutAbove === null ? 0 : ys.filter((y) => y > scale.max).length);
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
    const bandLayer = el('div', { className: 'leak-layer' });
    const opts: uPlot.Options = {
      width: this.#width(),
      height: CHART_HEIGHT,
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
      legend: { live: true },
      cursor: { points: { show: false } },
      scales: {
        x: { time: true, range: (u, min) => [min, this.#rightEdge(u, min, Math.max(last + span, this.#nowSeconds))] },
        y: { range: () => [0, scale.max] },
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
          ...(bars ? { paths: bars({ size: [BAR_SIZE, 60], align: 1 }) } : {}),
          points: { show: false },
          value: (_u, v: number | null) => (v === null ? '–' : gallons(v)),
        },
      ],
      hooks: {
        init: [
          (u) => {
            u.over.append(bandLayer);
          },
        ],
        draw: [
          (u) => {
            this.#markCut(u, scale);
            this.#markNow(u);
            renderLeakBands(bandLayer, this.#leaks, (ms) => u.valToPos(ms / 1000, 'x'), this.#nowSeconds * 1000);
          },
        ],
      },
    };
    this.#plot = new uPlot(opts, [xs, ys], chart);
    const canvasWrap = this.#plot.root.querySelector('.u-wrap');
    canvasWrap?.setAttribute('role', 'img');
    canvasWrap?.setAttribute('aria-label', describe(readings, view, zone, this.#leaks.length, scale));
  }

  /**
   * The x axis's right end: past the last bucket and the account's now, with room after the now
   * for a leak that has just started (its band is MIN_LEAK_BAND_PX wide from its start).
   */
  #rightEdge(u: uPlot, min: number, max: number): number {
    const plotWidth = Math.max(100, u.over.clientWidth || this.#width() - 80);
    const room = ((max - min) * (MIN_LEAK_BAND_PX + 4)) / plotWidth;
    return Math.max(max, this.#nowSeconds + room);
  }

  /** A white break across the top of each bar cut by the axis (the usual mark of a broken axis). */
  #markCut(u: uPlot, scale: UsageScale): void {
    if (scale.cutAbove === null) return;
    const [xs, ys] = u.data as [number[], (number | null)[]];
    const { ctx, bbox } = u;
    const px = devicePixelRatio;
    ctx.save();
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 2 * px;
    for (let i = 0; i < xs.length; i++) {
      const x = xs[i];
      if (x === undefined || (ys[i] ?? 0) <= scale.max) continue;
      const next = xs[i + 1] ?? x + (x - (xs[i - 1] ?? x - 3600));
      const left = u.valToPos(x, 'x', true);
      // The bar's width (its bucket's, less the gap: the series' bar size).
      const right = left + (u.valToPos(next, 'x', true) - left) * BAR_SIZE;
      for (const y of [bbox.top + 18 * px, bbox.top + 24 * px]) {
        ctx.beginPath();
        ctx.moveTo(left, y + 2 * px);
        ctx.lineTo(right, y - 2 * px);
        ctx.stroke();
      }
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

/** The chart in words, for screen readers: the canvas itself says nothing. */
function describe(readings: Reading[], view: ViewSpec, zone: string, leaks: number, scale: UsageScale): string {
  const total = readings.reduce((sum, r) => sum + r.volume, 0);
  const peak = readings.reduce(
    (best, r) => (r.volume > best.volume ? r : best),
    readings[0] ?? { time: '', volume: 0 },
  );
  const cut = scale.cutAbove === null ? '' : `; bars above ${gallons(scale.cutAbove)} cut short`;
  return `Water use, ${view.caption}: ${gallons(total)} in all; most ${gallons(peak.volume)} at ${peak.time ? shortTime(peak.time, zone) : '–'}${leaks ? `; ${leaks} leak period${leaks === 1 ? '' : 's'} shaded` : ''}${cut}.`;
}
