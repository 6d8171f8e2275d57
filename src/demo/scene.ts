import type { z } from 'zod';

import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { flowsFromAlerts, type ReadingsService } from '../readings/index.js';
import type { ScenarioCatalog } from '../scenarios/index.js';
import type { AccountDoc, AlertType, DeepReadonly, DeliveryRecord, LocationRecord } from '../store/data.js';
import type { Store } from '../store/store.js';
import { presentDelivery } from '../webhooks/index.js';
import { demoOf } from './links.js';
import type { DemoCard, DemoScene } from './operations.js';
import { spokenDuration } from './page-config.js';
import { presentStory } from './story-view.js';
import {
  alertName,
  answerInWords,
  clockTime,
  dayAndTime,
  gallonsPerMinute,
  hourLabel,
  isLeak,
  notificationOf,
  number,
  possessive,
  zoneName,
} from './words.js';

export type Scene = z.output<typeof DemoScene>;
type Card = z.output<typeof DemoCard>;
type Notification = Scene['phone']['notifications'][number];

export interface SceneDeps {
  store: Store;
  clock: Clock;
  readings: ReadingsService;
  scenarios: ScenarioCatalog;
}

const HOUR_MS = 3_600_000;
/** The chart: the last 21 hours and the one under way, and room on the right for what comes. */
const HOURS_SHOWN = 22;
const HOURS_AHEAD = 3;
/** The webhooks the partner's side shows, newest first. */
const CARDS_SHOWN = 12;
/** Notifications on the phone: those in force, then the newest cleared ones. */
const NOTIFICATIONS_SHOWN = 4;
/** Leaks closer than this are one band on the chart (a leak that escalated and fell back). */
const LEAK_JOIN_MS = 60_000;

/** The location the view shows: the story's, the one chosen, else the account's first. */
function shownLocation(doc: DeepReadonly<AccountDoc>): DeepReadonly<LocationRecord> | null {
  const demo = demoOf(doc);
  const wanted = demo.story?.locationId ?? demo.locationId;
  return doc.locations.find((l) => l.locationId === wanted) ?? doc.locations[0] ?? null;
}

/** "POST /hooks?key=[hidden] HTTP/1.1" and its Host: query values and user names are the partner's business. */
function requestTarget(target: string): { path: string; host: string } {
  if (!URL.canParse(target)) return { path: target, host: '' };
  const url = new URL(target);
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=[hidden]`).join('&');
  return { path: `${url.pathname}${query ? `?${query}` : ''}`, host: url.host };
}

function cardOf(delivery: DeepReadonly<DeliveryRecord>, prospect: string, timeZone: string): Card {
  const shown = presentDelivery(delivery, { hideToken: true });
  const endpoint = `${possessive(prospect)} endpoint`;
  const payload = (shown.payload ?? {}) as {
    type?: AlertType;
    active?: boolean;
    peakStatus?: 'too_high' | 'too_low' | null;
  };
  const again = shown.redeliveryOf !== null || shown.drill === 'duplicate-delivery' ? 'Again: ' : '';
  let headline: string;
  if (shown.kind === 'alert' && payload.type !== undefined) {
    const name = alertName(payload.type, payload.peakStatus ?? null);
    headline = payload.active
      ? `${again}${name} alert sent to ${endpoint}`
      : `${again}All-clear for the ${name.toLowerCase()} sent to ${endpoint}`;
  } else if (shown.kind === 'confirmation') {
    headline = `Request to confirm the subscription sent to ${endpoint}`;
  } else {
    headline = `Connection check sent to ${endpoint}`;
  }
  const last = shown.attempts.at(-1);
  const tries = shown.attempts.length;
  let tone: Card['tone'];
  let detail: string;
  if (shown.state === 'delivered') {
    tone = 'ok';
    detail = `Delivered in ${last?.latencyMs ?? 0} ms${tries > 1 ? `, at the ${ordinal(tries)} try` : ''}`;
  } else if (shown.state === 'pending') {
    tone = 'pending';
    detail =
      tries === 0
        ? 'On its way'
        : `The endpoint ${answerInWords(last)}; trying again${shown.nextAttemptAt ? ` at ${clockTime(Date.parse(shown.nextAttemptAt), timeZone)}` : ''}`;
  } else {
    tone = 'bad';
    detail =
      tries === 0
        ? 'Not sent: its subscription was deleted'
        : `Not delivered: the endpoint ${answerInWords(last)}, ${tries} ${tries === 1 ? 'try' : 'tries'}`;
  }
  const { path, host } = requestTarget(shown.target);
  return {
    key: shown.deliveryId,
    at: clockTime(Date.parse(shown.createdAt), timeZone),
    tone,
    headline,
    detail,
    raw: {
      requestLine: `${shown.method} ${path} HTTP/1.1`,
      headers: [
        ...(host ? [{ name: 'Host', value: host }] : []),
        ...Object.entries(shown.requestHeaders).map(([name, value]) => ({ name, value })),
      ],
      body: shown.method === 'POST' ? JSON.stringify(shown.payload, null, 2) : '',
    },
  };
}

const ordinal = (n: number): string =>
  `${n}${n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th'}`;

/**
 * What the partner's app would show, from the alert webhooks it received (delivered ones, in
 * order): the alert in force of each kind, and the newest ones that cleared. A leak of a device
 * is one notification whatever its type: production has one leak alert in force at a time, and
 * an escalation replaces the slow leak without ending it.
 */
function phoneOf(
  delivered: readonly DeepReadonly<DeliveryRecord>[],
  place: string,
  nowMs: number,
  timeZone: string,
): Notification[] {
  const slots = new Map<string, { payload: AlertPayload; at: number; sinceMs: number }>();
  for (const delivery of delivered) {
    const payload = delivery.payload as AlertPayload | null;
    if (payload?.type === undefined) continue;
    const key = `${isLeak(payload.type) ? 'leak' : payload.type}|${payload.deviceId}`;
    const before = slots.get(key);
    // A leak that escalated, or fell back from a major one, is the same water running: since its first start.
    const continues =
      before !== undefined &&
      (before.payload.active || Math.abs(before.payload.stopTime - payload.startTime) <= LEAK_JOIN_MS / 1000);
    slots.delete(key);
    slots.set(key, {
      payload,
      at: Date.parse(delivery.createdAt),
      sinceMs: continues ? before.sinceMs : payload.startTime * 1000,
    });
  }
  const newestFirst = [...slots.entries()].reverse();
  const active = newestFirst.filter(([, s]) => s.payload.active);
  const cleared = newestFirst.filter(([, s]) => !s.payload.active);
  return [...active, ...cleared].slice(0, NOTIFICATIONS_SHOWN).map(([key, { payload, at, sinceMs }]): Notification => {
    const name = alertName(payload.type, payload.peakStatus);
    if (!payload.active) {
      return {
        key,
        active: false,
        title: `${name}: over`,
        text: `Resolved: the ${name.toLowerCase()} at ${place} stopped at ${clockTime(payload.stopTime * 1000, timeZone)}.`,
        at: clockTime(at, timeZone),
        live: null,
      };
    }
    const words = notificationOf(payload, place);
    return {
      key,
      active: true,
      title: words.title,
      text: `${words.before}${spokenDuration(nowMs - sinceMs)}${words.after}`,
      at: clockTime(at, timeZone),
      live: { before: words.before, sinceMs, after: words.after },
    };
  });
}

interface AlertPayload {
  type: AlertType;
  deviceId: string;
  active: boolean;
  startTime: number;
  stopTime: number;
  peakValue: number;
  peakStatus: 'too_high' | 'too_low' | null;
}

/** A round top for the gallons axis: 1, 2, 5 or 10 times a power of ten. */
function niceCeil(value: number): number {
  const power = 10 ** Math.floor(Math.log10(value));
  return ([1, 2, 5, 10].find((m) => m * power >= value) ?? 10) * power;
}

/** The leaks of the location as bands: merged where they touch, from their start to their end (or now). */
function leakBands(
  doc: DeepReadonly<AccountDoc>,
  locationId: string,
  window: { fromMs: number; nowMs: number },
  timeZone: string,
): Scene['chart']['leaks'] {
  const leaks = doc.alerts
    .filter((a) => a.locationId === locationId && isLeak(a.type))
    .map((a) => ({
      fromMs: a.startTime * 1000,
      toMs: a.active && a.supersededBy === undefined ? null : Math.max(a.stopTime, a.startTime) * 1000,
      detectedMs: a.detectedTime * 1000,
    }))
    .sort((a, b) => a.fromMs - b.fromMs);
  const bands: { fromMs: number; toMs: number | null; detectedMs: number }[] = [];
  for (const leak of leaks) {
    const last = bands.at(-1);
    if (last && (last.toMs === null || leak.fromMs <= last.toMs + LEAK_JOIN_MS)) {
      last.toMs = last.toMs === null || leak.toMs === null ? null : Math.max(last.toMs, leak.toMs);
    } else {
      bands.push({ ...leak });
    }
  }
  // A story that went back in time may find leaks later than its now: not yet, for the chart.
  return bands
    .filter((b) => (b.toMs === null || b.toMs > window.fromMs) && b.fromMs <= window.nowMs)
    .map((b) => ({ fromMs: b.fromMs, toMs: b.toMs, label: `Leak detected ${clockTime(b.detectedMs, timeZone)}` }));
}

/** The usage chart: hour by hour, normal use and the leak's water apart, and the leaks as bands. */
function chartOf(
  deps: SceneDeps,
  doc: DeepReadonly<AccountDoc>,
  location: DeepReadonly<LocationRecord>,
  timeZone: string,
): { chart: Scene['chart']; normalGpm: number } {
  const { usage, nowMs } = deps.readings.usageOf(doc, location.locationId);
  const askFrom = nowMs - HOURS_SHOWN * HOUR_MS;
  const buckets = usage.page(askFrom, nowMs, 'hour', 1, HOURS_SHOWN + 2).buckets.filter((b) => b.startMs >= askFrom);
  const flows = flowsFromAlerts(doc.alerts, location.locationId, nowMs);
  const hours = buckets.map((b) => {
    const endMs = Math.min(b.startMs + HOUR_MS, nowMs);
    let leakMilli = 0;
    for (const flow of flows) {
      const overlap = Math.min(endMs, flow.toMs) - Math.max(b.startMs, flow.fromMs);
      if (overlap > 0) leakMilli += Math.round((flow.gpm * overlap) / 60);
    }
    const leak = Math.min(leakMilli, b.milliGallons) / 1000;
    return { startMs: b.startMs, label: hourLabel(b.startMs, timeZone), normal: b.milliGallons / 1000 - leak, leak };
  });
  const fromMs = hours[0]?.startMs ?? askFrom;
  const lastStart = hours.at(-1)?.startMs ?? nowMs;
  const maxNormal = Math.max(0, ...hours.map((h) => h.normal));
  const cap = niceCeil(Math.max(1, maxNormal * 1.3));
  const leaks = leakBands(doc, location.locationId, { fromMs, nowMs }, timeZone);
  const total = hours.reduce((sum, h) => sum + h.normal + h.leak, 0);
  const leaked = hours.reduce((sum, h) => sum + h.leak, 0);
  const summary =
    `Water use by hour over the last ${hours.length} hours: ${number(total)} gallons in all` +
    (leaked > 0 ? `, ${number(leaked)} of them from leaks` : '') +
    (leaks.length > 0
      ? `. ${leaks.map((l) => `${l.label}${l.toMs === null ? ', still running' : ''}`).join('. ')}.`
      : '.');
  // Normal use of the hour under way, per minute; early in the hour, the last whole hour's.
  const current = hours.at(-1);
  const previous = hours.at(-2);
  const minutesIn = current ? (nowMs - current.startMs) / 60_000 : 0;
  const normalGpm = current && minutesIn >= 5 ? current.normal / minutesIn : previous ? previous.normal / 60 : 0;
  return {
    chart: { fromMs, toMs: lastStart + (1 + HOURS_AHEAD) * HOUR_MS, cap, hours, leaks, summary },
    normalGpm,
  };
}

/**
 * Everything the presenter view shows of an account, in words, from its document, delivery log
 * and readings: what the presenter's page and every audience link receive alike. Holds nothing
 * secret: no key or token (a confirmation token shows as [hidden]), no id in its text.
 */
export async function buildScene(deps: SceneDeps, accountId: string): Promise<Scene | null> {
  const doc = await deps.store.accounts.get(accountId);
  if (!doc) return null;
  const demo = demoOf(doc);
  const nowMs = accountNowMs(deps.clock, doc.clock);
  const location = shownLocation(doc);
  const timeZone = location?.timeZone ?? 'UTC';
  const story = presentStory(doc, deps.scenarios, timeZone);
  const storyRecord = demo.story;
  // How the page moves its clock on until the next scene: a playing story's speed, but not while it holds at a step.
  const holding = storyRecord?.anchorProcessMs != null && storyRecord.anchorProcessMs > deps.clock.now().getTime();
  const rate = doc.clock.frozenAtMs === null ? 1 : storyRecord?.state === 'playing' && !holding ? storyRecord.speed : 0;
  const appName = demo.prospect === '' ? 'Your app' : demo.prospect;
  const base = {
    prospect: demo.prospect,
    appName,
    now: { ms: nowMs, rate, text: dayAndTime(nowMs, timeZone) },
    story,
  };
  if (!location) {
    return {
      ...base,
      location: null,
      flow: {
        gallonsPerMinute: 0,
        leakGallonsPerMinute: 0,
        text: gallonsPerMinute(0),
        detail: 'no home in this account',
      },
      chart: { fromMs: nowMs, toMs: nowMs, cap: 1, hours: [], leaks: [], summary: 'No home in this account.' },
      cards: [],
      phone: { notifications: [], note: 'This account has no home to watch.' },
    };
  }
  const { chart, normalGpm } = chartOf(deps, doc, location, timeZone);
  const leakGpm = doc.alerts
    .filter(
      (a) =>
        a.locationId === location.locationId && a.active && a.supersededBy === undefined && a.startTime * 1000 <= nowMs,
    )
    .reduce((sum, a) => sum + a.flowGpm, 0);
  const totalGpm = Math.round((normalGpm + leakGpm) * 10) / 10;

  const [logged, delivered] = await Promise.all([
    deps.store.deliveries.list(accountId, { locationId: location.locationId, offset: 0, limit: CARDS_SHOWN * 3 }),
    deps.store.deliveries.list(accountId, {
      locationId: location.locationId,
      kind: 'alert',
      state: 'delivered',
      offset: 0,
      limit: 100,
    }),
  ]);
  const cards = logged.items
    .filter((d) => d.kind === 'alert' || d.kind === 'confirmation' || d.kind === 'receiver_check')
    .slice(0, CARDS_SHOWN)
    .map((d) => cardOf(d, demo.prospect, timeZone));
  const subscribed = doc.subscriptions.some((s) => s.locationId === location.locationId && s.status === 'confirmed');
  const connected = location.devices.every((d) => d.connected);
  return {
    ...base,
    location: {
      name: location.name,
      zone: zoneName(nowMs, timeZone),
      timeZone,
      homeAway: location.homeAway,
      status: location.homeAway === 'home' ? 'Someone is home' : 'Nobody is home',
      monitor: connected ? 'Monitor online' : 'Monitor offline',
    },
    flow: {
      gallonsPerMinute: totalGpm,
      leakGallonsPerMinute: leakGpm,
      text: gallonsPerMinute(totalGpm),
      detail: leakGpm > 0 ? `${number(leakGpm)} of it from the leak` : 'normal use',
    },
    chart,
    cards,
    phone: {
      notifications: phoneOf([...delivered.items].reverse(), location.name, nowMs, timeZone),
      note: subscribed
        ? null
        : "No app is subscribed to this home's alerts yet, so the phone hears nothing. A story subscribes the sandbox's demo receiver for you.",
    },
  };
}
