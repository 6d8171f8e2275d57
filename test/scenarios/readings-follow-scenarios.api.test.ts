import { buildTestApp, TEST_START } from '../helpers/build-test-app.js';
import { hourlyVolumes } from '../helpers/readings.js';
import { advance, startScenario } from './given.js';

// TEST_START is 15:30Z: readings from the next whole hour, 16:00Z.
const hourStart = TEST_START.getTime() + 30 * 60_000;

/** The demo location's first three hours of use four hours on, on a fresh app: with the scenario started at TEST_START, or quiet. */
async function volumesFourHoursOn(scenario?: string): Promise<number[]> {
  const t = await buildTestApp();
  if (scenario) await startScenario(t, scenario);
  await advance(t, 4 * 3600).expect(200);
  return hourlyVolumes(t, hourStart);
}

describe('readings tell the same story as a scenario', () => {
  it('add the leak flow of slow-leak-escalates to the hours it covers', async () => {
    const baseline = await volumesFourHoursOn();
    const withLeak = await volumesFourHoursOn('slow-leak-escalates');

    // 16:00-17:00Z: the 6.5 gpm burst until it was fixed at 16:10 (start + 40 min), then the slow leak's 0.4 gpm again.
    expect(withLeak[0]! - baseline[0]!).toBeCloseTo(10 * 6.5 + 50 * 0.4, 0);
    // 17:00-18:00Z: the slow leak until it was repaired at 17:30 (TEST_START + 2 h).
    expect(withLeak[1]! - baseline[1]!).toBeCloseTo(30 * 0.4, 0);
    expect(withLeak[2]).toBeCloseTo(baseline[2]!, 5);
  });

  it('scale the use of the hours a setUsage step covers (monitor-offline: x2.5)', async () => {
    const baseline = await volumesFourHoursOn();
    const scaled = await volumesFourHoursOn('monitor-offline');
    // Volumes are rounded to thousandths of a gallon.
    scaled.forEach((v, i) => expect(v).toBeCloseTo(baseline[i]! * 2.5, 2));
  });
});
