import { buildTestApp, TEST_START } from '../helpers/build-test-app.js';
import { hourlyVolumes } from '../helpers/readings.js';
import { endAlert, startAlert } from '../webhooks/support.js';

// TEST_START is 15:30Z; the hour buckets from 15:00Z.
const FROM_MS = TEST_START.getTime() - 30 * 60_000;

describe('a leak in the readings', () => {
  it('adds its flow to the hours it covers, from startTime to stopTime', async () => {
    const quiet = await buildTestApp();
    quiet.clock.advance(3 * 3_600_000);
    const baseline = await hourlyVolumes(quiet, FROM_MS);

    const t = await buildTestApp();
    // Detected at 15:30Z, so flowing since 15:25Z; ended at 17:00Z.
    const started = await startAlert(t, { type: 'highLeak', peakValue: 10 }).expect(201);
    t.clock.advance(90 * 60_000);
    await endAlert(t, started.body.alertId as string).expect(200);
    t.clock.advance(90 * 60_000);
    const withLeak = await hourlyVolumes(t, FROM_MS);

    expect(withLeak[0]! - baseline[0]!).toBeCloseTo(35 * 10, 0);
    expect(withLeak[1]! - baseline[1]!).toBeCloseTo(60 * 10, 0);
    expect(withLeak[2]!).toBeCloseTo(baseline[2]!, 5);
  });

  it('counts an escalated leak once: the low flow until the high one starts, then the high flow', async () => {
    const quiet = await buildTestApp();
    quiet.clock.advance(3 * 3_600_000);
    const baseline = await hourlyVolumes(quiet, FROM_MS);

    const t = await buildTestApp();
    await startAlert(t, { type: 'lowLeak', peakValue: 1 }).expect(201); // 1 gpm from 15:25Z
    t.clock.advance(35 * 60_000); // 16:05Z: the high leak flows from 16:00Z
    const high = await startAlert(t, { type: 'highLeak', peakValue: 5 }).expect(201);
    t.clock.advance(55 * 60_000); // 17:00Z: back to the low leak
    await endAlert(t, high.body.alertId as string).expect(200);
    t.clock.advance(90 * 60_000);
    const withLeak = await hourlyVolumes(t, FROM_MS);

    expect(withLeak[0]! - baseline[0]!).toBeCloseTo(35 * 1, 0);
    expect(withLeak[1]! - baseline[1]!).toBeCloseTo(60 * 5, 0);
    expect(withLeak[2]! - baseline[2]!).toBeCloseTo(60 * 1, 0);
  });
});
