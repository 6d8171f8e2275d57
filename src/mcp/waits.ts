import { capReached } from '../core/errors.js';
import { StreamSlots } from '../http/event-stream.js';

export interface McpWaitLimits {
  /** MAX_MCP_WAITS: waits one account has open at once in this process. */
  perAccount: number;
  /** MAX_MCP_WAIT_SECONDS: the longest one wait lasts. */
  maxSeconds: number;
}

/**
 * The wait_for_delivery calls this process holds open. Each holds an HTTP request and a
 * subscription to its account's events on the store's bus, as an event stream does, so each takes
 * a slot of MAX_OPEN_STREAMS_TOTAL besides its place among its account's MAX_MCP_WAITS. Made once
 * per process (deps); `closeAll` ends every wait at shutdown, which would otherwise wait for them.
 */
export class McpWaits {
  readonly #open = new Map<string, Set<() => void>>();
  readonly #slots: StreamSlots;

  constructor(
    readonly limits: McpWaitLimits,
    slots?: StreamSlots,
  ) {
    this.#slots = slots ?? new StreamSlots(Number.POSITIVE_INFINITY);
  }

  /** Waits of the account open in this process. */
  count(accountId: string): number {
    return this.#open.get(accountId)?.size ?? 0;
  }

  /**
   * Holds a place for a wait of the account (a 409 naming the setting when there is none);
   * `end` is called if the process stops first, or the slot is taken back for another account. The returned function gives the place back, once.
   */
  hold(accountId: string, end: () => void): () => void {
    const cap = this.limits.perAccount;
    const held = this.count(accountId);
    if (held >= cap) {
      throw capReached(
        'MAX_MCP_WAITS',
        `This account has ${held} wait_for_delivery calls waiting on this sandbox, the most it allows (MAX_MCP_WAITS=${cap}); let one end first`,
      );
    }
    // A wait whose slot goes to a fairer holder (StreamSlots) answers at once, as at shutdown.
    const giveBack = this.#slots.take(accountId, end);
    const waits = this.#open.get(accountId) ?? new Set<() => void>();
    this.#open.set(accountId, waits);
    waits.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      waits.delete(end);
      if (waits.size === 0 && this.#open.get(accountId) === waits) this.#open.delete(accountId);
      giveBack();
    };
  }

  /** Ends every wait now (shutdown): each answers with what the log holds. */
  closeAll(): void {
    for (const waits of [...this.#open.values()]) for (const end of [...waits]) end();
  }
}
