import { BoundedMemo } from './bounded-memo.js';
import type { ExtraFlow, UsageScale } from './rollup.js';

/** A page of readings as the route sends it: the envelope as JSON in UTF-8 bytes, and what the journal notes of it. */
export interface AnsweredPage {
  page: number;
  pageCount: number;
  body: Buffer;
}

/** Everything a page of readings is a function of (see pageKey). */
export interface PageInputs {
  locationId: string;
  /** Seed, time zone and usage profile (the model). */
  signature: string;
  installDate: string;
  scales: readonly UsageScale[];
  flows: readonly ExtraFlow[];
  fromMs: number;
  toMs: number;
  groupBy: string;
  page: number;
  perPage: number;
}

/**
 * The memo key of a page: its inputs as text. Leak flows count only over [fromMs, toMs), the
 * range every bucket of the page lies in (a bucket sums flow over its part of the range), so an
 * active leak, whose flow runs up to the account's now, gives the same key for a range that ended
 * before now. Scales count whole: a scale applies by the hour it starts in, which may begin before fromMs.
 */
export function pageKey(p: PageInputs): string {
  let flows = '';
  for (const f of p.flows) {
    const from = Math.max(f.fromMs, p.fromMs);
    const to = Math.min(f.toMs, p.toMs);
    if (from < to) flows += `${from}-${to}@${f.gpm};`;
  }
  let scales = '';
  for (const s of p.scales) scales += `${s.fromMs}-${String(s.toMs)}x${s.scale};`;
  return `${p.locationId}|${p.signature}|${p.installDate}|${scales}|${flows}|${p.fromMs}|${p.toMs}|${p.groupBy}|${p.page}|${p.perPage}`;
}

/**
 * Pages already answered, by key, so that asking again for a settled range (one that ended
 * before the account's now, the way partners page through history) sends the bytes made the first
 * time instead of summing and serialising it again. A changed input (profile, time zone, install
 * date, a scenario's scale, a leak's flow in the range, the range itself) makes a different key;
 * nothing is invalidated by hand. Bounded by count (a page is at most 100 readings, about 6 KB of
 * text): the oldest entry goes first.
 */
export class PageMemo {
  readonly #max: number;
  readonly #pages: BoundedMemo<string, AnsweredPage>;

  /** `max` 0 keeps nothing (every page computed). */
  constructor(max: number) {
    this.#max = max;
    this.#pages = new BoundedMemo(max);
  }

  get enabled(): boolean {
    return this.#max > 0;
  }

  get size(): number {
    return this.#pages.size;
  }

  get(key: string, answer: () => AnsweredPage): AnsweredPage {
    return this.#pages.get(key, answer);
  }
}
