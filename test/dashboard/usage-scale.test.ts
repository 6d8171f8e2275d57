import { SPIKE_FACTOR, usageScale } from '../../src/dashboard/client/usage-scale.js';

describe("usageScale: the top of the water-use chart's axis", () => {
  const usualDay = [0, 0, 1.5, 4, 12, 25, 18, 9, 6, 7, 11, 31, 22, 14, 5, 2];

  it('reaches a little above the highest bar when no bar stands far above the rest', () => {
    expect(usageScale(usualDay)).toEqual({ max: 31 * 1.15, cutAbove: null });
  });

  it("stops above the usual use when a leak's hours stand far above it, and cuts them there", () => {
    const scale = usageScale([...usualDay, 742, 388]);
    expect(scale).toEqual({ max: 31 * 1.15, cutAbove: 31 * 1.15 });
  });

  it(`counts a bar as a spike only above ${SPIKE_FACTOR} times the upper quartile of the bars with use`, () => {
    // Upper quartile 20: 80 is usual, 81 a spike.
    const bars = [10, 10, 10, 20, 20, 20, 20, 20];
    expect(usageScale([...bars, 80]).cutAbove).toBeNull();
    expect(usageScale([...bars, 81]).cutAbove).toBeCloseTo(20 * 1.15);
  });

  it('keeps a long leak that is most of the window whole: its hours are the usual then', () => {
    const leak = Array.from({ length: 30 }, () => 400);
    expect(usageScale([...usualDay, ...leak])).toEqual({ max: 400 * 1.15, cutAbove: null });
  });

  it('gives an axis of 1 to a window without use', () => {
    expect(usageScale([])).toEqual({ max: 1, cutAbove: null });
    expect(usageScale([0, 0, 0])).toEqual({ max: 1, cutAbove: null });
  });
});
