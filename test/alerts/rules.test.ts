import {
  ALERT_TYPE_SPECS,
  ALERT_TYPES,
  alertTimes,
  decideStart,
  fallbackOf,
  resolveStart,
  type StartRequest,
} from '../../src/alerts/rules.js';
import type { AlertRecord, AlertType, LocationRecord } from '../../src/store/data.js';
import { errorOf } from '../helpers/errors.js';

const location = (overrides: Partial<LocationRecord> = {}): LocationRecord => ({
  locationId: 'loc-1',
  accountId: 'acct-1',
  name: 'Home',
  homeAway: 'home',
  timeZone: 'America/New_York',
  installDate: '2024-01-01',
  profile: { householdSize: 2 },
  devices: [
    { deviceId: 'dev-1', type: 'monitor', connected: true, calibrated: true },
    { deviceId: 'dev-2', type: 'monitor', connected: false, calibrated: true },
  ],
  ...overrides,
});

let next = 0;
const alert = (type: AlertType, overrides: Partial<AlertRecord> = {}): AlertRecord => ({
  alertId: `alert-${++next}`,
  accountId: 'acct-1',
  locationId: 'loc-1',
  deviceId: 'dev-1',
  type,
  active: true,
  startTime: 1000,
  detectedTime: 1300,
  stopTime: 0,
  peakValue: 1,
  peakStatus: null,
  flowGpm: 1,
  ...overrides,
});

describe('resolveStart', () => {
  it.each(ALERT_TYPES)('fills realistic defaults for %s, on the first device', (type) => {
    const resolved = resolveStart(location(), { type });
    const spec = ALERT_TYPE_SPECS[type];
    expect(resolved).toEqual({
      requestedType: type,
      type,
      deviceId: 'dev-1',
      peakValue: spec.defaultPeakValue,
      peakStatus: spec.peakStatus,
      flowGpm: spec.leak ? spec.defaultPeakValue : 0,
    });
  });

  it('gives leaks peakStatus null and sensor alerts their direction', () => {
    expect(resolveStart(location(), { type: 'highLeak' }).peakStatus).toBeNull();
    expect(resolveStart(location(), { type: 'ambientTemp' }).peakStatus).toBe('too_low');
    expect(resolveStart(location(), { type: 'waterTemp' }).peakStatus).toBe('too_high');
    expect(resolveStart(location(), { type: 'humidity' }).peakStatus).toBe('too_high');
  });

  it('uses peakValue as the leak flow unless flowGpm is given', () => {
    expect(resolveStart(location(), { type: 'highLeak', peakValue: 8 }).flowGpm).toBe(8);
    expect(resolveStart(location(), { type: 'highLeak', peakValue: 8, flowGpm: 7.5 }).flowGpm).toBe(7.5);
  });

  it.each<[StartRequest, string]>([
    [{ type: 'flood' }, 'type'],
    [{ type: undefined }, 'type'],
    [{ type: 'lowLeak', deviceId: 'nope' }, 'deviceId'],
    [{ type: 'lowLeak', deviceId: 7 }, 'deviceId'],
    [{ type: 'lowLeak', peakValue: 0.05 }, 'peakValue'],
    [{ type: 'lowLeak', peakValue: 3 }, 'peakValue'],
    [{ type: 'highLeak', peakValue: 1 }, 'peakValue'],
    [{ type: 'highLeak', peakValue: 16 }, 'peakValue'],
    [{ type: 'awayLeak', peakValue: 0.1 }, 'peakValue'],
    [{ type: 'ambientTemp', peakValue: 60 }, 'peakValue'],
    [{ type: 'waterTemp', peakValue: 80 }, 'peakValue'],
    [{ type: 'humidity', peakValue: 101 }, 'peakValue'],
    [{ type: 'lowLeak', peakValue: '0.5' }, 'peakValue'],
    [{ type: 'lowLeak', peakValue: Number.NaN }, 'peakValue'],
    [{ type: 'lowLeak', peakStatus: 'too_high' }, 'peakStatus'],
    [{ type: 'ambientTemp', peakStatus: 'too_high' }, 'peakStatus'],
    [{ type: 'ambientTemp', peakStatus: null }, 'peakStatus'],
    [{ type: 'highLeak', flowGpm: -1 }, 'flowGpm'],
    [{ type: 'humidity', flowGpm: 2 }, 'flowGpm'],
  ])('refuses %j with a 400 naming %s', (input, parameter) => {
    const error = errorOf(() => resolveStart(location(), input));
    expect(error.status).toBe(400);
    expect(error.details).toEqual({ parameter });
    expect(error.message).toContain(parameter);
  });

  it('accepts peakStatus when it matches the type', () => {
    expect(resolveStart(location(), { type: 'ambientTemp', peakStatus: 'too_low', peakValue: 31 }).peakValue).toBe(31);
    expect(resolveStart(location(), { type: 'lowLeak', peakStatus: null }).peakStatus).toBeNull();
  });

  it('refuses a disconnected device with 409 device_disconnected', () => {
    const error = errorOf(() => resolveStart(location(), { type: 'lowLeak', deviceId: 'dev-2' }));
    expect(error.status).toBe(409);
    expect(error.code).toBe('device_disconnected');
  });

  it('in away mode, raises a lowLeak or highLeak as awayLeak with the requested flow', () => {
    const away = location({ homeAway: 'away' });
    expect(resolveStart(away, { type: 'lowLeak', peakValue: 0.3 })).toMatchObject({
      requestedType: 'lowLeak',
      type: 'awayLeak',
      peakValue: 0.3,
      flowGpm: 0.3,
    });
    expect(resolveStart(away, { type: 'highLeak' })).toMatchObject({
      requestedType: 'highLeak',
      type: 'awayLeak',
      peakValue: 6,
    });
    expect(resolveStart(away, { type: 'ambientTemp' }).type).toBe('ambientTemp');
  });

  it('at home, leaves leak types as asked', () => {
    expect(resolveStart(location(), { type: 'lowLeak' }).type).toBe('lowLeak');
    expect(resolveStart(location(), { type: 'awayLeak' }).type).toBe('awayLeak');
  });
});

describe('decideStart', () => {
  it('starts a leak when no leak is active', () => {
    expect(decideStart([alert('ambientTemp', { peakStatus: 'too_low' })], 'lowLeak')).toEqual({ outcome: 'started' });
  });

  it('escalates an active lowLeak to highLeak', () => {
    const low = alert('lowLeak');
    expect(decideStart([low], 'highLeak')).toEqual({ outcome: 'escalated', supersedes: low });
  });

  it.each<[AlertType, AlertType]>([
    ['highLeak', 'lowLeak'],
    ['lowLeak', 'lowLeak'],
    ['highLeak', 'highLeak'],
    ['awayLeak', 'lowLeak'],
    ['awayLeak', 'highLeak'],
    ['lowLeak', 'awayLeak'],
  ])('while a %s is active, ignores a %s', (active, requested) => {
    const current = alert(active);
    expect(decideStart([current], requested)).toEqual({ outcome: 'ignored', inForce: current });
  });

  it('does not count a superseded low leak hidden under a high leak as a second leak', () => {
    const high = alert('highLeak');
    const low = alert('lowLeak', { supersededBy: high.alertId, stopTime: 1000 });
    expect(decideStart([low, high], 'lowLeak')).toEqual({ outcome: 'ignored', inForce: high });
  });

  it('allows one active alert per sensor type, beside a leak', () => {
    const cold = alert('ambientTemp', { peakStatus: 'too_low' });
    expect(decideStart([alert('highLeak'), cold], 'ambientTemp')).toEqual({ outcome: 'ignored', inForce: cold });
    expect(decideStart([alert('highLeak'), cold], 'humidity')).toEqual({ outcome: 'started' });
  });

  it('ignores ended alerts', () => {
    expect(decideStart([alert('highLeak', { active: false, stopTime: 2000 })], 'lowLeak')).toEqual({
      outcome: 'started',
    });
  });
});

describe('alertTimes', () => {
  it('dates the start one dwell time before detection: 300 s for leaks and sensors, 15 s for away leaks', () => {
    expect(alertTimes('lowLeak', 10_000)).toEqual({ startTime: 9_700, detectedTime: 10_000 });
    expect(alertTimes('ambientTemp', 10_000)).toEqual({ startTime: 9_700, detectedTime: 10_000 });
    expect(alertTimes('awayLeak', 10_000)).toEqual({ startTime: 9_985, detectedTime: 10_000 });
  });
});

describe('fallbackOf', () => {
  it('finds the active low leak superseded by the high leak', () => {
    const high = alert('highLeak');
    const low = alert('lowLeak', { supersededBy: high.alertId, stopTime: 1000 });
    expect(fallbackOf([low, high], high)).toBe(low);
  });

  it('finds nothing when the low leak was repaired under the high one, or for other types', () => {
    const high = alert('highLeak');
    const repaired = alert('lowLeak', { supersededBy: high.alertId, active: false, stopTime: 1000 });
    expect(fallbackOf([repaired, high], high)).toBeUndefined();
    expect(fallbackOf([], alert('awayLeak'))).toBeUndefined();
  });
});
