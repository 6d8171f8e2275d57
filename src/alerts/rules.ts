import { conflict, invalidParameter } from '../core/errors.js';
import type { AlertRecord, AlertType, DeepReadonly, LocationRecord } from '../store/data.js';

export type PeakStatus = 'too_high' | 'too_low' | null;

export interface AlertTypeSpec {
  leak: boolean;
  /** Unit of peakValue. */
  unit: 'gpm' | '°F' | '%';
  /** Seconds the reading stays past the threshold before the alert is detected (detectedTime - startTime). */
  dwellSeconds: number;
  defaultPeakValue: number;
  /** Accepted peakValue range; `minExclusive` for "above". */
  min: number;
  max: number;
  minExclusive?: boolean;
  peakStatus: PeakStatus;
  /** What the type means, for error messages. */
  meaning: string;
}

/**
 * Per-type facts. Leak ranges and the away-leak dwell of 15 s come from production's
 * documented realistic values; the 300 s dwell from its examples (detectedTime = startTime + 300).
 */
export const ALERT_TYPE_SPECS: Readonly<Record<AlertType, AlertTypeSpec>> = {
  lowLeak: {
    leak: true,
    unit: 'gpm',
    dwellSeconds: 300,
    defaultPeakValue: 0.5,
    min: 0.1,
    max: 2,
    peakStatus: null,
    meaning: 'a slow leak',
  },
  highLeak: {
    leak: true,
    unit: 'gpm',
    dwellSeconds: 300,
    defaultPeakValue: 6,
    min: 2,
    max: 15,
    peakStatus: null,
    meaning: 'a major leak',
  },
  awayLeak: {
    leak: true,
    unit: 'gpm',
    dwellSeconds: 15,
    defaultPeakValue: 0.5,
    min: 0.1,
    max: 15,
    minExclusive: true,
    peakStatus: null,
    meaning: 'any flow while away',
  },
  ambientTemp: {
    leak: false,
    unit: '°F',
    dwellSeconds: 300,
    defaultPeakValue: 38,
    min: -40,
    max: 50,
    peakStatus: 'too_low',
    meaning: 'room temperature too low',
  },
  // SANDBOX: production documents water temperature and humidity thresholds but not these type names.
  waterTemp: {
    leak: false,
    unit: '°F',
    dwellSeconds: 300,
    defaultPeakValue: 110,
    min: 90,
    max: 200,
    peakStatus: 'too_high',
    meaning: 'water temperature too high',
  },
  humidity: {
    leak: false,
    unit: '%',
    dwellSeconds: 300,
    defaultPeakValue: 75,
    min: 50,
    max: 100,
    peakStatus: 'too_high',
    meaning: 'humidity too high',
  },
};

export const ALERT_TYPES = Object.keys(ALERT_TYPE_SPECS) as AlertType[];

/** Flow in gpm at or above which a leak is unrealistic even for a burst pipe. */
const MAX_FLOW_GPM = 50;

export const isLeakType = (type: AlertType): boolean => ALERT_TYPE_SPECS[type].leak;

export interface StartRequest {
  type: unknown;
  deviceId?: unknown;
  peakValue?: unknown;
  peakStatus?: unknown;
  flowGpm?: unknown;
}

/** A validated start request, with defaults filled in and the away rule applied. */
export interface ResolvedStart {
  /** The type asked for. */
  requestedType: AlertType;
  /** The type raised: a lowLeak or highLeak in away mode becomes awayLeak. */
  type: AlertType;
  deviceId: string;
  peakValue: number;
  peakStatus: PeakStatus;
  flowGpm: number;
}

const rangeText = (spec: AlertTypeSpec): string =>
  `${spec.minExclusive ? 'above' : 'from'} ${spec.min} ${spec.minExclusive ? 'up to' : 'to'} ${spec.max} ${spec.unit}`;

/** Validates a start request against the location (4xx naming the field) and fills the defaults. */
export function resolveStart(location: DeepReadonly<LocationRecord>, input: StartRequest): ResolvedStart {
  const { type } = input;
  if (typeof type !== 'string' || !(ALERT_TYPES as string[]).includes(type)) {
    throw invalidParameter(
      'type',
      `type is required and must be one of ${ALERT_TYPES.join(', ')}; got ${JSON.stringify(type ?? null)}`,
    );
  }
  const requestedType = type as AlertType;
  const spec = ALERT_TYPE_SPECS[requestedType];

  const deviceId = input.deviceId ?? location.devices[0]?.deviceId;
  if (typeof deviceId !== 'string') {
    throw invalidParameter(
      'deviceId',
      `deviceId must be the id of one of the location's devices (${location.devices.map((d) => d.deviceId).join(', ') || 'it has none'})`,
    );
  }
  const device = location.devices.find((d) => d.deviceId === deviceId);
  if (!device) {
    throw invalidParameter(
      'deviceId',
      `deviceId ${JSON.stringify(deviceId)} is not a device of location ${location.locationId}; its devices: ${location.devices.map((d) => d.deviceId).join(', ') || 'none'}`,
    );
  }
  if (!device.connected) {
    throw conflict(
      'device_disconnected',
      `Device ${deviceId} is disconnected, and a disconnected monitor raises no alerts; reconnect it first`,
    );
  }

  const peakValue = input.peakValue ?? spec.defaultPeakValue;
  const below = spec.minExclusive ? (peakValue as number) <= spec.min : (peakValue as number) < spec.min;
  if (typeof peakValue !== 'number' || !Number.isFinite(peakValue) || below || peakValue > spec.max) {
    throw invalidParameter(
      'peakValue',
      `peakValue of a ${requestedType} alert (${spec.meaning}) must be a number ${rangeText(spec)}; got ${JSON.stringify(input.peakValue)}`,
    );
  }

  if (input.peakStatus !== undefined && input.peakStatus !== spec.peakStatus) {
    throw invalidParameter(
      'peakStatus',
      spec.leak
        ? `peakStatus of a leak alert is null; leave it out (got ${JSON.stringify(input.peakStatus)})`
        : `peakStatus of a ${requestedType} alert (${spec.meaning}) is ${JSON.stringify(spec.peakStatus)}; leave it out or send that (got ${JSON.stringify(input.peakStatus)})`,
    );
  }

  let flowGpm = 0;
  if (spec.leak) {
    const flow = input.flowGpm ?? peakValue;
    if (typeof flow !== 'number' || !Number.isFinite(flow) || flow < 0 || flow > MAX_FLOW_GPM) {
      throw invalidParameter(
        'flowGpm',
        `flowGpm must be a number of gallons per minute from 0 to ${MAX_FLOW_GPM} (it defaults to peakValue); got ${JSON.stringify(input.flowGpm)}`,
      );
    }
    flowGpm = flow;
  } else if (input.flowGpm !== undefined && input.flowGpm !== 0) {
    throw invalidParameter(
      'flowGpm',
      `flowGpm applies to leak alerts only; a ${requestedType} alert adds no flow (got ${JSON.stringify(input.flowGpm)})`,
    );
  }

  // In away mode any flow raises the away-leak alert instead of the low/high ones.
  // SANDBOX: an explicit awayLeak is accepted at home too, so a partner gets the payload in one call.
  const awayRule = location.homeAway === 'away' && (requestedType === 'lowLeak' || requestedType === 'highLeak');
  return {
    requestedType,
    type: awayRule ? 'awayLeak' : requestedType,
    deviceId,
    peakValue,
    peakStatus: spec.peakStatus,
    flowGpm,
  };
}

/** The alerts that may block or be replaced by a start: shown active ones of the location. */
export type ActiveAlerts = readonly DeepReadonly<AlertRecord>[];

export type StartDecision =
  | { outcome: 'started' }
  | { outcome: 'escalated'; supersedes: DeepReadonly<AlertRecord> }
  | { outcome: 'ignored'; inForce: DeepReadonly<AlertRecord> };

/**
 * Production's rules. Leaks: one leak alert at a time per location; a highLeak while a lowLeak
 * is active escalates (the low one is superseded), anything else while a leak is active is
 * ignored (a lowLeak under a highLeak, a second leak of the same type, any leak next to an
 * awayLeak). Other types: one active alert per type per location; a second start is ignored.
 */
export function decideStart(locationAlerts: ActiveAlerts, type: AlertType): StartDecision {
  const shown = locationAlerts.filter(isShownActive);
  if (isLeakType(type)) {
    const leak = shown.find((a) => isLeakType(a.type));
    if (!leak) return { outcome: 'started' };
    if (leak.type === 'lowLeak' && type === 'highLeak') return { outcome: 'escalated', supersedes: leak };
    return { outcome: 'ignored', inForce: leak };
  }
  const same = shown.find((a) => a.type === type);
  return same ? { outcome: 'ignored', inForce: same } : { outcome: 'started' };
}

/** Times of a new alert detected now: it crossed its threshold one dwell time ago. */
export function alertTimes(type: AlertType, nowSeconds: number): { startTime: number; detectedTime: number } {
  return { startTime: nowSeconds - ALERT_TYPE_SPECS[type].dwellSeconds, detectedTime: nowSeconds };
}

/** The low leak a high leak falls back to when it ends, if the low one was not repaired meanwhile. */
export function fallbackOf(
  locationAlerts: ActiveAlerts,
  high: DeepReadonly<AlertRecord>,
): DeepReadonly<AlertRecord> | undefined {
  if (high.type !== 'highLeak') return undefined;
  return locationAlerts.find((a) => a.active && a.supersededBy === high.alertId && a.type === 'lowLeak');
}

/** Alerts shown in a location's `alerts`: active ones that were not replaced by an escalation. */
export function isShownActive(alert: DeepReadonly<AlertRecord>): boolean {
  return alert.active && alert.supersededBy === undefined;
}
