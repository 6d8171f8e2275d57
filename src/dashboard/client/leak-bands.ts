/**
 * Leak bands over a time chart: one element per leak, from its start to its end (or the account's
 * now while it runs), never narrower than MIN_LEAK_BAND_PX from its start, so a leak that started a
 * minute ago or lasted six minutes still shows. The bands are elements laid over the chart's canvas
 * (uPlot's `over`), above whatever the canvas draws (the bars, the "now" line), so nothing hides
 * them, and a test or a screen reader can find them. Any chart that can map a time to an x position
 * in CSS pixels of its plot area can use them.
 */

/** The narrowest a band is drawn, in CSS pixels: wider than the "now" line and easy to see on a projector. */
export const MIN_LEAK_BAND_PX = 8;

/** A leak as a chart shows it: when it started and ended (null while it runs), in ms. */
export interface LeakSpan {
  fromMs: number;
  toMs: number | null;
  /** Shown on the band when given (the dashboard leaves it out; a presenter view may say "Leak detected 2:14 AM"). */
  label?: string;
}

/** Where a band goes, in CSS pixels from the plot area's left edge. */
export interface LeakBandBox {
  left: number;
  width: number;
  active: boolean;
  label?: string;
}

/**
 * The boxes of the leaks that fall in the plot area: each from its start, at least `minWidth`
 * wide; one whose start is too near the right edge for that width is moved left just enough to fit.
 */
export function leakBandBoxes(
  leaks: readonly LeakSpan[],
  toX: (ms: number) => number,
  plotWidth: number,
  nowMs: number,
  minWidth = MIN_LEAK_BAND_PX,
): LeakBandBox[] {
  const boxes: LeakBandBox[] = [];
  for (const leak of leaks) {
    const start = toX(leak.fromMs);
    const end = toX(leak.toMs ?? nowMs);
    if (end < 0 || start > plotWidth) continue;
    const left = Math.max(0, start);
    const width = Math.min(plotWidth, Math.max(minWidth, Math.min(end, plotWidth) - left));
    const box: LeakBandBox = { left: Math.min(left, plotWidth - width), width, active: leak.toMs === null };
    if (leak.label !== undefined) box.label = leak.label;
    boxes.push(box);
  }
  return boxes;
}

/** Draws the bands into `layer` (an element laid over the plot area), replacing those drawn before. */
export function renderLeakBands(
  layer: HTMLElement,
  leaks: readonly LeakSpan[],
  toX: (ms: number) => number,
  nowMs: number,
): void {
  const boxes = leakBandBoxes(leaks, toX, layer.clientWidth, nowMs);
  layer.replaceChildren(
    ...boxes.map((box) => {
      const band = document.createElement('div');
      band.className = 'leak-band';
      band.dataset['active'] = String(box.active);
      // CSSOM, which the page's Content-Security-Policy allows (it refuses style attributes in markup).
      band.style.left = `${box.left}px`;
      band.style.width = `${box.width}px`;
      if (box.label !== undefined)
        band.append(Object.assign(document.createElement('span'), { textContent: box.label }));
      return band;
    }),
  );
}
