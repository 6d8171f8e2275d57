/**
 * The top of a water-use chart's axis. A leak's hours can hold a hundred times the household's
 * usual use; an axis that reached them would flatten every other bar to a line. So when bars stand
 * far above the rest (spikes), the axis stops a little above the highest of the rest and the
 * spikes are cut there, marked as cut (the legend and the chart's description keep their values).
 */

/** A bar is a spike when it is more than this many times the upper quartile of the bars with use. */
export const SPIKE_FACTOR = 4;
/** Room above the highest bar the axis shows whole. */
const HEADROOM = 1.15;

export interface UsageScale {
  /** The top of the axis. */
  max: number;
  /** Bars above this are cut at the top of the axis; null when none is. */
  cutAbove: number | null;
}

export function usageScale(values: readonly number[]): UsageScale {
  const withUse = values.filter((v) => v > 0).sort((a, b) => a - b);
  const highest = withUse[withUse.length - 1];
  if (highest === undefined) return { max: 1, cutAbove: null };
  const upperQuartile = withUse[Math.floor((withUse.length - 1) * 0.75)] ?? highest;
  const spikeAbove = upperQuartile * SPIKE_FACTOR;
  const highestUsual = withUse.filter((v) => v <= spikeAbove).at(-1);
  if (highest <= spikeAbove || highestUsual === undefined) return { max: highest * HEADROOM, cutAbove: null };
  const max = highestUsual * HEADROOM;
  return { max, cutAbove: max };
}
