import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

import { el } from '../../dashboard/client/dom.js';
import type { Scene } from '../view-types.js';

type ChartData = Scene['chart'];

/** A band narrower than this would hide under the "now" line: a leak is always seen. */
const MIN_BAND_PX = 10;
const NORMAL = '#2f74b5';
const AXIS_FONT = '13px system-ui, sans-serif';

/** "9 AM", or "Tue" at midnight, in the zone. */
function hourOrDay(ms: number, timeZone: string): string {
  const hour = new Intl.DateTimeFormat('en-US', { hour: 'numeric', timeZone }).format(ms);
  return hour === '12 AM' ? new Intl.DateTimeFormat('en-US', { weekday: 'short', timeZone }).format(ms) : hour;
}
const LEAK = '#c0392b';

/**
 * The home's water use, hour by hour (uPlot bars on a canvas): normal use in blue, what a leak
 * added stacked on it in red. The gallons axis stops a little above normal use, so a leak's
 * hundreds of gallons never flatten the household's few: a taller bar is cut at the top and its
 * total written there. Leaks are bands from their start (at least MIN_BAND_PX wide), labelled
 * "Leak detected 2:14 AM"; a line marks the account's now. Bands, labels and the line are
 * elements over the canvas, so they are text a screen reader and a test can find.
 */
export class UsageChart {
  #plot: uPlot | null = null;
  #data: ChartData | null = null;
  #zone = 'UTC';
  #nowMs = 0;
  readonly #overlay = el('div', { className: 'chart-overlay' });
  readonly #nowLine = el('div', { className: 'now-line' }, [el('span', { text: 'now' })]);

  constructor(private readonly container: HTMLElement) {
    new ResizeObserver(() => this.#plot?.setSize(this.#size())).observe(container);
  }

  #size(): { width: number; height: number } {
    return { width: Math.max(240, this.container.clientWidth), height: Math.max(120, this.container.clientHeight) };
  }

  show(data: ChartData, zone: string, nowMs: number): void {
    this.#data = data;
    this.#nowMs = nowMs;
    const columns = this.#columns(data);
    if (this.#plot && zone === this.#zone) {
      this.#plot.setData(columns);
    } else {
      this.#zone = zone;
      this.#plot?.destroy();
      this.#plot = new uPlot(this.#options(), columns, this.container);
      const wrap = this.#plot.root.querySelector('.u-wrap');
      wrap?.setAttribute('role', 'img');
      this.#plot.over.append(this.#overlay, this.#nowLine);
    }
    this.#plot.root.querySelector('.u-wrap')?.setAttribute('aria-label', data.summary);
    this.container.dataset['leaks'] = String(data.leaks.length);
  }

  /** Moves the "now" line (the page's clock runs between scenes). */
  moveNow(nowMs: number): void {
    this.#nowMs = nowMs;
    if (this.#plot) this.#placeNow(this.#plot);
  }

  #columns(data: ChartData): uPlot.AlignedData {
    const xs = data.hours.map((h) => h.startMs / 1000);
    // Cut at the cap: the written total says how tall the bar really is.
    const totals = data.hours.map((h) => Math.min(h.normal + h.leak, data.cap));
    const normals = data.hours.map((h) => Math.min(h.normal, data.cap));
    return [xs, totals, normals];
  }

  #options(): uPlot.Options {
    const bars = uPlot.paths.bars;
    const zone = this.#zone;
    return {
      ...this.#size(),
      tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), zone),
      legend: { show: false },
      cursor: { show: false },
      scales: {
        x: { time: true, range: () => [(this.#data?.fromMs ?? 0) / 1000, (this.#data?.toMs ?? 0) / 1000] },
        y: { range: () => [0, this.#data?.cap ?? 1] },
      },
      axes: [
        {
          stroke: '#33434f',
          font: AXIS_FONT,
          grid: { show: false },
          ticks: { stroke: '#c5d2dc' },
          // "9 AM", and the day's name at midnight: never a date in numbers.
          values: (_u, splits) => splits.map((s) => hourOrDay(s * 1000, zone)),
        },
        {
          label: 'gallons per hour',
          labelFont: AXIS_FONT,
          font: AXIS_FONT,
          stroke: '#33434f',
          grid: { stroke: '#e3ebf1' },
          ticks: { stroke: '#c5d2dc' },
          size: 52,
        },
      ],
      series: [
        {},
        {
          label: 'Leak',
          fill: LEAK,
          stroke: LEAK,
          width: 0,
          ...(bars ? { paths: bars({ size: [0.82, 80], align: 1 }) } : {}),
          points: { show: false },
        },
        {
          label: 'Normal use',
          fill: NORMAL,
          stroke: NORMAL,
          width: 0,
          ...(bars ? { paths: bars({ size: [0.82, 80], align: 1 }) } : {}),
          points: { show: false },
        },
      ],
      hooks: { draw: [(u) => this.#drawOverlay(u)] },
    };
  }

  #drawOverlay(u: uPlot): void {
    const data = this.#data;
    if (!data) return;
    const width = u.over.clientWidth;
    const x = (ms: number): number => Math.min(width, Math.max(0, u.valToPos(ms / 1000, 'x')));
    const children: HTMLElement[] = [];
    for (const leak of data.leaks) {
      const left = x(leak.fromMs);
      const right = x(leak.toMs ?? this.#nowMs);
      const bandWidth = Math.max(MIN_BAND_PX, right - left);
      const start = Math.min(left, width - bandWidth);
      // Positions through the CSSOM: the page's Content-Security-Policy refuses style attributes.
      const band = el('div', { className: 'leak-band' });
      band.dataset['active'] = String(leak.toMs === null);
      band.style.left = `${start}px`;
      band.style.width = `${bandWidth}px`;
      children.push(band);
      // The label beside its band, on the side with room.
      const label = el('div', { className: 'leak-label', text: leak.label });
      if (start > width * 0.6) label.style.right = `${width - start - bandWidth}px`;
      else label.style.left = `${start}px`;
      children.push(label);
    }
    const barSpan = u.valToPos(3600, 'x') - u.valToPos(0, 'x');
    for (const hour of data.hours) {
      const total = hour.normal + hour.leak;
      if (total <= data.cap) continue;
      const tag = el('div', { className: 'over-cap', text: `\u2191 ${Math.round(total)} gal` });
      tag.style.left = `${x(hour.startMs) + barSpan / 2}px`;
      children.push(tag);
    }
    this.#overlay.replaceChildren(...children);
    this.#placeNow(u);
  }

  #placeNow(u: uPlot): void {
    const left = u.valToPos(this.#nowMs / 1000, 'x');
    this.#nowLine.hidden = left < 0 || left > u.over.clientWidth;
    this.#nowLine.style.left = `${left}px`;
  }
}
