/**
 * Members grouped by holder, each holder's oldest first, with the holder that holds the most
 * known at once: what a bound shared by many holders uses to take from the biggest holder first
 * rather than from whoever came first (login sessions past MAX_SESSIONS, event streams past
 * MAX_OPEN_STREAMS_TOTAL). Every operation costs the same whatever the number of holders.
 */
export class Holdings<T> {
  /** Each holder's members in the order they were added or renewed (a Set keeps insertion order). */
  readonly #members = new Map<string, Set<T>>();
  /** `#byCount[n]`: the holders of n members. */
  readonly #byCount: Set<string>[] = [];
  #most = 0;
  #size = 0;

  /** Members held in all. */
  get size(): number {
    return this.#size;
  }

  count(holder: string): number {
    return this.#members.get(holder)?.size ?? 0;
  }

  has(holder: string, member: T): boolean {
    return this.#members.get(holder)?.has(member) ?? false;
  }

  /** Adds `member` as the holder's newest (a member it holds already is renewed). */
  add(holder: string, member: T): void {
    let members = this.#members.get(holder);
    if (!members) this.#members.set(holder, (members = new Set()));
    if (members.delete(member)) {
      members.add(member);
      return;
    }
    members.add(member);
    this.#size++;
    this.#moved(holder, members.size - 1, members.size);
  }

  /** Makes `member` its holder's newest; false when the holder does not hold it. */
  renew(holder: string, member: T): boolean {
    const members = this.#members.get(holder);
    if (!members?.delete(member)) return false;
    members.add(member);
    return true;
  }

  /** Removes `member`; false when the holder does not hold it. */
  delete(holder: string, member: T): boolean {
    const members = this.#members.get(holder);
    if (!members?.delete(member)) return false;
    this.#size--;
    if (members.size === 0) this.#members.delete(holder);
    this.#moved(holder, members.size + 1, members.size);
    return true;
  }

  /** The holder of the most members (on a tie, the one that reached that count first), or undefined when none. */
  biggest(): string | undefined {
    return this.#byCount[this.#most]?.values().next().value;
  }

  /** The holder's oldest member (the first added or renewed), or undefined. */
  oldest(holder: string): T | undefined {
    return this.#members.get(holder)?.values().next().value;
  }

  #moved(holder: string, from: number, to: number): void {
    if (from > 0) this.#byCount[from]?.delete(holder);
    if (to > 0) (this.#byCount[to] ??= new Set()).add(holder);
    if (to > this.#most) this.#most = to;
    while (this.#most > 0 && (this.#byCount[this.#most]?.size ?? 0) === 0) this.#most--;
  }
}
