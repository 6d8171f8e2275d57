import { accountNowMs } from '../clock/index.js';
import type { Clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import type { AccountDoc, AlertRecord, DeepReadonly, LocationRecord } from '../store/data.js';
import { findLocation } from '../store/lookups.js';
import { BoundedMemo } from './bounded-memo.js';
import { daysOfIsoDate, formatOffset } from './calendar.js';
import { UsageModel } from './generator.js';
import { UnsupportedTimeZoneError } from './local-hours.js';
import { YearTotals } from './model-sums.js';
import { PageMemo, pageKey, type AnsweredPage } from './page-memo.js';
import { resolveRange, type ReadingsQuery } from './query.js';
import { LocationUsage, type ExtraFlow, type PeriodTotals, type UsageScale } from './rollup.js';
import type { ReadingsEnvelope, UsageSummary } from './schemas.js';
import { ZoneOffsetsCache } from './zone.js';

// SANDBOX: volumes carry three decimals so that every sum is exact; production's summary shows unrounded floats.
/** Milli-gallons (exact integers inside) to gallons with three decimals (at the edge). */
export const toGallons = (milliGallons: number): number => milliGallons / 1000;

/**
 * Leak flow from the location's alerts: each alert with flowGpm > 0 adds that many gallons
 * per minute over [startTime, stopTime), or up to now while it is active (stopTime 0).
 */
export function flowsFromAlerts(
  alerts: readonly DeepReadonly<AlertRecord>[],
  locationId: string,
  nowMs: number,
): ExtraFlow[] {
  return alerts
    .filter((a) => a.locationId === locationId && a.flowGpm > 0)
    .map((a) => ({ fromMs: a.startTime * 1000, toMs: a.stopTime === 0 ? nowMs : a.stopTime * 1000, gpm: a.flowGpm }));
}

export interface ReadingsDeps {
  clock: Clock;
  config: { readonly seed: number };
  /** Pages of settled ranges kept (see PageMemo); 0 computes every page. */
  pageMemo?: number;
}

/** About 1.5 MB of JSON text at most. */
const PAGES_KEPT = 256;

/**
 * Readings of the account's locations. Holds bounded memos (zone offsets; per location and
 * profile, the model and its yearly totals; pages of settled ranges) that never change a
 * result; each instance has its own.
 */
export class ReadingsService {
  readonly #deps: ReadingsDeps;
  readonly #zones = new ZoneOffsetsCache();
  readonly #models = new BoundedMemo<string, { signature: string; model: UsageModel; totals: YearTotals }>(256);
  readonly #profileTexts = new WeakMap<object, string>();
  readonly #pages: PageMemo;

  constructor(deps: ReadingsDeps) {
    this.#deps = deps;
    this.#pages = new PageMemo(deps.pageMemo ?? PAGES_KEPT);
  }

  /** How many pages the memo holds now (for tests of its bound). */
  get keptPages(): number {
    return this.#pages.size;
  }

  /** The usage of one of the account's locations as of the account's now (404 for others). */
  usageOf(doc: DeepReadonly<AccountDoc>, locationId: string): { usage: LocationUsage; nowMs: number } {
    const nowMs = accountNowMs(this.#deps.clock, doc.clock);
    return { usage: this.#usageFrom(doc, findLocation(doc, locationId), nowMs), nowMs };
  }

  /**
   * GET .../readings/water-usage, as the envelope's JSON text. The page of a settled range (one
   * whose endTime is not after the account's now) is kept, and sent again while nothing it
   * depends on changes; a range up to now ends at another instant on every request, so its pages
   * are not kept (they would only push settled ones out).
   */
  readings(doc: DeepReadonly<AccountDoc>, locationId: string, parsed: ReadingsQuery): AnsweredPage {
    const location = findLocation(doc, locationId);
    const nowMs = accountNowMs(this.#deps.clock, doc.clock);
    const { fromMs, toMs } = resolveRange(parsed, nowMs);
    const answer = (): AnsweredPage => this.#answer(this.#usageFrom(doc, location, nowMs), fromMs, toMs, parsed);
    const settled = parsed.endMs !== null && parsed.endMs <= nowMs;
    if (!settled || !this.#pages.enabled) return answer();
    const key = pageKey({
      locationId,
      signature: this.#signature(location),
      installDate: location.installDate,
      scales: location.usageOverrides ?? [],
      flows: flowsFromAlerts(doc.alerts, locationId, nowMs),
      fromMs,
      toMs,
      groupBy: parsed.groupBy,
      page: parsed.page,
      perPage: parsed.perPage,
    });
    return this.#pages.get(key, answer);
  }

  #answer(usage: LocationUsage, fromMs: number, toMs: number, parsed: ReadingsQuery): AnsweredPage {
    const { total, buckets } = this.#explain(usage, () =>
      usage.page(fromMs, toMs, parsed.groupBy, parsed.page, parsed.perPage),
    );
    const envelope: ReadingsEnvelope = {
      page: parsed.page,
      perPage: parsed.perPage,
      // Production documents pageCount as a string but sends a number everywhere; so do we.
      pageCount: Math.ceil(total / parsed.perPage),
      total,
      readings: buckets.map((b) => ({ time: b.time, volume: toGallons(b.milliGallons) })),
      units: 'gallons',
    };
    return { page: envelope.page, pageCount: envelope.pageCount, body: Buffer.from(JSON.stringify(envelope)) };
  }

  /** GET .../readings/water-usage/summary */
  summary(doc: DeepReadonly<AccountDoc>, locationId: string): UsageSummary {
    const { usage, nowMs } = this.usageOf(doc, locationId);
    const totals = this.#explain(usage, () => usage.periodTotals(nowMs));
    return {
      today: toGallons(totals.today),
      thisMonth: toGallons(totals.thisMonth),
      thisYear: toGallons(totals.thisYear),
      units: 'gallons',
    };
  }

  /** Today, this month and this year in milli-gallons, for other features (e.g. a dashboard). */
  periodTotals(doc: DeepReadonly<AccountDoc>, locationId: string): PeriodTotals {
    const { usage, nowMs } = this.usageOf(doc, locationId);
    return this.#explain(usage, () => usage.periodTotals(nowMs));
  }

  #usageFrom(data: DeepReadonly<AccountDoc>, location: DeepReadonly<LocationRecord>, nowMs: number): LocationUsage {
    const profileJson = this.#profileJson(location.profile);
    const signature = this.#signature(location);
    let memo = this.#models.get(location.locationId, () => this.#modelOf(location.locationId, signature, profileJson));
    if (memo.signature !== signature) {
      memo = this.#modelOf(location.locationId, signature, profileJson);
      this.#models.set(location.locationId, memo);
    }
    const { model, totals } = memo;
    const scales: UsageScale[] = (location.usageOverrides ?? []).map((o) => ({
      fromMs: o.fromMs,
      toMs: o.toMs,
      scale: o.scale,
    }));
    return new LocationUsage({
      model,
      offsets: this.#zones.get(location.timeZone),
      installDay: daysOfIsoDate(location.installDate),
      scales,
      flows: flowsFromAlerts(data.alerts, location.locationId, nowMs),
      totals,
    });
  }

  /** Everything the model and its totals depend on: a changed profile or zone gets a fresh model. */
  #signature(location: DeepReadonly<LocationRecord>): string {
    return `${this.#deps.config.seed}|${location.timeZone}|${this.#profileJson(location.profile)}`;
  }

  /**
   * The profile as JSON, kept per profile object: a stored document is never changed in place
   * (a change makes a new one), so the same object always has the same text.
   */
  #profileJson(profile: DeepReadonly<LocationRecord['profile']>): string {
    let json = this.#profileTexts.get(profile);
    if (json === undefined) this.#profileTexts.set(profile, (json = JSON.stringify(profile)));
    return json;
  }

  #modelOf(
    locationId: string,
    signature: string,
    profileJson: string,
  ): { signature: string; model: UsageModel; totals: YearTotals } {
    const profile = JSON.parse(profileJson) as LocationRecord['profile'];
    return { signature, model: new UsageModel(this.#deps.config.seed, locationId, profile), totals: new YearTotals() };
  }

  #explain<T>(usage: LocationUsage, run: () => T): T {
    try {
      return run();
    } catch (error) {
      if (!(error instanceof UnsupportedTimeZoneError)) throw error;
      // SANDBOX: production has no such limit; the sandbox's hourly model needs whole local hours.
      const offsets = error.offsets.map(formatOffset).join(', ');
      throw new AppError(
        422,
        'unsupported_time_zone',
        `The location's time zone ${usage.source.offsets.zone} switches between UTC offsets whose minutes differ (${offsets}) in the requested period, ` +
          'so its local hours are not all one hour long and the sandbox cannot build hourly readings there; ask for a period without that change (see docs/readings.md)',
      );
    }
  }
}
