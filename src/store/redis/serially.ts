/**
 * Runs the read-modify-writes of one key one after the other within this process. The Redis
 * compare-and-set is what makes them atomic across replicas; queueing them here first keeps
 * concurrent changes from one replica from retrying against each other (n concurrent changes
 * would otherwise cost O(n²) attempts), so retries only happen between replicas.
 */
export class Serially {
  readonly #tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
