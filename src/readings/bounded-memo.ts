/** A bounded memo by string key, the oldest entry going first (models and their YearTotals, per location). */
export class BoundedMemo<T> {
  readonly #max: number;
  readonly #entries = new Map<string, T>();

  constructor(max: number) {
    this.#max = max;
  }

  get(key: string, create: () => T): T {
    const value = this.#entries.get(key);
    if (value !== undefined) return value;
    const created = create();
    this.set(key, created);
    return created;
  }

  set(key: string, value: T): void {
    if (!this.#entries.has(key) && this.#entries.size >= this.#max)
      this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, value);
  }
}
