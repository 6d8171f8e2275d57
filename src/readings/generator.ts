import { present } from '../core/errors.js';
import { fmix32, hash32 } from '../core/random.js';
import type { DeepReadonly, UsageProfile } from '../store/data.js';
import { civilFromDays, DAY_MS, daysFromCivil, HOUR_MS, weekdayOfDays } from './calendar.js';

// SANDBOX: readings are synthetic; production reports what the monitor measured.
/**
 * The synthetic household: the water used in one hour, in integer milli-gallons, as a pure
 * function of (seed, locationId, profile, hour). The hour is given as its start instant
 * (for the randomness) and the local clock time at that instant (for the daily rhythm).
 *
 * Only + - * / floor and round on doubles are used, never Math.cos/exp/pow, whose last bits
 * may differ between JavaScript engines: the same seed gives the same values on every machine.
 *
 * Ingredients, per person and day: ~50 gal of taps and toilets spread over the day in a
 * weekday or weekend rhythm, 0.7 showers of 10-22 gal, a share of 20-30 gal laundry loads;
 * per household a 4-6 gal dishwasher most evenings. Indoor use is 10% higher in July than in
 * January, and ~12% higher at weekends. About one week in forty the household is away
 * (nearly no use). Irrigation, when the profile has it, runs at its start hour on its
 * weekdays and months, skipped on ~15% of days (rain). Quiet hours are often exactly 0.
 */
export class UsageModel {
  readonly #key: number;
  readonly #persons: number;
  readonly #scale: number;
  readonly #irrigation: DeepReadonly<NonNullable<UsageProfile['irrigation']>> | null;
  readonly #irrigationMonths: boolean[];
  readonly #irrigationWeekdays: boolean[];
  // Memo of the last day's draws; values do not depend on it.
  #day = Number.NaN;
  readonly #today: DayDraws = {
    away: false,
    weekend: false,
    factor: 1,
    season: 1,
    dishwasherHour: -1,
    dishwasherGallons: 0,
    laundry: [],
    irrigationGallons: 0,
  };

  constructor(seed: number, locationId: string, profile: DeepReadonly<UsageProfile>) {
    this.#key = hash32(seed, locationId);
    this.#persons = profile.householdSize;
    this.#scale = profile.scale ?? 1;
    this.#irrigation = profile.irrigation ?? null;
    this.#irrigationMonths = Array.from({ length: 13 }, (_, m) => this.#irrigation?.months.includes(m) ?? false);
    this.#irrigationWeekdays = Array.from({ length: 7 }, (_, d) => this.#irrigation?.weekdays.includes(d) ?? false);
  }

  /** Milli-gallons used in the hour starting at `hourStartMs`, whose local clock reads `localMs` (a whole hour). */
  milliGallons(hourStartMs: number, localMs: number): number {
    const day = Math.floor(localMs / DAY_MS);
    const hourOfDay = Math.floor((localMs - day * DAY_MS) / HOUR_MS);
    const d = this.#drawsOf(day);
    const hourKey = mix(this.#key ^ 0x68e31da4, Math.floor(hourStartMs / HOUR_MS));
    const n = this.#persons;

    let gallons = 0;
    if (d.away) {
      // An empty house: the odd ice-maker refill or toilet tank top-up.
      if (unit(hourKey, 1) < 0.08) gallons += 0.1 + 0.5 * unit(hourKey, 2);
    } else {
      const shape = d.weekend ? WEEKEND_SHAPE : WEEKDAY_SHAPE;
      const expected =
        n *
        BASE_GALLONS_PER_PERSON *
        d.factor *
        d.season *
        (d.weekend ? 1.12 : 1) *
        present(shape[hourOfDay], 'the share of the hour');
      // Taps and toilets come in small events (~1.6 gal): with few expected, the hour is often empty.
      const events = expected / 1.6;
      const pZero = 1 / (1 + events + (events * events) / 2 + (events * events * events) / 6);
      if (unit(hourKey, 3) >= pZero) gallons += (expected * (0.55 + 0.9 * unit(hourKey, 4))) / (1 - pZero);

      // Showers: floor(λ + u) has mean λ, so the expected count per hour follows the shape.
      const showerShape = d.weekend ? WEEKEND_SHOWERS : WEEKDAY_SHOWERS;
      const showers = Math.floor(
        n * SHOWERS_PER_PERSON * d.season * present(showerShape[hourOfDay], 'the share of the hour') + unit(hourKey, 5),
      );
      for (let i = 0; i < showers; i++) gallons += 10 + 12 * unit(hourKey, 6 + i);

      if (hourOfDay === d.dishwasherHour) gallons += d.dishwasherGallons;
      for (const load of d.laundry) if (load.hour === hourOfDay) gallons += load.gallons;
    }
    if (this.#irrigation && hourOfDay === this.#irrigation.startHour) gallons += d.irrigationGallons;
    return Math.round(gallons * this.#scale * 1000);
  }

  #drawsOf(day: number): DayDraws {
    if (day === this.#day) return this.#today;
    const t = this.#today;
    const dayKey = mix(this.#key ^ 0x1b873593, day);
    const weekday = weekdayOfDays(day);
    const { year, month } = civilFromDays(day);
    // Weeks run Monday to Sunday (day -3 was Monday 1969-12-29).
    t.away = unit(mix(this.#key ^ 0x3c6ef372, Math.floor((day + 3) / 7)), 1) < 0.025;
    t.weekend = weekday === 0 || weekday === 6;
    t.factor = 0.85 + 0.3 * unit(dayKey, 1);
    t.season = 1 + 0.1 * cosineOfYear((day - daysFromCivil(year, 7, 15)) / 365.25);
    t.dishwasherHour = unit(dayKey, 2) < 0.55 ? 19 + Math.floor(3 * unit(dayKey, 3)) : -1;
    t.dishwasherGallons = 4 + 2 * unit(dayKey, 4);
    t.laundry = [];
    const loads = Math.floor(0.1 + 0.12 * this.#persons * (t.weekend ? 1.6 : 0.75) + unit(dayKey, 5));
    for (let i = 0; i < loads; i++) {
      const hour = t.weekend ? 9 + Math.floor(7 * unit(dayKey, 6 + i)) : 17 + Math.floor(4 * unit(dayKey, 6 + i));
      t.laundry.push({ hour, gallons: 20 + 10 * unit(dayKey, 16 + i) });
    }
    const irrigates =
      this.#irrigation !== null &&
      this.#irrigationMonths[month] === true &&
      this.#irrigationWeekdays[weekday] === true &&
      unit(dayKey, 30) >= 0.15;
    t.irrigationGallons = irrigates ? this.#irrigation.gallonsPerDay * (0.9 + 0.2 * unit(dayKey, 31)) : 0;
    this.#day = day;
    return t;
  }
}

interface DayDraws {
  away: boolean;
  weekend: boolean;
  factor: number;
  season: number;
  dishwasherHour: number;
  dishwasherGallons: number;
  laundry: { hour: number; gallons: number }[];
  irrigationGallons: number;
}

const BASE_GALLONS_PER_PERSON = 50;
const SHOWERS_PER_PERSON = 0.7;

const normalise = (weights: number[]): number[] => {
  const sum = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / sum);
};

// Share of the day's tap-and-toilet use in each local hour 0-23: a night trough, morning and evening peaks.
const WEEKDAY_SHAPE = normalise([
  0.3, 0.2, 0.15, 0.15, 0.2, 0.8, 3, 4, 3, 1.8, 1.4, 1.4, 1.8, 1.4, 1.2, 1.4, 1.8, 2.6, 3.2, 3.4, 3, 2.4, 1.6, 0.8,
]);
const WEEKEND_SHAPE = normalise([
  0.5, 0.3, 0.2, 0.15, 0.15, 0.2, 0.6, 1.4, 2.6, 3.2, 3.2, 2.8, 2.6, 2.2, 2, 2, 2.2, 2.6, 3, 3, 2.6, 2.2, 1.6, 1,
]);
const WEEKDAY_SHOWERS = normalise([
  0, 0, 0, 0, 0, 0.5, 3, 3.5, 1.5, 0.3, 0, 0, 0, 0, 0, 0, 0, 0.3, 0.5, 0.8, 1.2, 1.4, 0.8, 0.2,
]);
const WEEKEND_SHOWERS = normalise([
  0, 0, 0, 0, 0, 0, 0, 0.6, 1.5, 2.5, 2, 1, 0.4, 0, 0, 0, 0, 0.3, 0.4, 0.6, 1, 1.2, 0.7, 0.2,
]);

/** cos(2πx) approximated by parabolas (C1-smooth, within 6%), with arithmetic only. */
export function cosineOfYear(x: number): number {
  const t = x - Math.floor(x);
  if (t < 0.25) return 1 - 16 * t * t;
  if (t < 0.75) return 16 * (t - 0.5) * (t - 0.5) - 1;
  return 1 - 16 * (t - 1) * (t - 1);
}

/** A key for (key, n): integer hashing, far cheaper per hour than hashing strings. */
const mix = (key: number, n: number): number => fmix32((key + Math.imul(n | 0, 0x9e3779b1)) | 0);

/** The k-th uniform draw in [0, 1) from a key. */
const unit = (key: number, k: number): number => fmix32(key ^ Math.imul(k + 1, 0x27d4eb2f)) / 0x100000000;
