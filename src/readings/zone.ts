import { present } from '../core/errors.js';
import { DAY_MS, daysFromCivil, HOUR_MS, yearOfDays } from './calendar.js';

/**
 * Sampling step of the survey. A week finds exactly the transitions that daily sampling
 * finds, for every zone Intl knows, in every year 1970-2039 (checked once, offline): no zone
 * has two transitions that cancel out within a week. It makes a year's survey ~7x cheaper.
 */
const SAMPLE_MS = 7 * DAY_MS;

/**
 * UTC offsets of one IANA time zone, without an Intl call per lookup.
 *
 * Asking Intl for an offset costs microseconds, and a ten-year roll-up visits ~90,000 hours.
 * So each UTC year is surveyed once: the offset is sampled every week and at the year's end,
 * and where two samples differ the transition is found by bisection to the second. After
 * that an offset is a scan of the year's (usually two) transitions.
 */
export class ZoneOffsets {
  readonly zone: string;
  readonly #format: Intl.DateTimeFormat;
  readonly #years = new Map<number, YearTable>();
  #last: YearTable | null = null;

  constructor(zone: string) {
    this.zone = zone;
    this.#format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  }

  /** The zone's UTC offset in ms at an instant (local = instant + offset). */
  offsetAt(ms: number): number {
    let table = this.#last;
    if (table === null || ms < table.startMs || ms >= table.endMs) {
      table = this.#tableOf(yearOfDays(Math.floor(ms / DAY_MS)));
      this.#last = table;
    }
    let offset = table.initialOffset;
    for (const [i, at] of table.at.entries()) {
      if (ms < at) break;
      offset = present(table.offsets[i], 'the offset of a transition');
    }
    return offset;
  }

  /** Every offset in effect at some instant of [fromMs, toMs). */
  offsetsDuring(fromMs: number, toMs: number): Set<number> {
    const found = new Set<number>([this.offsetAt(fromMs)]);
    const lastYear = yearOfDays(Math.floor((toMs - 1) / DAY_MS));
    for (let year = yearOfDays(Math.floor(fromMs / DAY_MS)); year <= lastYear; year++) {
      const table = this.#tableOf(year);
      table.at.forEach((at, i) => {
        if (at > fromMs && at < toMs) found.add(present(table.offsets[i], 'the offset of a transition'));
      });
    }
    return found;
  }

  /** The instants in (fromMs, toMs) at which the offset changes. */
  transitionsDuring(fromMs: number, toMs: number): number[] {
    const found: number[] = [];
    const lastYear = yearOfDays(Math.floor((toMs - 1) / DAY_MS));
    for (let year = yearOfDays(Math.floor(fromMs / DAY_MS)); year <= lastYear; year++) {
      for (const at of this.#tableOf(year).at) if (at > fromMs && at < toMs) found.push(at);
    }
    return found;
  }

  #tableOf(year: number): YearTable {
    let table = this.#years.get(year);
    if (!table) {
      table = this.#survey(year);
      this.#years.set(year, table);
    }
    return table;
  }

  #survey(year: number): YearTable {
    const startMs = daysFromCivil(year, 1, 1) * DAY_MS;
    const endMs = daysFromCivil(year + 1, 1, 1) * DAY_MS;
    const table: YearTable = { startMs, endMs, initialOffset: this.#intlOffset(startMs), at: [], offsets: [] };
    let current = table.initialOffset;
    for (let previous = startMs; previous < endMs; previous += SAMPLE_MS) {
      const sample = Math.min(previous + SAMPLE_MS, endMs);
      const target = this.#intlOffset(sample);
      // Usually one transition between two samples; the loop also finds a second one.
      let lo = previous;
      while (current !== target) {
        let hi = sample;
        while (hi - lo > 1000) {
          const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
          if (this.#intlOffset(mid) === current) lo = mid;
          else hi = mid;
        }
        current = this.#intlOffset(hi);
        if (hi < endMs) {
          table.at.push(hi);
          table.offsets.push(current);
        }
        lo = hi;
      }
    }
    return table;
  }

  #intlOffset(ms: number): number {
    // "1/1/2026, GMT-05:00"; a zero offset may print as "GMT" alone.
    const text = this.#format.format(ms);
    const match = /GMT(?:([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?$/.exec(text);
    if (!match) throw new Error(`cannot read the UTC offset of ${this.zone} from ${JSON.stringify(text)}`);
    if (match[1] === undefined) return 0;
    const magnitude = Number(match[2]) * HOUR_MS + Number(match[3] ?? 0) * 60_000 + Number(match[4] ?? 0) * 1000;
    return match[1] === '-' ? -magnitude : magnitude;
  }
}

interface YearTable {
  startMs: number;
  endMs: number;
  initialOffset: number;
  /** Transition instants within the year, ascending; `offsets[i]` applies from `at[i]`. */
  at: number[];
  offsets: number[];
}

/** A bounded memo of ZoneOffsets by zone name (tzdata does not change while the process runs); the oldest goes first. */
export class ZoneOffsetsCache {
  readonly #max: number;
  readonly #zones = new Map<string, ZoneOffsets>();

  constructor(max = 64) {
    this.#max = max;
  }

  get(zone: string): ZoneOffsets {
    let offsets = this.#zones.get(zone);
    if (!offsets) {
      offsets = new ZoneOffsets(zone);
      if (this.#zones.size >= this.#max) this.#zones.delete(this.#zones.keys().next().value as string);
      this.#zones.set(zone, offsets);
    }
    return offsets;
  }
}
