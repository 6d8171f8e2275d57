/**
 * Of the slots an account may use, this fraction of those the other accounts leave: one
 * account alone holds three quarters of them, and a second one arriving finds a quarter free.
 */
export const ACCOUNT_SHARE = 0.75;
/** Of all the slots, one origin may hold this fraction. */
export const ORIGIN_SHARE = 0.25;

/**
 * The dispatcher's delivery slots in this process and how they are shared. An attempt holds a
 * slot from its start until it is recorded; a slow or hanging endpoint holds it until the
 * timeout. So that nobody waits for that:
 * - one origin holds at most ORIGIN_SHARE of all the slots (at least one);
 * - one account holds at most ACCOUNT_SHARE of the slots the other accounts leave (at least
 *   one while any is free). An account alone gets three quarters, and however many slots busy
 *   accounts hold, another account arriving finds one free and starts at once.
 * Within these shares a delivery waits for nobody: the store's due() leaves out the deliveries
 * of full origins, so a healthy origin's fresh deliveries never queue behind a slow one's retries.
 */
export class DeliverySlots {
  readonly originLimit: number;
  readonly #perOrigin = new Map<string, number>();
  readonly #perAccount = new Map<string, number>();
  #inUse = 0;
  #freed = signal();

  constructor(readonly concurrency: number) {
    this.originLimit = Math.max(1, Math.ceil(concurrency * ORIGIN_SHARE));
  }

  get inUse(): number {
    return this.#inUse;
  }

  /** The slots the account holds. */
  heldBy(accountId: string): number {
    return this.#perAccount.get(accountId) ?? 0;
  }

  /** The most slots the account may hold now, given what the others hold. */
  shareOf(accountId: string): number {
    const others = this.#inUse - this.heldBy(accountId);
    return Math.max(1, Math.floor(ACCOUNT_SHARE * (this.concurrency - others)));
  }

  /** How many more attempts the account may start now (0 or less: none). */
  freeFor(accountId: string): number {
    return Math.min(this.concurrency - this.#inUse, this.shareOf(accountId) - this.heldBy(accountId));
  }

  /** Whether the account's share, rather than the slots in use overall, is what stops it now. */
  accountShareFull(accountId: string): boolean {
    return this.#inUse < this.concurrency && this.heldBy(accountId) >= this.shareOf(accountId);
  }

  heldByOrigin(origin: string): number {
    return this.#perOrigin.get(origin) ?? 0;
  }

  /** Whether one more attempt of the account to the origin fits now. */
  fits(accountId: string, origin: string): boolean {
    return this.freeFor(accountId) > 0 && this.heldByOrigin(origin) < this.originLimit;
  }

  /** The origins that hold all the slots they may. */
  fullOrigins(): string[] {
    const full: string[] = [];
    for (const [origin, held] of this.#perOrigin) if (held >= this.originLimit) full.push(origin);
    return full;
  }

  take(accountId: string, origin: string): void {
    this.#inUse++;
    this.#perAccount.set(accountId, this.heldBy(accountId) + 1);
    this.#perOrigin.set(origin, this.heldByOrigin(origin) + 1);
  }

  /** Gives a slot back, and wakes whoever waits for one. */
  give(accountId: string, origin: string): void {
    this.#inUse--;
    decrement(this.#perAccount, accountId);
    decrement(this.#perOrigin, origin);
    const freed = this.#freed;
    this.#freed = signal();
    freed.fire();
  }

  /** Resolves the next time a slot is given back. */
  whenFreed(): Promise<void> {
    return this.#freed.promise;
  }
}

/** A promise and the function that resolves it (Promise.withResolvers needs Node 22). */
export function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
