/**
 * A memo bounded by count: at most `max` entries, the oldest going first, with no reordering on a
 * hit (which would cost more than it saves here). Used for models and their YearTotals per
 * location, a model's totals per year, and answered pages.
 */
export class BoundedMemo<K, V> {
  readonly #max: number;
  readonly #entries = new Map<K, V>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value kept for `key`, or the one `create` makes, then kept. */
  get(key: K, create: () => V): V {
    const value = this.#entries.get(key);
    if (value !== undefined) return value;
    const created = create();
    this.set(key, created);
    return created;
  }

  set(key: K, value: V): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#max)
      this.#entries.delete(this.#entries.keys().next().value as K);
    this.#entries.set(key, value);
  }
}
